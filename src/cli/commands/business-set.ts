import { presentBusinessForOperator } from '../../businesses/presenter.js';
import { allowOnly, required, UsageError } from '../args.js';
import type { CliCommand } from './types.js';

export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'plan', 'plan-expires-at', 'reminders-paused', 'reminder-steps', 'upi-id']);
    const id = required(v, 'business');
    const paused = v['reminders-paused'];
    if (paused !== undefined && paused !== 'true' && paused !== 'false') {
      throw new UsageError('--reminders-paused must be true or false');
    }
    if (
      v.plan === undefined &&
      v['plan-expires-at'] === undefined &&
      paused === undefined &&
      v['reminder-steps'] === undefined &&
      v['upi-id'] === undefined
    ) {
      throw new UsageError(
        'business set needs at least one of --plan, --plan-expires-at, --reminders-paused, --reminder-steps, --upi-id',
      );
    }
    const businesses = await ctx.businesses({ writes: true });
    const business = await businesses.update(id, {
      ...(v.plan !== undefined && { plan: v.plan }),
      ...(v['plan-expires-at'] !== undefined && { planExpiresAt: v['plan-expires-at'] }),
      ...(paused !== undefined && { remindersPaused: paused === 'true' }),
      ...(v['reminder-steps'] !== undefined && { reminderSteps: v['reminder-steps'] }),
      ...(v['upi-id'] !== undefined && { upiId: v['upi-id'] === '' ? null : v['upi-id'] }),
    });
    return {
      json: { business: presentBusinessForOperator(business) },
      text: `updated business ${business.id}`,
    };
  },
} satisfies CliCommand;
