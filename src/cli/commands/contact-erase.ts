import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** Removes a buyer's personal data; the money records and totals stay exact. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'contact']);
    const businessId = required(v, 'business');
    const contactId = required(v, 'contact');
    await (await ctx.businesses({ writes: true })).get(businessId);
    const { db } = await ctx.store({ writes: true });
    const [{ eraseContact }, { systemClock }] = await Promise.all([
      import('../../contacts/erase.js'),
      import('../../lib/clock.js'),
    ]);
    const result = await eraseContact({ db, clock: systemClock }, businessId, contactId);
    return {
      json: { erased: result },
      text: `erased contact ${contactId}: now "Erased buyer", phone removed; redacted ${result.events} event(s), ${result.deliveries} webhook delivery(ies), ${result.replays} stored replay(s); deleted ${result.replies} reply(ies); cleared ${result.claims} claim reference(s), ${result.messages} message phone(s)`,
    };
  },
} satisfies CliCommand;
