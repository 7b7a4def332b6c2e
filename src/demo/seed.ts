import { randomInt } from 'node:crypto';
import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import type { ManualClock } from '../lib/clock.js';
import { addDays, localDate } from '../lib/dates.js';
import { PayPageService } from '../paypage/service.js';
import type { RateLimitStore } from '../rate-limit/port.js';
import type { Services } from '../services.js';
import { balanceOf } from '../transactions/domain.js';

/**
 * A demo business with four months of believable history, written through the services (the
 * same rules, totals and events as the API), with the clock moved to each moment so that dates
 * read naturally: a dozen buyers, about 60 dues with full and part payments, overdue ones, a
 * promise a buyer made on chat, and an "I have paid" claim waiting for the business.
 *
 * Two buyers also pay into their account (receipts, spread over their oldest dues, the rest kept
 * as credit), and this morning's bank statement arrives: two credits matched to dues by their
 * invoice numbers, one suggested by the payer's name, one nobody's.
 */
export interface DemoSummary {
  business: BusinessRow;
  apiKey: string;
  buyers: number;
  dues: number;
  paid: number;
  partPaid: number;
  overdue: number;
  receipts: number;
  bank: { matched: number; suggested: number; unmatched: number };
  promised: boolean;
  pendingClaims: number;
}

const BUYERS = [
  'Ravi Kumar',
  'Priya Sharma',
  'Amit Patel',
  'Sunita Devi',
  'Rajesh Gupta',
  'Meena Iyer',
  'Arjun Reddy',
  'Kavita Singh',
  'Mohammed Iqbal',
  'Lakshmi Narayanan',
  'Harpreet Kaur',
  'Suresh Yadav',
];
const GOODS = [
  'cotton fabric, 40 m',
  'silk sarees x 6',
  'bedsheets x 20',
  'school uniforms',
  'curtain cloth',
  'dupattas x 15',
];
const METHODS = ['upi', 'cash', 'bank_transfer'] as const;
const DUES = 60;
const DAYS = 120;

