import { describe, expect, it } from 'vitest';
import { holdsNul, jsonTooDeep } from './json-text.js';

describe('jsonTooDeep', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonTooDeep(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false);
    expect(jsonTooDeep(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true);
    expect(jsonTooDeep(`{"a":"${'['.repeat(100)}"}`)).toBe(false);
    expect(jsonTooDeep(`{"a":"\\"${'{'.repeat(100)}"}`)).toBe(false);
    expect(jsonTooDeep(`[{"a":[{"b":1}]}]`, 3)).toBe(true);
    expect(jsonTooDeep(`[{"a":[1]},{"b":[2]}]`, 3)).toBe(false);
  });
});

describe('holdsNul', () => {
  it('finds a NUL in any string, key or value, at any depth', () => {
    expect(holdsNul(JSON.parse('{"a":[{"b":"x\\u0000"}]}'))).toBe(true);
    expect(holdsNul(JSON.parse('{"a\\u0000":1}'))).toBe(true);
    expect(holdsNul(JSON.parse('{"a":[{"b":"x\\\\u0000"}], "n": null, "t": true}'))).toBe(false);
    expect(holdsNul(JSON.parse(`${'['.repeat(10_000)}"\\u0000"${']'.repeat(10_000)}`))).toBe(true);
  });
});
