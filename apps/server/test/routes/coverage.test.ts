import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { contract } from '@releases/contract';
import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';

/** This folder: `routes/<contract key>.<intent>.test.ts`. */
const routesFolder = path.dirname(fileURLToPath(import.meta.url));
const contractKeys = Object.keys(contract);

describe('every router of the contract has its security tests', () => {
  it.each(contractKeys)('routes/%s.security.test.ts exists and runs its auth matrix', (key) => {
    const file = path.join(routesFolder, `${key}.security.test.ts`);
    expect(existsSync(file), file).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain(`describeAuthMatrix('${key}');`);
  });

  it('the route table holds no route outside those routers, so the matrices cover every route', () => {
    const routers = new Set(new RouteTable().entries.map((entry) => entry.key.split('.')[0]));
    expect([...routers].sort()).toEqual([...contractKeys].sort());
  });
});
