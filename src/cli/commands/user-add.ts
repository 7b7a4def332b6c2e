import { presentUser } from '../../users/routes.js';
import { allowOnly, required } from '../args.js';
import type { CliCommand } from './types.js';

/** A staff user of the business, who then signs in with a code sent to their own phone. */
export default {
  async run(v, ctx) {
    allowOnly(v, ['business', 'name', 'phone', 'role']);
    const { users } = await ctx.services({ writes: true });
    const user = presentUser(
      await users.add(required(v, 'business'), {
        name: required(v, 'name'),
        phone: required(v, 'phone'),
        role: required(v, 'role'),
      }),
    );
    return { json: { user }, text: `user ${user.id}: ${user.name} (${user.role}), ${user.phone}` };
  },
} satisfies CliCommand;
