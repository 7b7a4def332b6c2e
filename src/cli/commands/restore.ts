import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/**
 * SQLite: puts a backup in place of the store (the server and workers stopped; refused while the
 * store is in use). Opens no store itself: its own connection would hold the store.
 */
export default {
  async run(v, ctx) {
    allowOnly(v, ['from']);
    const from = required(v, 'from');
    const config = await ctx.config();
    if (config.databaseUrl) {
      throw new Error(
        'the store is PostgreSQL: restore a pg_dump backup with pg_restore, e.g. pg_restore --no-owner --dbname "$DATABASE_URL" receivables.dump (see docs/operations.md)',
      );
    }
    const { restoreSqliteStore } = await import('../../db/restore.js');
    const result = await restoreSqliteStore(config.dataDir, from, new Date());
    return {
      json: { restored: result },
      text: [
        `restored ${from} into ${result.file} (schema ${result.schema ?? 'unknown'}; the server applies newer migrations at its start)`,
        result.replaced ? `the store it replaced is kept as ${result.replaced}` : '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    };
  },
} satisfies CliCommand;
