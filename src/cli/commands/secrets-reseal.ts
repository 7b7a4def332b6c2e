import { allowOnly } from '../args.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, []);
    const services = await ctx.services({ writes: true });
    const { resealed, databaseKeyRemoved } = await services.webhooks.resealSecrets();
    return {
      json: { resealed, database_key_removed: databaseKeyRemoved },
      text: `re-sealed ${resealed} webhook secret(s) with the current key${databaseKeyRemoved ? '; removed the key kept in the database' : ''}`,
    };
  },
} satisfies CliCommand;
