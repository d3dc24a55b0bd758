import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every public member of the published types carries TSDoc (issue 8 #10): the editor hover is the
 * documentation most users read. Walks what each entry point exports in the emitted `.d.ts` with the
 * TypeScript compiler, down through classes, interfaces and object types, and lists what has no comment.
 */
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const entries = ['index.d.ts', 'validation.d.ts'].map((name) => path.join(dist, name));

interface Coverage {
  documented: string[];
  undocumented: string[];
}

function hasDoc(declaration: ts.Declaration): boolean {
  return ts.getJSDocCommentsAndTags(declaration).length > 0;
}

function isPrivate(declaration: ts.Declaration): boolean {
  const name = ts.getNameOfDeclaration(declaration);
  if (name && ts.isPrivateIdentifier(name)) return true;
  return (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

function measure(): Coverage {
  const program = ts.createProgram(entries, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  });
  const checker = program.getTypeChecker();
  const coverage: Coverage = { documented: [], undocumented: [] };
  const seen = new Set<ts.Declaration>();

  const record = (name: string, declaration: ts.Declaration) => {
    (hasDoc(declaration) ? coverage.documented : coverage.undocumented).push(name);
  };

  /** The members of an object type written in our declarations (type literals, interfaces, classes). */
  const visitMembers = (owner: string, members: ts.NodeArray<ts.ClassElement | ts.TypeElement>) => {
    for (const member of members) {
      if (isPrivate(member) || ts.isIndexSignatureDeclaration(member) || ts.isCallSignatureDeclaration(member))
        continue;
      if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member)) continue;
      const name = ts.isConstructorDeclaration(member) ? 'constructor' : (member.name?.getText() ?? '?');
      record(`${owner}.${name}`, member);
      const type = (member as { type?: ts.TypeNode }).type;
      if (type && ts.isTypeLiteralNode(type)) visitMembers(`${owner}.${name}`, type.members);
    }
  };

  const visitDeclaration = (name: string, declaration: ts.Declaration) => {
    if (seen.has(declaration)) return;
    seen.add(declaration);
    record(name, declaration);
    if (ts.isClassDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) {
      visitMembers(name, declaration.members);
    } else if (ts.isTypeAliasDeclaration(declaration) && ts.isTypeLiteralNode(declaration.type)) {
      visitMembers(name, declaration.type.members);
    }
  };

  for (const entry of entries) {
    const source = program.getSourceFile(entry)!;
    const moduleSymbol = checker.getSymbolAtLocation(source)!;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const declaration of symbol.declarations ?? []) {
        // A variable's comment sits on its statement, which getJSDocCommentsAndTags reads from the declaration.
        visitDeclaration(exported.name, declaration);
      }
    }
  }
  return coverage;
}

/** The names each entry's `.d.ts` exports as values (classes, constants, functions), not as types only. */
function declaredValueExports(entry: string): string[] {
  const program = ts.createProgram([entry], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const typeOnly = exported.declarations?.some(
        (declaration) =>
          ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly),
      );
      return !typeOnly && (symbol.flags & ts.SymbolFlags.Value) !== 0;
    })
    .map((exported) => exported.name)
    .sort();
}

describe('the published types and the code agree', () => {
  it.each(['index', 'validation'])('every value %s.d.ts exports exists in its .js and .cjs', async (name) => {
    const declared = declaredValueExports(path.join(dist, `${name}.d.ts`));
    expect(declared.length).toBeGreaterThan(0);
    const esm = Object.keys((await import(path.join(dist, `${name}.js`))) as object).sort();
    const cjs = Object.keys(createRequire(import.meta.url)(path.join(dist, `${name}.cjs`)) as object).sort();
    expect(esm).toEqual(declared);
    expect(cjs).toEqual(declared);
  });
});

describe('TSDoc coverage of the published types', () => {
  it('documents every public member', () => {
    if (!entries.every((entry) => existsSync(entry))) throw new Error('build the SDK first: pnpm build');
    const { documented, undocumented } = measure();
    console.info(`TSDoc: ${documented.length} of ${documented.length + undocumented.length} public members documented`);
    expect(documented.length).toBeGreaterThan(100);
    expect(undocumented).toEqual([]);
  });
});
