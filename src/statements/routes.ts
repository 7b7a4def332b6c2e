import { Type } from 'typebox';
import { Data, errorResponses, IdParams, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { Statement, StatementQuery } from './schema.js';
import { statementCsv } from './statement.js';

export async function statementRoutes(app: App) {
  const { statements } = app.deps.services;

  app.get(
    '/contacts/:id/statement',
    {
      schema: {
        operationId: 'getContactStatement',
        tags: ['Contacts'],
        summary: "A contact's statement of account",
        description:
          "Dues on the date they were created (debit), receipts on their received_on (credit), adjustments and reversals on the date they were made, oldest first, with the running balance; dates in the business's time zone. With Accept: text/csv, the entries as CSV (amounts in paise).",
        params: IdParams,
        querystring: StatementQuery,
        response: {
          200: {
            description: 'The statement (JSON), or its entries as CSV with Accept: text/csv',
            content: {
              'application/json': { schema: Data(ref(Statement)) },
              'text/csv': { schema: Type.String({ description: 'a header row, then one row per entry' }) },
            },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const s = await statements.get(request.auth.business, request.params.id, request.query);
      if ((request.headers.accept ?? '').includes('text/csv')) {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="statement.csv"')
          .send(statementCsv(s.statement.entries));
      }
      return reply.type('application/json').send({
        data: {
          contact: { id: s.contact.id, name: s.contact.name },
          from: s.from,
          to: s.to,
          opening_balance_paise: s.statement.opening,
          closing_balance_paise: s.statement.closing,
          entries: s.statement.entries.map(({ detail: _detail, ...entry }) => entry),
          aging: s.aging,
        },
      });
    },
  );
}

export const statementSchemas = [Statement];
