import { Data, errorResponses, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentSummary } from './presenter.js';
import { Aging, Summary } from './schema.js';

export async function summaryRoutes(app: App) {
  app.get(
    '/summary',
    {
      schema: {
        operationId: 'getSummary',
        tags: ['Summary'],
        summary: 'Totals of dues by state, and the contact count',
        description:
          'overdue counts stored-overdue dues and pending dues whose due date is before today in the business time zone; outstanding = pending + overdue. pending, overdue and outstanding sum balances (amount less payments); paid sums the amounts of paid dues; paid_this_month_paise sums the payments received this month (part payments included).',
        response: { 200: Data(ref(Summary)), ...errorResponses() },
      },
    },
    async (request) => {
      const { business } = request.auth;
      return { data: presentSummary(await app.deps.services.summary.get(business), business.currency) };
    },
  );

  app.get(
    '/aging',
    {
      schema: {
        operationId: 'getAging',
        tags: ['Summary'],
        summary: 'Open balances by days past due',
        description:
          'Balances (amount less payments) of open dues, by days past the due date in the business time zone: current (not yet past due), 1-30, 31-60, 61-90, more than 90. Read from running totals: as cheap at a million dues as at a thousand.',
        response: { 200: Data(ref(Aging)), ...errorResponses() },
      },
    },
    async (request) => ({ data: await app.deps.services.summary.aging(request.auth.business) }),
  );
}
