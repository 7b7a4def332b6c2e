import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** PostgreSQL keeps no file of its own to copy: pg_dump is its backup. */
export const PG_DUMP_HINT =
  'the store is PostgreSQL: back it up with pg_dump, e.g. pg_dump --format=custom --file receivables.dump "$DATABASE_URL" (see docs/operations.md)';

/** SQLite: the store's online backup into --out while the server keeps serving and writing. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['out']);
    const out = required(v, 'out');
    if ((await ctx.config()).databaseUrl) throw new Error(PG_DUMP_HINT);
    const store = await ctx.store({ writes: false });
    if (!store.backup) throw new Error(PG_DUMP_HINT);
    const result = await store.backup(out);
    return { json: { backup: result }, text: `backup written to ${result.file} (${result.bytes} bytes)` };
  },
} satisfies CliCommand;