/** A fixed sequence (the same demo every time), apart from the phone numbers. */
function sequence(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An Indian mobile number nobody else in the demo has (+91, 10 digits starting 9, 8 or 7). */
function phone(): string {
  return `+91 ${randomInt(7, 10)}${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`;
}

/** 10:00-17:59 India time on `date` (YYYY-MM-DD) as an instant. */
function businessHours(date: string, random: () => number): Date {
  const minutes = 10 * 60 + Math.floor(random() * 8 * 60);
  return new Date(Date.parse(`${date}T00:00:00+05:30`) + minutes * 60_000);
}

type Step = { at: Date; run: () => Promise<void> };

export async function seedDemo(deps: {
  services: Services;
  db: Db;
  clock: ManualClock;
  rateLimits: RateLimitStore;
  now: Date;
}): Promise<DemoSummary> {
  const { services, clock, now } = deps;
  const random = sequence(20261127);
  const today = localDate('Asia/Kolkata', now);
  const start = addDays(today, -DAYS);
  clock.set(businessHours(start, random));
  const { business, apiKey } = await services.businesses.create({
    name: 'Sharma Textiles (demo)',
    phone: phone(),
    plan: 'business',
  });
  const buyers = BUYERS.map((name) => ({ name, phone: phone() }));

  // Every due and payment is a step at its own moment; the steps run in time order.
  const steps: Step[] = [];
  const open: { id: string; buyer: (typeof buyers)[number]; payToken: string; dueDate: string }[] = [];
  const contactIds = new Map<string, string>();
  for (let i = 0; i < DUES; i++) {
    const created = addDays(start, Math.floor((i * DAYS) / DUES) + 1);
    const dueDate = addDays(created, [7, 15, 30][Math.floor(random() * 3)] as number);
    const buyer = buyers[(i * 7 + Math.floor(random() * 3)) % buyers.length] as (typeof buyers)[number];
    const amountPaise = (50 + Math.floor(random() * 550)) * 100 * 100;
    const goods = GOODS[Math.floor(random() * GOODS.length)] as string;
    const roll = random();
    const past = dueDate < addDays(today, -3);
    const outcome = past ? (roll < 0.5 ? 'paid' : roll < 0.75 ? 'part' : 'unpaid') : roll < 0.2 ? 'part' : 'unpaid';
    const payDay = addDays(created, Math.max(1, Math.floor(random() * 30)));
    const payAt = businessHours(payDay < today ? payDay : addDays(today, -1), random);
    const method = METHODS[Math.floor(random() * METHODS.length)] as (typeof METHODS)[number];
    const utr = method === 'cash' ? undefined : `UTR${String(Math.floor(random() * 1e12)).padStart(12, '0')}`;
    const part = Math.round((0.3 + random() * 0.4) * (amountPaise / 100)) * 100;
    let id = '';
    steps.push({
      at: businessHours(created, random),
      run: async () => {
        const { transaction } = await services.transactions.create(business, {
          amount_paise: amountPaise,
          due_date: dueDate,
          contact_name: buyer.name,
          contact_phone: buyer.phone,
          invoice_number: `INV-${created.slice(0, 4)}-${String(i + 1).padStart(4, '0')}`,
          notes: goods,
        });
        id = transaction.id;
        contactIds.set(buyer.name, transaction.contact_id);
        if (outcome !== 'paid') open.push({ id, buyer, payToken: transaction.pay_token, dueDate });
      },
    });
    if (outcome === 'paid') {
      steps.push({
        at: payAt,
        run: async () => {
          await services.transactions.markPaid(business, id, { payment_method: method, ...(utr && { utr }) });
        },
      });
    } else if (outcome === 'part') {
      steps.push({
        at: payAt,
        run: async () => {
          await services.transactions.recordPayment(business, id, {
            amountPaise: part,
            paymentMethod: method,
            utr: utr ?? null,
            source: 'api',
          });
        },
      });
    }
  }
  // Money into two buyers' accounts: a receipt goes to their oldest open dues first.
  let receipts = 0;
  for (const [daysAgo, buyer, rupees] of [
    [12, buyers[1], 25_000],
    [5, buyers[4], 40_000],
  ] as const) {
    steps.push({
      at: businessHours(addDays(today, -daysAgo), random),
      run: async () => {
        const contactId = buyer && contactIds.get(buyer.name);
        if (!contactId) return;
        await services.receipts.record(
          business,
          contactId,
          {
            amountPaise: rupees * 100,
            utr: `UTR${String(Math.floor(random() * 1e12)).padStart(12, '0')}`,
            paymentMethod: 'bank_transfer',
            source: 'api',
          },
          { idempotencyKey: undefined, respond: () => ({ status: 201, body: null }) },
        );
        receipts++;
      },
    });
  }

  // Strictly later than the step before: a payment never lands before its due was created.
  steps.sort((a, b) => a.at.getTime() - b.at.getTime());
  let last = 0;
  for (const step of steps) {
    last = Math.max(step.at.getTime(), last + 60_000);
    clock.set(new Date(last));
    await step.run();
  }

  // Yesterday morning: a reminder to the buyer of the oldest overdue due, who answers on chat
  // with a date; the answer goes through the inbound chat path and becomes a promise.
  const yesterday = addDays(today, -1);
  const overdue = open.filter((d) => d.dueDate < yesterday).sort((a, b) => (a.dueDate < b.dueDate ? -1 : 1));
  let promised = false;
  const promiser = overdue[0];
  if (promiser) {
    clock.set(new Date(Math.max(Date.parse(`${yesterday}T11:00:00+05:30`), last + 60_000)));
    await services.reminders.remind(business, promiser.id, {});
    clock.set(new Date(clock.now().getTime() + 20 * 60_000));
    const replyFrom = (await services.transactions.get(business, promiser.id)).contact_phone ?? '';
    await services.chatInbound.handle({
      messages: [{ id: `demo.${business.id}.promise`, from: replyFrom, text: 'Bhai, 5 din mein pakka de dunga' }],
      statuses: [],
    });
    promised = (await services.transactions.get(business, promiser.id)).promise_date !== null;
  }

  const claimant = overdue.find((d) => d.buyer !== promiser?.buyer) ?? open[0];

  // This morning's bank statement (SBI's export): credits for two dues naming their invoice
  // numbers, a transfer from a buyer that names no due, and one from nobody the business knows.
  clock.set(new Date(Math.max(Date.parse(`${today}T09:00:00+05:30`), clock.now().getTime() + 60_000)));
  if (clock.now() > now) clock.set(now);
  const others = open.filter((d) => d.id !== promiser?.id && d.id !== claimant?.id);
  const credits: { narration: string; paise: number }[] = [];
  for (const [i, d] of others.slice(-2).entries()) {
    const due = await services.transactions.get(business, d.id);
    const balance = balanceOf(due);
    if (balance === 0 || !due.invoice_number) continue;
    const paise = i === 0 ? balance : Math.round(balance / 200) * 100;
    const upi = `${d.buyer.name.toLowerCase().replace(/\s+/g, '.')}@okicici`;
    credits.push({
      narration: `BY TRANSFER-UPI/CR/${630500000000 + i}/${d.buyer.name.toUpperCase()}/ICIC/${upi}/${due.invoice_number}`,
      paise,
    });
  }
  const named = buyers[9] as (typeof buyers)[number];
  credits.push({
    narration: `BY TRANSFER-NEFT*HDFC0000123*N3072612345678*${named.name.toUpperCase()}`,
    paise: 1_500_000,
  });
  credits.push({ narration: 'BY TRANSFER-IMPS/P2A/630599990001/DEEPAK TRADERS', paise: 99_900 });
  const bank = await services.bank.upload(business, sbiStatement(yesterday, credits));

  // Then another buyer says on the pay page that they have paid.
  let pendingClaims = 0;
  if (claimant) {
    clock.set(new Date(Math.max(Date.parse(`${today}T09:30:00+05:30`), clock.now().getTime() + 60_000)));
    if (clock.now() > now) clock.set(now);
    const payPage = new PayPageService({ db: deps.db, clock, rateLimits: deps.rateLimits });
    const outcome = await payPage.claim(claimant.payToken, { reference: 'UPI ref 4183 2297 1106' });
    if (outcome.kind === 'recorded') pendingClaims = 1;
  }

  // What the business's own reads now say (receipts have settled some dues since the plan).
  const totals = await services.summary.get(business);
  const outstanding = await services.transactions.list(business, { status: 'outstanding', limit: 200 }, {}, today);
  return {
    business,
    apiKey,
    buyers: buyers.length,
    dues: DUES,
    paid: totals.paid.count,
    partPaid: outstanding.rows.filter((d) => Number(d.amount_paid_paise) > 0).length,
    overdue: totals.overdue.count,
    receipts,
    bank: { matched: bank.matched, suggested: bank.suggested, unmatched: bank.unmatched },
    promised,
    pendingClaims,
  };
}

/** A statement as SBI exports it: a header block, then one line per credit, all on `date`. */
function sbiStatement(date: string, credits: { narration: string; paise: number }[]): string {
  const day = new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const rupees = (paise: number) => `"${(paise / 100).toFixed(2)}"`;
  let balance = 45_000_00;
  const lines = [
    'Account Name       :,SHARMA TEXTILES',
    `Date               :,${day}`,
    'Account Number     :,00000031234567890',
    `Balance as on ${day} :,${rupees(balance)}`,
    ',',
    'Txn Date,Value Date,Description,Ref No./Cheque No.,Debit,Credit,Balance',
  ];
  for (const c of credits) {
    balance += c.paise;
    lines.push(`${day},${day},${c.narration},TRANSFER FROM 4897691162095,,${rupees(c.paise)},${rupees(balance)}`);
  }
  lines.push('**This is a computer generated statement and does not require a signature');
  return `${lines.join('\n')}\n`;
}
