import { describe, expect, it } from 'vitest';
import { contactNameKey } from './name-key.js';
import { ERASED_NAME, erasedNameKey, redactJsonText, redactPersonal } from './redact.js';

const personal = { names: ['Ravi Kumar'], phones: ['919812345678'] };

describe('redactPersonal', () => {
  it("replaces the contact's name and phone fields whatever they hold, and leaves money and ids", () => {
    const data = {
      id: 'd1',
      contactId: 'c1',
      contactName: 'Ravi K',
      contactPhone: '919800000000',
      amountPaise: 150_000,
      notes: 'called Ravi Kumar on 919812345678',
    };
    expect(redactPersonal(data, personal)).toEqual({
      id: 'd1',
      contactId: 'c1',
      contactName: ERASED_NAME,
      contactPhone: null,
      amountPaise: 150_000,
      notes: `called ${ERASED_NAME} on `,
    });
  });

  it("redacts a contact's own shape and nested values, and answers unchanged text for other data", () => {
    expect(redactPersonal({ data: [{ name: 'Ravi Kumar', phone: '919812345678' }] }, personal)).toEqual({
      data: [{ name: ERASED_NAME, phone: null }],
    });
    const other = '{"name":"Sunita Devi","phone":"919811112222","amountPaise":5}';
    expect(redactJsonText(other, personal)).toBe(other);
    expect(redactJsonText('not json', personal)).toBe('not json');
  });
});

describe('erasedNameKey', () => {
  it('is a key no name makes, unique per contact, with no letter or digit a search could match', () => {
    const key = erasedNameKey('01959c4e-0000-7000-8000-000000000001');
    expect(key.startsWith(' ')).toBe(true);
    expect(contactNameKey(key)).not.toBe(key);
    expect(key).not.toBe(erasedNameKey('01959c4e-0000-7000-8000-000000000002'));
    expect(/[\p{L}\p{N}]/u.test(key)).toBe(false);
  });
});
