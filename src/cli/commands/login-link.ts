import { createLoginLink } from '../../dashboard/auth.js';
import { systemClock } from '../../lib/clock.js';
import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** A one-time link into the business's dashboard for one of its users (default: the owner). */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'user']);
    const { db } = await ctx.store({ writes: true });
    const url = await createLoginLink(
      { db, clock: systemClock, publicBaseUrl: await ctx.publicBaseUrl() },
      required(v, 'business'),
      v.user,
    );
    return { json: { url }, text: `dashboard sign-in link (15 minutes, one use): ${url}` };
  },
} satisfies CliCommand;
