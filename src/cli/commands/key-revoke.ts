import { allowOnly, required, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, ['key', 'id']);
    if ((v.key === undefined) === (v.id === undefined)) throw new UsageError('give one of --key or --id');
    const businesses = await ctx.businesses({ writes: true });
    const revoked =
      v.id !== undefined
        ? await businesses.revokeKeyById(required(v, 'id'))
        : await businesses.revokeKey(required(v, 'key'));
    if (!revoked) throw new UsageError(`no active API key matches --${v.id !== undefined ? 'id' : 'key'}`);
    return { json: { revoked: true }, text: 'API key revoked' };
  },
} satisfies CliCommand;
