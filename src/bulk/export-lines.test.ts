import { describe, expect, it } from 'vitest';
import { TRIMMED } from './export-lines.js';

describe('TRIMMED', () => {
  it('is exactly what String.prototype.trim removes, so SQL quotes the cells csvCell quotes', () => {
    const removed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      if (`x${ch}`.trim() === 'x') removed.push(ch);
    }
    expect([...TRIMMED].sort()).toEqual(removed.sort());
  });
});
