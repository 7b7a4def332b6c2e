import { Readable } from 'node:stream';
import { MAX_IMPORT_BYTES } from '../bulk/service.js';
import { RowsError } from '../errors.js';
import type { App } from '../http/types.js';
import { randomToken } from '../lib/ids.js';
import { type Form, viewOf } from './common.js';
import { formError } from './errors.js';
import { formOnce } from './forms.js';
import { seeOther, sendPage } from './http.js';
import { renderImport } from './pages/import.js';

const STATUSES = ['outstanding', 'overdue', 'pending', 'paid'] as const;

/** Import with a preview (PRODUCT part 12's dry run and row errors), and export, over BulkService. */
export async function importRoutes(app: App) {
  const { bulk } = app.deps.services;

  app.get('/import', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, 200, renderImport(viewOf(request), { csv: '', once: randomToken(18) })),
  );

  // An import is up to 5 MB of CSV (PRODUCT part 12, checked once decoded); pasted into the form
  // it grows by URL encoding, at most threefold (%2C). The session is checked before the body is
  // read (routes.ts), so only a signed-in owner's body is ever parsed.
  app.post<{ Body: Form }>(
    '/import',
    { schema: { hide: true }, bodyLimit: 3 * MAX_IMPORT_BYTES + 64 * 1024 },
    async (request, reply) => {
      const v = viewOf(request);
      const csv = request.body.csv ?? '';
      const once = request.body.once ?? randomToken(18);
      const preview = request.body.action !== 'import';
      try {
        if (preview) {
          const result = await bulk.importDues(v.business, { csv }, { dryRun: true });
          return sendPage(reply, 200, renderImport(v, { csv, once, preview: result }));
        }
        await bulk.importOnce(
          v.business,
          { csv },
          {
            idempotencyKey: formOnce(request.body, 'dashboard.transactions.import', { csv }),
            respond: (result) => ({ status: 303, body: result }),
          },
        );
        return seeOther(reply, '/dashboard/dues?ok=imported');
      } catch (error) {
        const rows = error instanceof RowsError ? error.rows : [];
        const { status, flash } = formError(error, v.t);
        return sendPage(reply, status, renderImport(v, { csv, once, rows }, flash));
      }
    },
  );

  app.get<{ Querystring: { status?: string } }>('/export', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const status = (STATUSES as readonly string[]).includes(request.query.status ?? '')
      ? (request.query.status as (typeof STATUSES)[number])
      : undefined;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="dues.csv"')
      .header('cache-control', 'no-store')
      .send(Readable.from(bulk.exportCsv(v.business, status ? { status } : {})));
  });
}
