import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, Kysely } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Database } from '../schema.js';
import { migrate } from '../store.js';
import { openSqlite } from './open.js';

/**
 * For query-plan tests (SQLite plans without statistics, so which index a query lands on is
 * checked): a migrated throw-away store, made before the describe's tests and removed after, that
 * records every statement run on it. `plansOf` gives the plan of each statement `run` makes,
 * `planOf` the plan of the one statement it must make.
 */
export function planStore(prefix: string, seed?: (db: Kysely<Database>) => Promise<void>) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const ran: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: openSqlite(dir).dialect,
    log: (event) => {
      ran.push(event.query);
    },
  });
  beforeAll(async () => {
    await migrate(db);
    await seed?.(db);
  });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function plansOf(run: () => Promise<unknown>): Promise<string[]> {
    ran.length = 0;
    await run();
    const plans: string[] = [];
    for (const query of [...ran]) {
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      plans.push(plan.rows.map((r) => r.detail).join(' | '));
    }
    return plans;
  }

  async function planOf(run: () => Promise<unknown>): Promise<string> {
    const plans = await plansOf(run);
    expect(plans).toHaveLength(1);
    return plans[0] as string;
  }

  return { db, planOf, plansOf };
}
