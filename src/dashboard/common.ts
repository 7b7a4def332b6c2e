import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { balanceOf, effectiveStatus } from '../transactions/domain.js';
import type { TransactionView } from '../transactions/repository.js';
import { sessionOf } from './http.js';
import type { DueRow } from './pages/dues.js';
import { type View, viewFor } from './pages/view.js';

export type Form = Record<string, string | undefined>;
export const PAGE_SIZE = 20;

export function viewOf(request: FastifyRequest): View {
  const session = sessionOf(request);
  return viewFor(session.business, session.csrfToken, session.user);
}

/** A path id that is not a UUID is answered like another business's id: 404, nothing read. */
export function checkId(id: string): string {
  if (!isUuid(id)) throw errors.notFound('page');
  return id.toLowerCase();
}

export function pageNumber(value: string | undefined): number {
  const n = Number(value ?? '1');
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

export function dueRow(row: TransactionView, today: string): DueRow {
  return {
    id: row.id,
    contact_name: row.contact_name,
    due_date: row.due_date,
    status: effectiveStatus(row, today),
    amount: Number(row.amount_paise),
    balance: balanceOf(row),
    invoice_number: row.invoice_number,
  };
}
