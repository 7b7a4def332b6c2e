import { Type } from 'typebox';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { idempotencyKeyOf, sendAnswer } from '../http/idempotency.js';
import { Data, errorResponses, IdParams, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentContact, presentContactWithBalances } from './presenter.js';
import {
  BuyerReply,
  Contact,
  ContactWithBalances,
  CreateContactBody,
  ListContactsQuery,
  RepliesQuery,
  UpdateContactBody,
} from './schema.js';

export async function contactRoutes(app: App) {
  const { contacts, transactions, businesses } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;

  app.get(
    '/contacts',
    {
      schema: {
        operationId: 'listContacts',
        tags: ['Contacts'],
        summary: 'List contacts, newest first',
        description:
          "search: the name contains the text; phone: the phone ends with these digits. since: contacts whose name, phone or reminder pause changed at or after this instant, for incremental sync (poll with a few seconds of overlap and keep the newest updated_at per id; a rename or a new phone also moves the updated_at of the contact's dues). starting_after: the id of the last contact of the previous page gives the contacts that follow it (a cursor; offset must then be 0 or absent).",
        querystring: ListContactsQuery,
        response: { 200: Page(ref(Contact)), ...errorResponses() },
      },
    },
    async (request) => {
      const page = await contacts.list(request.auth.business, request.query);
      return {
        data: page.items.map((i) => presentContact(i.contact, i.standing, publicBaseUrl)),
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        hasMore: page.hasMore,
      };
    },
  );

  app.post(
    '/contacts',
    {
      schema: {
        operationId: 'createContact',
        tags: ['Contacts'],
        summary: 'Create a contact, or return the one with the same name',
        description:
          'Names are unique per business, case-insensitively. An existing contact with the same name is returned with created: false (200). Supports Idempotency-Key.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })),
        }),
        body: CreateContactBody,
        response: {
          200: Type.Object({ data: ref(Contact), created: Type.Boolean() }),
          201: Type.Object({ data: ref(Contact), created: Type.Boolean() }),
          ...errorResponses(409, 422),
        },
      },
    },
    async (request, reply) =>
      sendAnswer(
        reply,
        await contacts.create(request.auth.business, request.body, {
          idempotencyKey: idempotencyKeyOf(request, 'contacts.create'),
          respond: (result) => ({
            status: result.created ? 201 : 200,
            body: { data: presentContact(result.contact, result.standing, publicBaseUrl), created: result.created },
          }),
        }),
      ),
  );

  app.get(
    '/contacts/:id',
    {
      schema: {
        operationId: 'getContact',
        tags: ['Contacts'],
        summary: 'One contact with balances and payment score',
        params: IdParams,
        response: {
          200: Data(ref(ContactWithBalances)),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const today = transactions.today(business);
      // Kept rendered while the business's data stands still (http/rendered.ts): a contact's
      // balances and score come from its dues, its kept score and its own row, all of which move
      // the business's data version, and from the local date, which is in the key.
      return app.rendered.send(
        reply,
        'contact',
        [business.id, today, request.params.id],
        () => businesses.dataVersion(business.id),
        async () => {
          const { contact, standing } = await contacts.get(business, request.params.id, today);
          return { data: presentContactWithBalances(contact, standing, publicBaseUrl) };
        },
      );
    },
  );

  app.get(
    '/contacts/:id/replies',
    {
      schema: {
        operationId: 'listContactReplies',
        tags: ['Contacts'],
        summary: "The buyer's chat replies, newest first",
        description:
          'Messages the contact sent on the chat channel that were not commands. A reply naming a date recorded a promise to pay on the oldest open due (promise_date, transaction_id); an unclear one changed nothing and is here to read.',
        params: IdParams,
        querystring: RepliesQuery,
        response: { 200: Data(Type.Array(BuyerReply)), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: await contacts.replies(request.auth.business, request.params.id, request.query.limit ?? 50),
    }),
  );

  app.patch(
    '/contacts/:id',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'updateContact',
        tags: ['Contacts'],
        summary: 'Rename a contact, change its phone (null removes it) or pause its reminders',
        params: IdParams,
        body: UpdateContactBody,
        response: { 200: Data(ref(ContactWithBalances)), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { contact, standing } = await contacts.update(
        request.auth.business,
        request.params.id,
        // The schema's enum: en, hi or null.
        request.body as typeof request.body & { language?: 'en' | 'hi' | null },
      );
      // Every field the single read shows (its balances and reminders_paused too).
      return { data: presentContactWithBalances(contact, standing, publicBaseUrl) };
    },
  );
}

export const contactSchemas = [Contact, ContactWithBalances];
