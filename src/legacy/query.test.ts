import { describe, expect, it } from 'vitest';
import { parseContactsQuery, parseTransactionsQuery } from './query.js';

describe('parseTransactionsQuery', () => {
  it('takes valid values, trimmed and case-folded where that is safe', () => {
    expect(
      parseTransactionsQuery({
        status: ' Overdue ',
        contact_id: '0190A000-0000-7000-8000-00000000000F',
        startDate: '2030-02-28',
        endDate: '2030-03-01',
        search: '  ravi ',
        limit: '20',
        offset: '40',
      }),
    ).toEqual({
      status: 'overdue',
      contactId: '0190a000-0000-7000-8000-00000000000f',
      startDate: '2030-02-28',
      endDate: '2030-03-01',
      search: 'ravi',
      limit: 20,
      offset: 40,
    });
  });

  it('ignores what is invalid and clamps numbers, whatever the input looks like', () => {
    const defaults = {
      status: undefined,
      contactId: undefined,
      startDate: undefined,
      endDate: undefined,
      search: undefined,
      limit: 50,
      offset: 0,
    };
    expect(parseTransactionsQuery(undefined)).toEqual(defaults);
    expect(
      parseTransactionsQuery({
        status: 'outstanding',
        contact_id: '12',
        startDate: '2030-02-29',
        endDate: '2030-3-1',
        search: '   ',
        limit: 'NaN',
        offset: 'Infinity',
      }),
    ).toEqual({ ...defaults, offset: 10_000_000 });
    expect(parseTransactionsQuery({ limit: ['7', '9'], offset: { a: 1 } })).toEqual({ ...defaults, limit: 7 });
    expect(parseTransactionsQuery({ limit: '-Infinity', offset: '-1' })).toEqual({ ...defaults, limit: 1 });
    expect(parseTransactionsQuery({ limit: '1e9' })).toEqual({ ...defaults, limit: 200 });
  });
});

describe('parseContactsQuery', () => {
  it('keeps at most 120 characters of a search', () => {
    const long = 'ab '.repeat(100);
    expect(parseContactsQuery({ search: long }).search).toHaveLength(120);
    expect(parseContactsQuery({ search: 'x', phone: '12345678' })).toEqual({ search: 'x', limit: 50, offset: 0 });
  });
});
