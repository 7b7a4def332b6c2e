/**
 * Issue 18: what one contact read costs against the contact's paid history. A fresh SQLite store
 * with one contact that has N paid dues (through mark-paid) and 5 open overdue ones; then the mean
 * time of `services.contacts.get` (in process: the statement and the standing, no HTTP) over 2,000
 * reads after 300 of warm-up. Run it under the bench lock:
 *
 *   flock /tmp/bench.lock npx tsx bench/contact-history.ts 1000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';

const paidCount = Number(process.argv[2] ?? 500);
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
const config = loadConfig({ DATA_DIR: dataDir });
const store = openStore(config);
try {
  await migrate(store.db);
  const services = createServices({ store, clock: systemClock, config });
  const { business } = await services.businesses.create({ name: 'History Traders', phone: '+91 90000 00009' });
  const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
  const ids: string[] = [];
  let contactId = '';
  for (let i = 0; i < paidCount + 5; i++) {
    const { transaction } = await services.transactions.create(business, {
      amount_paise: 10_000 + i,
      due_date: day(-2 * i - 1),
      contact_name: 'Long History Buyer',
    });
    ids.push(transaction.id);
    contactId = transaction.contact_id;
  }
  for (const id of ids.slice(5)) await services.transactions.markPaid(business, id, {});
  for (let i = 0; i < 300; i++) await services.contacts.get(business, contactId);
  const started = performance.now();
  for (let i = 0; i < 2000; i++) await services.contacts.get(business, contactId);
  const us = ((performance.now() - started) / 2000) * 1000;
  const { standing } = await services.contacts.get(business, contactId);
  console.log(`${paidCount} paid + 5 open: ${us.toFixed(1)} us per contacts.get (score ${standing.paymentScore})`);
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
