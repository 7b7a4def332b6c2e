import { Data, errorResponses, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { Summary } from './schema.js';

export async function summaryRoutes(app: App) {
  app.get(
    '/summary',
    {
      schema: {
        tags: ['Summary'],
        summary: 'Totals of dues by state, and the contact count',
        description:
          'overdue counts stored-overdue dues and pending dues whose due date is before today in the business time zone; outstanding = pending + overdue.',
        response: { 200: Data(ref(Summary)), ...errorResponses() },
      },
    },
    async (request) => {
      const { business } = request.auth;
      const t = await app.deps.services.summary.get(business);
      return {
        data: {
          currency: business.currency,
          overdue: t.overdue,
          pending: t.pending,
          paid: t.paid,
          paid_this_month_paise: t.paidThisMonthPaise,
          total_outstanding_paise: t.pending.paise + t.overdue.paise,
          contact_count: t.contactCount,
        },
      };
    },
  );
}
