/**
 * Examples for the main operations of the OpenAPI document, by operationId: the request body
 * and the JSON answer of a status. A test validates each against its operation's schema
 * (test/openapi-document.test.ts), so they stay true as the schemas change.
 */

const due = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  contact_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  contact_name: 'Ravi Traders',
  contact_phone: '919876543210',
  amount_paise: 125_000,
  currency: 'INR',
  status: 'pending',
  direction: 'receivable',
  due_date: '2026-12-15T00:00:00.000Z',
  paid_at: null,
  utr: null,
  payment_method: null,
  invoice_number: 'INV-101',
  notes: 'Cement, 10 bags',
  recurrence: null,
  series_id: null,
  reminders_paused: false,
  promise: null,
  amount_paid_paise: 0,
  amount_adjusted_paise: 0,
  balance_paise: 125_000,
  deleted_at: null,
  reminder_count: 0,
  pay_page_url: 'https://pay.example.com/pay/01J9ZK2Q4M8X3V7B5N6C1D0E2F',
  payment_reference: 'R7KQ2M4X',
  created_at: '2026-11-20T06:30:00.000Z',
  updated_at: '2026-11-20T06:30:00.000Z',
};

const contact = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  name: 'Ravi Traders',
  phone: '919876543210',
  risk_flag: 'low',
  created_at: '2026-11-20T06:30:00.000Z',
  updated_at: '2026-11-20T06:30:00.000Z',
  credit_paise: 0,
  balance_paise: 0,
  account_url: 'https://pay.example.com/a/01J9ZK2Q4M8X3V7B5N6C1D0E2G',
  payment_reference: 'R7KQ2M4X',
  language: null,
  assigned_to: null,
};

const endpoint = {
  id: '3b241101-e2bb-4255-8caf-4136c566a962',
  url: 'https://erp.example.com/hooks/receivables',
  events: ['transaction.created', 'transaction.paid'],
  active: true,
  created_at: '2026-11-20T06:30:00.000Z',
};

export interface OperationExamples {
  request?: unknown;
  responses?: Record<string, unknown>;
}

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  createTransaction: {
    request: {
      contact_name: 'Ravi Traders',
      contact_phone: '98765 43210',
      amount_paise: 125_000,
      due_date: '2026-12-15',
      invoice_number: 'INV-101',
      notes: 'Cement, 10 bags',
    },
    responses: { '201': { data: due, contact_created: true } },
  },
  listTransactions: {
    responses: { '200': { data: [due], total: 1, limit: 50, offset: 0, hasMore: false } },
  },
  getTransaction: {
    responses: {
      '200': {
        data: {
          ...due,
          reminders: [
            {
              template: 'due_today',
              scheduled_for: '2026-12-15T04:30:00.000Z',
              status: 'scheduled',
              reason: null,
              delivery: null,
            },
          ],
        },
      },
    },
  },
  createContact: {
    request: { name: 'Ravi Traders', phone: '98765 43210' },
    responses: { '201': { data: contact, created: true } },
  },
  getSummary: {
    responses: {
      '200': {
        data: {
          currency: 'INR',
          overdue: { count: 2, paise: 310_000 },
          pending: { count: 5, paise: 725_000 },
          paid: { count: 12, paise: 1_840_000 },
          paid_this_month_paise: 420_000,
          total_outstanding_paise: 1_035_000,
          contact_count: 9,
          credit_paise: 0,
        },
      },
    },
  },
  createWebhook: {
    request: { url: endpoint.url, events: endpoint.events },
    responses: { '201': { data: { ...endpoint, secret: 'a3f1'.repeat(16) } } },
  },
  listWebhooks: {
    responses: {
      '200': {
        data: [{ ...endpoint, last_triggered_at: null, failure_count: 0, disabled_reason: null }],
        events: ['transaction.created', 'transaction.updated', 'transaction.paid'],
      },
    },
  },
};
