import { describe, expect, it } from 'vitest';
import { formatUuidv7, increment74, isUuid, randomToken, timeOrderedToken, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('produces RFC 9562 version 7 uuids carrying the time', () => {
    const id = uuidv7(Date.parse('2030-01-01T00:00:00.000Z'));
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(
      Date.parse('2030-01-01T00:00:00.000Z'),
    );
  });

  it('is strictly increasing within a millisecond and when the clock goes back', () => {
    const ids = [uuidv7(5_000_000_000_000), uuidv7(5_000_000_000_000), uuidv7(4_000_000_000_000), uuidv7()];
    for (let i = 1; i < ids.length; i++) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
    const many = Array.from({ length: 1000 }, () => uuidv7(6_000_000_000_000));
    expect([...many].sort()).toEqual(many);
    expect(new Set(many).size).toBe(1000);
  });

  it('writes the 74 random bits as the RFC lays them out (checked against a BigInt layout)', () => {
    const reference = (ms: number, rand: bigint) => {
      const randA = Number(rand >> 62n) & 0xfff;
      const randB = (rand & ((1n << 62n) - 1n)) | (0b10n << 62n);
      const hex =
        ms.toString(16).padStart(12, '0') +
        (0x7000 | randA).toString(16).padStart(4, '0') +
        randB.toString(16).padStart(16, '0');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    const ms = 0x0123456789ab;
    const cases = [
      { a: 0, b: 0, c: 0 },
      { a: 0xfff, b: 2 ** 30 - 1, c: 2 ** 32 - 1 },
      { a: 1, b: 2, c: 3 },
      ...Array.from({ length: 200 }, () => ({
        a: Math.floor(Math.random() * 2 ** 12),
        b: Math.floor(Math.random() * 2 ** 30),
        c: Math.floor(Math.random() * 2 ** 32),
      })),
    ];
    for (const r of cases) {
      const rand = (BigInt(r.a) << 62n) | (BigInt(r.b) << 32n) | BigInt(r.c);
      expect(formatUuidv7('01234567-89ab-', r)).toBe(reference(ms, rand));
    }
  });

  it('carries the increment through every part of the random bits, and says when they wrap', () => {
    const r = { a: 5, b: 2 ** 30 - 1, c: 2 ** 32 - 1 };
    expect(increment74(r)).toBe(true);
    expect(r).toEqual({ a: 6, b: 0, c: 0 });
    const top = { a: 0xfff, b: 2 ** 30 - 1, c: 2 ** 32 - 1 };
    expect(increment74(top)).toBe(false);
    expect(top).toEqual({ a: 0, b: 0, c: 0 });
    const low = { a: 0, b: 7, c: 41 };
    expect(increment74(low)).toBe(true);
    expect(low).toEqual({ a: 0, b: 7, c: 42 });
  });
});

describe('randomToken', () => {
  it('is URL-safe and carries at least 128 random bits', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(randomToken()).not.toBe(token);
  });

  it('never repeats across refills of the random pool', () => {
    // 1,000 tokens of 18 bytes draw the 4 KiB pool several times over
    const tokens = Array.from({ length: 1000 }, () => randomToken());
    expect(new Set(tokens).size).toBe(1000);
    expect(randomToken(5000)).toHaveLength(Math.ceil((5000 * 4) / 3));
  });
});

describe('timeOrderedToken', () => {
  it('is URL-safe, carries 144 random bits after the time, and sorts by the time it was made', () => {
    const token = timeOrderedToken(Date.parse('2030-01-01T00:00:00.000Z'));
    expect(token).toMatch(/^[0-9a-f]{12}[A-Za-z0-9_-]{24}$/);
    expect(Number.parseInt(token.slice(0, 12), 16)).toBe(Date.parse('2030-01-01T00:00:00.000Z'));
    expect(Buffer.from(token.slice(12), 'base64url').length * 8).toBe(144);
    const times = [1, 15, 16, 255, 256, 4_000_000_000_000, 4_000_000_000_001, 99_999_999_999_999];
    const tokens = times.map((t) => timeOrderedToken(t));
    expect([...tokens].sort()).toEqual(tokens);
    expect(new Set(Array.from({ length: 100 }, () => timeOrderedToken(7))).size).toBe(100);
  });
});
