import type { BusinessRow } from '../businesses/repository.js';
import { type MessageKey, type Translate, translator } from '../i18n/index.js';
import { refusalText } from '../i18n/refusal.js';
import type { HoldReason } from '../reminders/protections.js';
import { businessLocale, formatAmount, formatDueDate } from '../reminders/templates.js';
import type { Problem } from './parser.js';
import type { ContactBalance } from './repository.js';

/**
 * The texts the owner gets back: one message per command, in the business's language (the
 * catalogue's `chat.*` phrases), with amounts and dates written the business's way.
 */
export class Replies {
  private readonly locale: string;
  readonly t: Translate;
  constructor(private readonly business: Pick<BusinessRow, 'language' | 'country' | 'currency'>) {
    this.locale = businessLocale(business);
    this.t = translator(business.language);
  }

  money(paise: number): string {
    return formatAmount(paise, this.business.currency, this.locale);
  }

  date(date: string): string {
    return formatDueDate(date, this.locale);
  }

  balances(kind: 'dues' | 'overdue', totalPaise: number, count: number, largest: ContactBalance[]): string {
    const title = this.t(kind === 'overdue' ? 'chat.overdue' : 'chat.outstanding');
    if (count === 0) return this.t('chat.balances_none', { title });
    const lines = largest.map((b, i) => `${i + 1}. ${b.name}: ${this.money(b.paise)}`);
    return [
      this.t(count === 1 ? 'chat.balances_one' : 'chat.balances', { title, amount: this.money(totalPaise), count }),
      this.t('chat.largest'),
      ...lines,
    ].join('\n');
  }

  /** The list of commands, each with an example in the business's language, after what was wrong. */
  help(problem: Problem | null): string {
    const t = this.t;
    const examples = {
      add_example: t('chat.example.add'),
      paid_example: t('chat.example.paid'),
      remind_example: t('chat.example.remind'),
      statement_example: t('chat.example.statement'),
    };
    const commands = [
      t('chat.help.title'),
      t('chat.help.add', examples),
      t('chat.help.paid', examples),
      t('chat.help.dues'),
      t('chat.help.overdue'),
      t('chat.help.remind', examples),
      t('chat.help.statement', examples),
      t('chat.help.formats'),
    ];
    if (problem === null) return commands.join('\n');
    const said = t(problem.key, { ...examples, ...problem.params });
    return [t('chat.sorry', { problem: said }), '', ...commands].join('\n');
  }

  candidates(name: string, candidates: { name: string }[], more: boolean, retry: string): string {
    const list = candidates.map((c) => `• ${c.name}`).join('\n');
    const tail = more ? `\n• ${this.t('chat.more_candidates')}` : '';
    return `${this.t('chat.candidates', { name })}\n${list}${tail}\n${this.t('chat.nothing_changed')} ${retry}`;
  }

  /** A service's refusal (a name too short, a paid due), said in the business's language. */
  refused(refusal: { code?: string; field?: string | undefined; message: string }): string {
    const reason = refusalText(this.t, refusal);
    return this.t('chat.refused', { reason });
  }

  hold(reason: HoldReason): string {
    return this.t(`chat.hold.${reason}` satisfies MessageKey);
  }
}
