import type { BusinessRow } from '../businesses/repository.js';
import type { HoldReason } from '../reminders/protections.js';
import { businessLocale, formatAmount, formatDueDate } from '../reminders/templates.js';
import { HELP_EXAMPLE } from './parser.js';
import type { ContactBalance } from './repository.js';

/** The texts the owner gets back: one message per command, written the business's way. */
export class Replies {
  private readonly locale: string;
  constructor(private readonly business: Pick<BusinessRow, 'language' | 'country' | 'currency'>) {
    this.locale = businessLocale(business);
  }

  money(paise: number): string {
    return formatAmount(paise, this.business.currency, this.locale);
  }

  date(date: string): string {
    return formatDueDate(date, this.locale);
  }

  balances(title: string, totalPaise: number, count: number, largest: ContactBalance[]): string {
    if (count === 0) return `${title}: nothing. 🎉`;
    const lines = largest.map((b, i) => `${i + 1}. ${b.name}: ${this.money(b.paise)}`);
    return [
      `${title}: ${this.money(totalPaise)} in ${count} ${count === 1 ? 'due' : 'dues'}.`,
      'Largest:',
      ...lines,
    ].join('\n');
  }
}

export function helpText(problem: string | null): string {
  const commands = [
    'Commands:',
    `• add <name> <amount> [date] [note], e.g. ${HELP_EXAMPLE.add}`,
    `• paid <name> [amount], e.g. ${HELP_EXAMPLE.paid} (without an amount: all they owe)`,
    '• dues: what is outstanding, and who owes the most',
    '• overdue: what is past its date, and who owes the most',
    `• remind <name>, e.g. ${HELP_EXAMPLE.remind}`,
    `• statement <name>, e.g. ${HELP_EXAMPLE.statement}: their balance and account link`,
    'Amounts: 1500, 1,500, 1500.50, ₹1500, 15k. Dates: 15/12, 15 Dec, today, tomorrow (kal).',
  ];
  return problem === null ? commands.join('\n') : [`Sorry: ${problem}`, '', ...commands].join('\n');
}

export function candidatesText(name: string, candidates: { name: string }[], more: boolean, retry: string): string {
  const list = candidates.map((c) => `• ${c.name}`).join('\n');
  return `"${name}" could mean:\n${list}${more ? '\n• …and more' : ''}\nNothing was changed. ${retry}`;
}

const HOLD_TEXT: Record<HoldReason, string> = {
  opted_out: 'they replied STOP to reminders',
  no_phone: 'they have no phone number',
  paused: 'reminders are paused',
  too_soon: 'they got a reminder in the last 24 hours',
  max_reached: 'they already got 3 reminders this week',
  quiet_hours: 'it is outside 09:00-21:00',
};

export function holdText(reason: HoldReason): string {
  return HOLD_TEXT[reason];
}
