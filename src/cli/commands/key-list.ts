import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** Reads only: no migration run, no services beyond the businesses'. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business']);
    const id = required(v, 'business');
    const businesses = await ctx.businesses({ writes: false });
    await businesses.get(id);
    const keys = await businesses.listKeys(id);
    const lines = keys.map(
      (k) =>
        `${k.id}  ${k.prefix}…  ${k.source.padEnd(9)}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`,
    );
    return { json: { keys }, text: lines.length > 0 ? lines.join('\n') : 'no keys' };
  },
} satisfies CliCommand;
