import { generateSchema } from '@anatine/zod-openapi';
import type { OpenAPIObject, OperationObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas30';
import type { ZodTypeAny } from 'zod';

export type Schema = SchemaObject | ReferenceObject;

export function isReference(value: object): value is ReferenceObject {
  return '$ref' in value;
}

/**
 * The OpenAPI form of a zod schema, written by the library ts-rest's generator uses, so a schema reads the same
 * here as in the generated operations. `output`: the parsed form (responses), else the accepted form (requests).
 */
export function schemaOf(zod: ZodTypeAny, output: boolean): SchemaObject {
  // The library types its result as OpenAPI 3.1; for the zod features the contract uses it writes 3.0 (`nullable`).
  return generateSchema(zod, output) as unknown as SchemaObject;
}

/** A copy of a schema with each direct subschema replaced by `rewrite(subschema)`. */
function withSubschemas(schema: SchemaObject, rewrite: (schema: Schema) => Schema): SchemaObject {
  const copy: SchemaObject = { ...schema };
  if (schema.properties) {
    copy.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, rewrite(v)]));
  }
  if (schema.items) copy.items = rewrite(schema.items);
  if (typeof schema.additionalProperties === 'object') {
    copy.additionalProperties = rewrite(schema.additionalProperties);
  }
  if (schema.allOf) copy.allOf = schema.allOf.map(rewrite);
  if (schema.anyOf) copy.anyOf = schema.anyOf.map(rewrite);
  if (schema.oneOf) copy.oneOf = schema.oneOf.map(rewrite);
  if (schema.not) copy.not = rewrite(schema.not);
  return copy;
}

/** Rewrites a schema tree bottom-up: subschemas first, then the schema that holds them. */
function rewriteTree(schema: Schema, rewrite: (schema: SchemaObject) => Schema): Schema {
  if (isReference(schema)) return schema;
  return rewrite(withSubschemas(schema, (child) => rewriteTree(child, rewrite)));
}

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** An operation's responses, typed: openapi3-ts types the map's values as `any`. */
export function responsesOf(operation: OperationObject): Record<string, ResponseObject | ReferenceObject> {
  return operation.responses;
}

function rewriteOperation(operation: OperationObject, rewrite: (schema: Schema) => Schema): void {
  for (const parameter of operation.parameters ?? []) {
    if (!isReference(parameter) && parameter.schema) parameter.schema = rewrite(parameter.schema);
  }
  const body = operation.requestBody;
  if (body && !isReference(body)) {
    for (const media of Object.values(body.content)) if (media.schema) media.schema = rewrite(media.schema);
  }
  for (const response of Object.values(responsesOf(operation))) {
    if (isReference(response)) continue;
    for (const media of Object.values(response.content ?? {})) if (media.schema) media.schema = rewrite(media.schema);
    for (const header of Object.values(response.headers ?? {})) {
      if (!isReference(header) && header.schema) header.schema = rewrite(header.schema);
    }
  }
}

/**
 * Applies `rewrite` to every schema of the document, bottom-up: in operations (parameters, bodies, response
 * headers) and in `components` (schemas, headers). One walk, so no schema position can be forgotten by one pass and not
 * another.
 */
export function rewriteSchemas(document: OpenAPIObject, rewrite: (schema: SchemaObject) => Schema): void {
  const tree = (schema: Schema) => rewriteTree(schema, rewrite);
  for (const item of Object.values(document.paths)) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (operation) rewriteOperation(operation, tree);
    }
  }
  const schemas = document.components?.schemas;
  if (schemas) for (const [name, schema] of Object.entries(schemas)) schemas[name] = tree(schema);
  for (const header of Object.values(document.components?.headers ?? {})) {
    if (!isReference(header) && header.schema) header.schema = tree(header.schema);
  }
}

/** JSON with sorted keys: two schemas are the same schema when these are equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const componentRef = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/**
 * Moves the contract's named schemas into `components/schemas` and refers to them wherever the generator wrote
 * them inline (ts-rest issue 366). The generator writes a zod schema the same way wherever it is used, so each
 * place where a named schema's form appears is that schema. Smaller schemas are named first, so a larger one is
 * compared with its named parts already replaced by references, and nested schemas come out as references too.
 */
export function hoistNamedSchemas(document: OpenAPIObject, named: Record<string, ZodTypeAny>): void {
  const forms = Object.entries(named).map(([name, zod]) => {
    const output = schemaOf(zod, true);
    if (canonical(output) !== canonical(schemaOf(zod, false))) {
      // One component cannot stand for both: a transform makes the accepted and the parsed forms differ.
      throw new Error(`${name} reads differently in requests and responses: name its two forms apart`);
    }
    return { name, schema: output, size: canonical(output).length };
  });
  forms.sort((a, b) => a.size - b.size);

  const names = new Map<string, string>();
  const hoist = (schema: SchemaObject): Schema => {
    const name = names.get(canonical(schema));
    return name === undefined ? schema : componentRef(name);
  };
  const components: Record<string, SchemaObject> = {};
  for (const { name, schema } of forms) {
    // The schema's parts become references; the schema itself is the component.
    const component = withSubschemas(schema, (child) => rewriteTree(child, hoist));
    const key = canonical(component);
    const twin = names.get(key);
    if (twin !== undefined) throw new Error(`${name} and ${twin} are the same schema: name it once`);
    names.set(key, name);
    components[name] = component;
  }

  rewriteSchemas(document, hoist);
  document.components = {
    ...document.components,
    schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** An integer's `format` from its bounds (the generator writes none; OpenAPI tools size types by it). */
export function withIntegerFormat(schema: SchemaObject): SchemaObject {
  if (schema.type !== 'integer' || schema.format !== undefined) return schema;
  const fits32 =
    schema.minimum !== undefined &&
    schema.maximum !== undefined &&
    schema.minimum >= int32.min &&
    schema.maximum <= int32.max;
  return { ...schema, format: fits32 ? 'int32' : 'int64' };
}
