import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStore, type Store } from '../src/db/store.js';
import { ManualClock } from '../src/lib/clock.js';
import { addDays, instantAt, localParts } from '../src/lib/dates.js';
import { createServices } from '../src/services.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { createTestDatabase, STORE, TEST_ENCRYPTION_KEY } from './helpers/harness.js';

/**
 * PRODUCT parts 1 and 13: several worker processes on one PostgreSQL database never send one
 * reminder (one step of a due's sequence) twice, and a step whose next step has come is skipped. Two real `src/worker.ts` processes (system clock, WhatsApp channel pointed at a local
 * fake Graph API) share the file's private database.
 */
const REPO = path.resolve(import.meta.dirname, '..');
const DUES = 40;

/** A fixed-offset zone where it is mid-afternoon now: reminders at 10:00 today are due, quiet hours far. */
function afternoonZone(now: Date): string {
  for (let offset = -12; offset <= 14; offset++) {
    const zone = offset <= 0 ? `Etc/GMT+${-offset}` : `Etc/GMT-${offset}`;
    if (localParts(zone, now).hour === 14) return zone;
  }
  throw new Error('no zone at 14:00');
}

describe.skipIf(STORE !== 'postgres')('reminder scheduler across processes (PostgreSQL)', () => {
  let dbUrl: string;
  let store: Store;
  let graph: FakeGraphApi;
  let graphBase: string;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    dbUrl = await createTestDatabase();
    store = openStore({ databaseUrl: dbUrl, dataDir: '', pgPoolMax: 3 });
    graph = new FakeGraphApi();
    graph.delayMs = 25;
    graphBase = `${await graph.start()}/v21.0`;
  });

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.exitCode === null && worker.signalCode === null && worker.pid !== undefined) {
        worker.kill('SIGTERM');
        await once(worker, 'exit');
      }
    }
    await store?.close();
    await graph?.close();
  });

  it('two worker processes send each due step exactly once, skipping steps overtaken', {
    timeout: 150_000,
  }, async () => {
    const now = new Date();
    const zone = afternoonZone(now);
    const today = localParts(zone, now).date;
    // The dues are created "at 09:00 yesterday" with a two-step sequence, yesterday and today at
    // 10:00: both steps have come due, and only today's may go (yesterday's is overtaken).
    const clock = new ManualClock(instantAt(zone, addDays(today, -1), 9, 0));
    const services = createServices({
      store,
      clock,
      config: loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.test' }),
    });
    const { business } = await services.businesses.create({
      name: 'Multi Worker Traders',
      phone: '+91 99999 00001',
      timezone: zone,
      reminderSteps: '-1,0',
    });
    const dues = [];
    for (let i = 0; i < DUES; i++) {
      const { transaction } = await services.transactions.create(business, {
        amount_paise: 1000 + i,
        due_date: today,
        contact_name: `Buyer ${i}`,
        contact_phone: `+91 98${String(100_000_000 + i).slice(1)}`,
      });
      dues.push(transaction);
    }
    // Two dues of one contact: the cooldown must hold across the processes (one sent, one moved).
    for (const n of [1, 2]) {
      await services.transactions.create(business, {
        amount_paise: 500 * n,
        due_date: today,
        contact_name: 'Shared Buyer',
        contact_phone: '+91 97000 00000',
      });
    }
    const scheduled = await store.db.selectFrom('reminders').select('id').where('status', '=', 'scheduled').execute();
    expect(scheduled).toHaveLength(2 * (DUES + 2));

    const env = {
      ...process.env,
      DATABASE_URL: dbUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: 'worker-test-app-secret',
      WHATSAPP_API_BASE: graphBase,
      WHATSAPP_PHONE_NUMBER_ID: '109876543210',
      WHATSAPP_TOKEN: 'worker-test-token',
      LOG_LEVEL: 'info',
    };
    const ready: Promise<void>[] = [];
    for (let i = 0; i < 2; i++) {
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        cwd: REPO,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      worker.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[worker ${i}] ${chunk}`));
      ready.push(
        new Promise((resolve, reject) => {
          worker.stdout?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('worker running')) resolve();
          });
          worker.on('exit', (code) => reject(new Error(`worker ${i} exited with ${code}`)));
        }),
      );
      workers.push(worker);
    }
    // Starting tsx on a busy machine can take a while; the sending itself takes a few seconds.
    await Promise.all(ready);

    const deadline = Date.now() + 30_000;
    let settled = false;
    while (Date.now() < deadline) {
      const rows = await store.db.selectFrom('reminders').select('status').execute();
      const sent = rows.filter((r) => r.status === 'sent').length;
      const waiting = rows.filter((r) => r.status === 'scheduled' || r.status === 'sending').length;
      const skipped = rows.filter((r) => r.status === 'cancelled').length;
      if (sent === DUES + 1 && waiting === 1 && skipped === DUES + 2) {
        settled = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(settled, 'the workers did not send every reminder in time').toBe(true);
    // Stop both workers (SIGTERM: each finishes what it holds, then exits): a duplicate, if there
    // were one, has been sent by the time both have exited, and nothing can be sent after.
    await Promise.all(
      workers.map(async (worker) => {
        const exited = once(worker, 'exit');
        worker.kill('SIGTERM');
        await exited;
      }),
    );

    const recipients = graph.requests.map((r) => r.body.to as string);
    expect(recipients).toHaveLength(DUES + 1);
    expect(new Set(recipients).size).toBe(DUES + 1);
    for (const request of graph.requests) {
      expect(request.headers.authorization).toBe('Bearer worker-test-token');
      expect(request.body.template.name).toBe('reminder_due_today');
    }
    const counts = await store.db
      .selectFrom('transactions')
      .select(['reminder_count'])
      .where('business_id', '=', business.id)
      .execute();
    expect(counts.reduce((sum, r) => sum + r.reminder_count, 0)).toBe(DUES + 1);
    expect(Math.max(...counts.map((r) => r.reminder_count))).toBe(1);
    const events = await store.db.selectFrom('events').select('id').where('type', '=', 'reminder.sent').execute();
    expect(events).toHaveLength(DUES + 1);
    const held = await store.db
      .selectFrom('reminders')
      .select(['reason', 'scheduled_for'])
      .where('status', '=', 'scheduled')
      .executeTakeFirstOrThrow();
    expect(held.reason).toBe('too_soon');
    expect(Date.parse(held.scheduled_for)).toBeGreaterThan(now.getTime() + 23 * 60 * 60 * 1000);
    expect(dues).toHaveLength(DUES);
  });
});
