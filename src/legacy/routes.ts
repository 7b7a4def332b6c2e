import { ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentLegacyContact, presentLegacySummary, presentLegacyTransaction } from './presenter.js';
import { legacyId, parseContactsQuery, parseTransactionsQuery } from './query.js';
import {
  LEGACY_TAG,
  LegacyContact,
  LegacyContactsQuery,
  LegacyIdParams,
  LegacyPage,
  LegacySummary,
  LegacyTransaction,
  LegacyTransactionsQuery,
  legacyErrorResponses,
} from './schema.js';

/**
 * The read endpoints of the earlier shape (SPEC part 9): the same services as /v1, presented
 * flat and camelCase. Queries arrive unvalidated (legacy/errors.ts) and are read by legacy/query.ts;
 * the TypeBox query types therefore do not describe request.query here.
 */
export async function legacyReadRoutes(app: App) {
  const { summary, transactions, contacts } = app.deps.services;

  app.get(
    '/summary',
    {
      schema: {
        operationId: 'legacyGetSummary',
        tags: [LEGACY_TAG],
        summary: 'Totals of dues by state (earlier shape)',
        response: { 200: ref(LegacySummary), ...legacyErrorResponses() },
      },
    },
    async (request) => {
      const { business } = request.auth;
      return presentLegacySummary(await summary.get(business), business.currency);
    },
  );

  app.get(
    '/transactions',
    {
      schema: {
        operationId: 'legacyListTransactions',
        tags: [LEGACY_TAG],
        summary: 'List dues, newest due date first (earlier shape)',
        description:
          'Invalid parameters are ignored and out-of-range numbers clamped; never a 400. status: pending (not yet past due), overdue (past due and unpaid), paid. startDate/endDate bound the due date, both inclusive. search: fuzzy on the contact name.',
        querystring: LegacyTransactionsQuery,
        response: { 200: LegacyPage(ref(LegacyTransaction)), ...legacyErrorResponses() },
      },
    },
    async (request) => {
      const { business } = request.auth;
      const q = parseTransactionsQuery(request.query);
      const page = await transactions.list(
        business,
        { status: q.status, contact_id: q.contactId, limit: q.limit, offset: q.offset },
        { dueFrom: q.startDate, dueTo: q.endDate, fuzzyContactName: q.search },
      );
      const today = transactions.today(business);
      return {
        data: page.rows.map((row) => presentLegacyTransaction(row, today)),
        total: page.total,
        limit: page.limit,
        offset: page.offset,
      };
    },
  );

  app.get(
    '/transactions/:id',
    {
      schema: {
        operationId: 'legacyGetTransaction',
        tags: [LEGACY_TAG],
        summary: 'One due, flat (earlier shape)',
        params: LegacyIdParams,
        response: { 200: ref(LegacyTransaction), ...legacyErrorResponses(404) },
      },
    },
    async (request) => {
      const { business } = request.auth;
      const row = await transactions.get(business, legacyId(request.params.id, 'transaction'));
      return presentLegacyTransaction(row, transactions.today(business));
    },
  );

  app.get(
    '/contacts',
    {
      schema: {
        operationId: 'legacyListContacts',
        tags: [LEGACY_TAG],
        summary: 'List contacts, newest first (earlier shape)',
        description:
          'Invalid parameters are ignored and out-of-range numbers clamped; never a 400. search: fuzzy on the name.',
        querystring: LegacyContactsQuery,
        response: { 200: LegacyPage(ref(LegacyContact)), ...legacyErrorResponses() },
      },
    },
    async (request) => {
      const q = parseContactsQuery(request.query);
      const page = await contacts.list(
        request.auth.business,
        { limit: q.limit, offset: q.offset },
        { fuzzySearch: q.search },
      );
      return {
        data: page.items.map((i) => presentLegacyContact(i.contact, i.standing)),
        total: page.total,
        limit: page.limit,
        offset: page.offset,
      };
    },
  );

  app.get(
    '/contacts/:id',
    {
      schema: {
        operationId: 'legacyGetContact',
        tags: [LEGACY_TAG],
        summary: 'One contact with balances and payment score, flat (earlier shape)',
        params: LegacyIdParams,
        response: { 200: ref(LegacyContact), ...legacyErrorResponses(404) },
      },
    },
    async (request) => {
      const { contact, standing } = await contacts.get(request.auth.business, legacyId(request.params.id, 'contact'));
      return presentLegacyContact(contact, standing);
    },
  );
}
