import { ChannelError } from '../channels/channel.js';
import { errors } from '../errors.js';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { RemindBody, RemindResponse } from './schema.js';

export async function reminderRoutes(app: App) {
  const { reminders } = app.deps.services;
  const { metrics } = app.deps;

  app.post(
    '/transactions/:id/remind',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'remindTransaction',
        tags: ['Transactions'],
        summary: 'Send a payment reminder now',
        description:
          'Sends the reminder through the chat channel unless a protection holds it back; then sent is false and reason names the first that applies, in this order: opted_out, no_phone, paused, too_soon (24 hours per contact), max_reached (3 per contact in 7 days), quiet_hours (outside 09:00-21:00 in the business time zone). The template defaults from the due date. A paid due answers 409; a channel failure answers 422 and records nothing as sent.',
        params: IdParams,
        body: RemindBody,
        response: { 200: RemindResponse, ...errorResponses(404, 409, 422) },
      },
    },
    async (request) => {
      try {
        const result = await reminders.remind(request.auth.business, request.params.id, request.body);
        metrics.reminders.inc({ outcome: result.reason ?? 'sent' });
        return { data: result };
      } catch (error) {
        if (!(error instanceof ChannelError)) throw error;
        metrics.reminders.inc({ outcome: 'channel_error' });
        request.log.warn({ reason: error.message, detail: error.detail }, 'reminder not sent: channel failed');
        throw errors.unprocessable(`the reminder could not be sent: ${error.message}; nothing was recorded as sent`);
      }
    },
  );
}
