import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StatementResult } from '../bank/service.js';
import { StatementRefused, WAITING } from '../bank/service.js';
import { AppError, errors } from '../errors.js';
import type { App } from '../http/types.js';
import { isUuid } from '../lib/ids.js';
import { checkId, dueRow, type Form, PAGE_SIZE, pageNumber, viewOf } from './common.js';
import { searchText } from './forms.js';
import { seeOther, sendPage } from './http.js';
import { renderBank, renderCredit } from './pages/bank.js';
import type { View } from './pages/view.js';

/** A statement is up to 5 MB (as over the API); the form's other fields and the multipart framing add little. */
const UPLOAD_BODY_LIMIT = 5 * 1024 * 1024 + 64 * 1024;
/** Credits matched lately, shown under the queue. */
const MATCHED_SHOWN = 20;
/** Buyers and open dues the credit page offers for a name. */
const FOUND_CONTACTS = 5;
const FOUND_DUES = 10;

type Query = Record<string, string | undefined>;
type Flash = { kind: 'notice' | 'error'; text: string };

/**
 * A multipart/form-data body (the file form) as a form: each field's first value, a file as its
 * text. Parsed by the platform's own parser (undici's, as `fetch` uses); a body it cannot read is
 * 400, never a 500.
 */
async function parseMultipart(contentType: string, body: Buffer): Promise<Form> {
  let data: FormData;
  try {
    data = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw errors.invalid('statement', 'the form could not be read');
  }
  const form: Form = {};
  for (const [key, value] of data) {
    if (key in form) continue;
    form[key] = typeof value === 'string' ? value : await value.text();
  }
  return form;
}

/** The statement upload and the review queue of its credits (PRODUCT part 19), over BankService. */
export async function bankPageRoutes(app: App) {
  const { bank, transactions, contacts } = app.deps.services;

  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: UPLOAD_BODY_LIMIT },
    (request: FastifyRequest, body: Buffer) => parseMultipart(String(request.headers['content-type']), body),
  );

  const bankPage = async (v: View, page: number, uploaded?: StatementResult) => {
    const [waiting, waitingTotal, matched] = await Promise.all([
      bank.list(v.business, { status: WAITING, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
      bank.count(v.business),
      bank.list(v.business, { status: 'matched', limit: MATCHED_SHOWN }),
    ]);
    return {
      waiting: waiting.items,
      waitingTotal,
      page,
      pages: Math.max(1, Math.ceil(waitingTotal / PAGE_SIZE)),
      matched: matched.items,
      targets: await bank.targets(v.business, [...waiting.items, ...matched.items]),
      ...(uploaded && { uploaded }),
    };
  };

  const show = async (reply: FastifyReply, v: View, status: number, flash?: Flash, uploaded?: StatementResult) =>
    sendPage(reply, status, renderBank(v, await bankPage(v, 1, uploaded), flash));

  /** The upload's refusal in the owner's words, naming the line. */
  const refusal = (v: View, error: StatementRefused): string => {
    const params = { line: error.line ?? '', value: error.value };
    return v.t(`bank.error.${error.problem}`, params);
  };

  app.get<{ Querystring: Query }>('/bank', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const ok = request.query.ok;
    const flash: Flash | undefined =
      ok === 'applied'
        ? { kind: 'notice', text: v.t('bank.applied') }
        : ok === 'ignored'
          ? { kind: 'notice', text: v.t('bank.ignored') }
          : undefined;
    const page = await bankPage(v, pageNumber(request.query.page));
    return sendPage(reply, 200, renderBank(v, page, flash));
  });

  // The result is shown in the answer: uploading the same file again (a reload) only counts duplicates.
  app.post<{ Body: Form }>(
    '/bank',
    { schema: { hide: true }, bodyLimit: UPLOAD_BODY_LIMIT },
    async (request, reply) => {
      const v = viewOf(request);
      const text = request.body.statement ?? '';
      if (text.trim() === '') return show(reply, v, 400, { kind: 'error', text: v.t('bank.no_file') });
      try {
        const result = await bank.upload(v.business, text);
        return show(reply, v, 200, undefined, result);
      } catch (error) {
        if (!(error instanceof StatementRefused)) throw error;
        return show(reply, v, 400, { kind: 'error', text: refusal(v, error) });
      }
    },
  );

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/bank/credits/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const credit = await bank.get(v.business, checkId(request.params.id));
      const q = searchText(request.query.q);
      const today = transactions.today(v.business);
      const [found, dues, targets] = await Promise.all([
        q.length >= 2
          ? contacts.list(v.business, { search: q, limit: FOUND_CONTACTS })
          : Promise.resolve({ items: [] }),
        q.length >= 2
          ? transactions.list(v.business, { status: 'outstanding', limit: FOUND_DUES }, { fuzzyContactName: q }, today)
          : Promise.resolve({ rows: [] }),
        bank.targets(v.business, [credit]),
      ]);
      return sendPage(
        reply,
        200,
        renderCredit(v, {
          credit,
          targets,
          q,
          contacts: found.items.map((i) => i.contact),
          dues: dues.rows.map((r) => dueRow(r, today)),
        }),
      );
    },
  );

  /** A decision refused because the credit was decided meanwhile (a second tap): said on the bank page. */
  const decided = async (reply: FastifyReply, v: View, error: unknown) => {
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    return show(reply, v, 409, { kind: 'error', text: v.t('bank.already_decided') });
  };

  app.post<{ Params: { id: string }; Body: Form }>(
    '/bank/credits/:id/apply',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      const transactionId = request.body.transaction_id;
      const contactId = request.body.contact_id;
      const target = transactionId ?? contactId;
      if ((transactionId === undefined) === (contactId === undefined) || !isUuid(target ?? '')) {
        return show(reply, v, 400, { kind: 'error', text: v.t('bank.choose_target') });
      }
      try {
        await bank.apply(v.business, id, {
          transactionId: transactionId?.toLowerCase(),
          contactId: contactId?.toLowerCase(),
        });
      } catch (error) {
        return decided(reply, v, error);
      }
      return seeOther(reply, '/dashboard/bank?ok=applied');
    },
  );

  app.post<{ Params: { id: string } }>(
    '/bank/credits/:id/ignore',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      try {
        await bank.ignore(v.business, checkId(request.params.id));
      } catch (error) {
        return decided(reply, v, error);
      }
      return seeOther(reply, '/dashboard/bank?ok=ignored');
    },
  );
}
