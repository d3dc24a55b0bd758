import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './router.js';

const origin = 'https://releases.example';

describe('safeReturnPath: where signing in may lead', () => {
  it.each([
    ['/settings/keys', '/settings/keys'],
    ['/?genres=rock&sort=release_date', '/?genres=rock&sort=release_date'],
    ['/releases/rel_1#tracks', '/releases/rel_1#tracks'],
    [`${origin}/settings/keys`, '/settings/keys'],
    // Encoded forms stay encoded: a path on this site, never a host.
    ['/%09/evil.example/x', '/%09/evil.example/x'],
    ['/%5Cevil.example', '/%5Cevil.example'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ])('follows %j to %j', (next, path) => {
    expect(safeReturnPath(next, origin)).toBe(path);
  });

  it.each([
    // What the URL parser makes of these is another host: tab and newline are dropped, `\` is `/`.
    '/\t/evil.example/x',
    '/\n/evil.example/x',
    '/\r\n/evil.example',
    '\t//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '//evil.example',
    '//evil.example/settings/keys',
    '///evil.example',
    '/..//evil.example',
    '/.//evil.example/x',
    '/%2e//evil.example',
    'https://evil.example',
    'https://evil.example/settings/keys',
    'http://releases.example/settings/keys',
    'https://releases.example.evil.example/',
    'https://user@evil.example',
    'javascript:alert(document.domain)',
    ' javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'blob:https://releases.example/1',
    'http://[::1',
  ])('refuses %j and goes home instead', (next) => {
    expect(safeReturnPath(next, origin)).toBe('/');
  });

  it('goes home when there is nowhere to go', () => {
    expect(safeReturnPath(null, origin)).toBe('/');
    expect(safeReturnPath('', origin)).toBe('/');
  });
});
