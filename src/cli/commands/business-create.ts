import { presentBusinessForOperator } from '../../businesses/presenter.js';
import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, ['name', 'phone', 'plan', 'currency', 'country', 'language', 'timezone']);
    const businesses = await ctx.businesses({ writes: true });
    const { business, apiKey } = await businesses.create({
      name: required(v, 'name'),
      phone: required(v, 'phone'),
      ...(v.plan !== undefined && { plan: v.plan }),
      ...(v.currency !== undefined && { currency: v.currency }),
      ...(v.country !== undefined && { country: v.country }),
      ...(v.language !== undefined && { language: v.language }),
      ...(v.timezone !== undefined && { timezone: v.timezone }),
    });
    return {
      json: { business: presentBusinessForOperator(business), api_key: apiKey },
      text: `created business ${business.name} (${business.id}), plan ${business.plan}\nAPI key (shown once): ${apiKey}`,
    };
  },
} satisfies CliCommand;
