import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** Removes a staff user: their sessions end, their buyers are unassigned. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'user']);
    const { users } = await ctx.services({ writes: true });
    const user = await users.remove(required(v, 'business'), required(v, 'user'));
    return { json: { removed: true }, text: `removed ${user.name} (${user.role}); their sessions are ended` };
  },
} satisfies CliCommand;
