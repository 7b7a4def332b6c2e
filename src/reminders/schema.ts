import { type Static, Type } from 'typebox';
import { HOLD_REASONS, type HoldReason } from './protections.js';
import { REMINDER_TEMPLATES, type ReminderTemplate } from './templates.js';

export const RemindBody = Type.Object(
  {
    template: Type.Optional(
      Type.Unsafe<ReminderTemplate>({
        type: 'string',
        enum: [...REMINDER_TEMPLATES],
        description: 'chosen from the due date when omitted',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RemindInput = Static<typeof RemindBody>;

export const RemindResponse = Type.Object({
  data: Type.Object({
    sent: Type.Boolean(),
    reason: Type.Unsafe<HoldReason | null>({
      type: ['string', 'null'],
      enum: [...HOLD_REASONS, null],
      description: 'the first protection that held the reminder back, in the order listed; null when sent',
    }),
    template: Type.Unsafe<ReminderTemplate>({ type: 'string', enum: [...REMINDER_TEMPLATES] }),
  }),
});
