import { expect } from 'vitest';
import type { TestBusiness } from './harness.js';

/** An audit entry as `GET /v1/audit-log` answers it (PRODUCT part 23). */
export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: string; id: string | null; name: string | null };
  action: string;
  entity: string;
  entity_id: string;
  changes: Record<string, [unknown, unknown]>;
  request_id: string | null;
}

/** A page of the business's audit log, newest first (`query` starts with `?`); anything but a 200 fails the test. */
export async function auditPage(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/audit-log${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: AuditEntry[]; limit: number; hasMore: boolean };
}

/** The entries of that page. */
export async function auditLog(biz: TestBusiness, query = ''): Promise<AuditEntry[]> {
  return (await auditPage(biz, query)).data;
}

/** What a new business's log begins with, newest first: its first API key, then its owner (by the system). */
export const OPENING_ACTIONS = ['api_key.created', 'user.added'] as const;
