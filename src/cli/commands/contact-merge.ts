import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** Merges two buyers that are one person: everything of `--merge` moves to `--keep` (contact-merge/service.ts). */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'keep', 'merge']);
    const businessId = required(v, 'business');
    const keep = required(v, 'keep');
    const merge = required(v, 'merge');
    const business = await (await ctx.businesses({ writes: true })).get(businessId);
    const { db } = await ctx.store({ writes: true });
    const [{ ContactMergeService }, { systemClock }] = await Promise.all([
      import('../../contact-merge/service.js'),
      import('../../lib/clock.js'),
    ]);
    const result = await new ContactMergeService({ db, clock: systemClock }).merge(business, keep, merge);
    const m = result.moved;
    return {
      json: {
        merged: {
          contact_id: result.contact.id,
          merged_contact_id: result.merged_contact_id,
          balance_paise: Number(result.contact.balance_paise),
          moved: m,
        },
      },
      text: `merged contact ${merge} into ${keep}: moved ${m.dues} due(s), ${m.receipts} receipt(s), ${m.claims} claim(s), ${m.replies} reply(ies), ${m.bank_credits} bank credit(s); balance now ${Number(result.contact.balance_paise)} paise`,
    };
  },
} satisfies CliCommand;
