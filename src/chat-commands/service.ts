import { runAs } from '../audit/context.js';
import type { BusinessRow } from '../businesses/repository.js';
import { ChannelError } from '../channels/channel.js';
import { accountUrl } from '../contacts/presenter.js';
import type { ContactRow } from '../contacts/repository.js';
import type { Db, Role } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { IdempotencyKey, IdempotencyStore } from '../idempotency/store.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { sha256Hex } from '../lib/ids.js';
import type { ReminderService } from '../reminders/service.js';
import type { SummaryService } from '../summary/service.js';
import { payPageUrl } from '../transactions/presenter.js';
import type { TransactionService } from '../transactions/service.js';
import { type Action, isScoped, may } from '../users/permissions.js';
import { type ChatCommand, parseChatCommand } from './parser.js';
import { applyChatPayment } from './payment.js';
import { Replies } from './replies.js';
import { contactsNamed, largestBalances, MAX_CANDIDATES, openDuesOldestFirst } from './repository.js';

/** How many balances `dues` and `overdue` list. */
const LARGEST = 5;

/** One message from the business's registered phone: its channel id and text. */
export interface OwnerMessage {
  id: string;
  text: string;
}

/** Who sent the command: the owner or a staff user, acting within their role. */
export interface ChatUser {
  id: string;
  role: Role;
  /** the user's name, for the audit log (absent: none) */
  name?: string | undefined;
}

/** What each command takes (users/permissions.ts); `help` takes nothing. */
export const CHAT_ACTIONS: Record<ChatCommand['kind'], Action | null> = {
  add: 'dues.create',
  paid: 'payments.record',
  dues: 'summary.read',
  overdue: 'summary.read',
  remind: 'reminders.send',
  statement: 'contacts.read',
  help: null,
};

/**
 * The business owner's chat commands (PRODUCT part 15). Each command is the call the API makes
 * (transactions create, payments, reminders remind, the summary), so events, totals and
 * protections are the same; the result is one reply text. Domain errors (a name too short, a paid
 * due) become the reply too: the owner is told, nothing half-done is left.
 *
 * A command that writes (add, paid) does it in ONE database transaction with the message id as its
 * Idempotency-Key (idempotency/store.ts) and the reply as the stored response: the write and the
 * mark that it was done commit together, so a redelivered message (Meta retries, a crash before
 * the webhook answered) gets the first reply again and never writes twice.
 */
export class ChatCommandService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      idempotency: IdempotencyStore;
      transactions: TransactionService;
      reminders: ReminderService;
      summary: SummaryService;
      publicBaseUrl: string;
    },
  ) {}

  /** Acts on one message from the business's registered phone and returns the reply. */
  async handle(
    business: BusinessRow,
    message: OwnerMessage,
    user: ChatUser = { id: business.id, role: 'owner' },
  ): Promise<string> {
    const command = parseChatCommand(message.text, localDate(business.timezone, this.deps.clock.now()));
    const key: IdempotencyKey = { operation: 'chat-commands', key: message.id, requestHash: sha256Hex(message.text) };
    const action = CHAT_ACTIONS[command.kind];
    if (action !== null && !may(user.role, action)) {
      return new Replies(business).t('chat.forbidden', { role: user.role });
    }
    try {
      // What the command changes is audited as done over chat by this user (audit/context.ts).
      return await runAs({ type: 'chat', id: user.id, name: user.name ?? null }, () =>
        this.run(business, command, key, user),
      );
    } catch (error) {
      if (error instanceof AppError && error.code !== 'unavailable') return new Replies(business).refused(error);
      throw error;
    }
  }

  private run(business: BusinessRow, command: ChatCommand, key: IdempotencyKey, user: ChatUser): Promise<string> {
    switch (command.kind) {
      case 'add':
        return this.add(business, command, key, user);
      case 'paid':
        return this.paid(business, command, key, user);
      case 'dues':
      case 'overdue':
        return this.balances(business, command.kind);
      case 'remind':
        return this.remind(business, command, user);
      case 'statement':
        return this.statement(business, command, user);
      case 'help':
        return Promise.resolve(new Replies(business).help(command.problem));
    }
  }

  /**
   * The contact a name means, or the reply that asks back (several) or says so (none). A collector
   * finds only the buyers assigned to them: another buyer is "not one of yours", never named.
   */
  private async contact(
    business: BusinessRow,
    name: string,
    retry: string,
    user: ChatUser,
  ): Promise<{ contact: ContactRow } | { reply: string }> {
    const r = new Replies(business);
    const found = await contactsNamed(this.deps.db, business.id, name);
    const mine = (c: ContactRow | null | undefined): c is ContactRow =>
      c != null && (!isScoped(user.role) || c.assigned_to === user.id);
    const exact = mine(found.exact) ? found.exact : undefined;
    const similar = found.similar.filter(mine);
    if (!exact && found.exact) return { reply: r.t('chat.not_yours', { name }) };
    if (exact) return { contact: exact };
    if (similar.length === 1) return { contact: similar[0] as ContactRow };
    if (similar.length === 0) return { reply: r.t('chat.no_contact', { name }) };
    return { reply: r.candidates(name, similar.slice(0, MAX_CANDIDATES), similar.length > MAX_CANDIDATES, retry) };
  }

  private async add(
    business: BusinessRow,
    c: Extract<ChatCommand, { kind: 'add' }>,
    key: IdempotencyKey,
    user: ChatUser,
  ): Promise<string> {
    const r = new Replies(business);
    let name = c.name;
    if (isScoped(user.role)) {
      // A collector adds dues to their own buyers only, never a new contact.
      const found = await this.contact(business, c.name, r.t('chat.retry_full_name'), user);
      if ('reply' in found) return found.reply;
      name = found.contact.name;
    } else if (!c.exactName) {
      // As on create the name is taken exactly; a name that is not anyone's but resembles some
      // contacts' is asked back rather than guessed into a new contact or an existing one.
      const { exact, similar } = await contactsNamed(this.deps.db, business.id, c.name);
      if (exact) name = exact.name;
      else if (similar.length > 0) {
        return r.candidates(
          c.name,
          similar.slice(0, MAX_CANDIDATES),
          similar.length > MAX_CANDIDATES,
          r.t('chat.retry_add', { command: `add "${c.name}" ${r.money(c.amountPaise)}` }),
        );
      }
    }
    const answer = await this.deps.transactions.create(
      business,
      {
        contact_name: name,
        amount_paise: c.amountPaise,
        due_date: c.dueDate,
        ...(c.note !== null && { notes: c.note }),
      },
      {
        idempotencyKey: key,
        respond: ({ transaction, contactCreated }) => ({
          status: 200,
          body: [
            r.t(contactCreated ? 'chat.added_new' : 'chat.added', {
              amount: r.money(Number(transaction.amount_paise)),
              name: transaction.contact_name,
              date: r.date(transaction.due_date),
            }),
            ...(c.note === null ? [] : [r.t('chat.note', { note: c.note })]),
            r.t('chat.pay_link', { url: payPageUrl(this.deps.publicBaseUrl, transaction.pay_token) }),
          ].join('\n'),
        }),
      },
    );
    return answer.body as string;
  }

  private async paid(
    business: BusinessRow,
    c: Extract<ChatCommand, { kind: 'paid' }>,
    key: IdempotencyKey,
    user: ChatUser,
  ): Promise<string> {
    const r = new Replies(business);
    const found = await this.contact(business, c.name, r.t('chat.retry_full_name'), user);
    if ('reply' in found) return found.reply;
    const { contact } = found;
    // The dues are read, paid and the reply stored in one transaction: all of the amount is
    // recorded or none of it, and a redelivered message replays the reply.
    const answer = await this.deps.db.transaction().execute((trx) =>
      this.deps.idempotency.once(
        trx,
        business.id,
        { idempotencyKey: key, respond: (reply: string) => ({ status: 200, body: reply }) },
        async () => {
          const dues = await openDuesOldestFirst(trx, business.id, contact.id);
          const owed = dues.reduce((sum, d) => sum + d.balance_paise, 0);
          if (dues.length === 0) return r.t('chat.owes_nothing', { name: contact.name });
          if (c.amountPaise !== null && c.amountPaise > owed) {
            return r.t('chat.more_than_owed', {
              amount: r.money(c.amountPaise),
              name: contact.name,
              owed: r.money(owed),
            });
          }
          const applied = await applyChatPayment(
            trx,
            this.deps.transactions,
            business,
            contact.id,
            dues,
            c.amountPaise,
            c.method,
          );
          const recorded = applied.reduce((sum, p) => sum + p.paise, 0);
          const which = applied
            .map((p) =>
              r.t(p.settles ? 'chat.on_due_paid' : 'chat.on_due_left', {
                amount: r.money(p.paise),
                date: r.date(p.due.due_date),
                left: r.money(p.due.balance_paise - p.paise),
              }),
            )
            .join(', ');
          return [
            r.t('chat.recorded', { amount: r.money(recorded), name: contact.name, which }),
            r.t('chat.still_owes', { name: contact.name, amount: r.money(owed - recorded) }),
          ].join('\n');
        },
      ),
    );
    return answer.body as string;
  }

  private async balances(business: BusinessRow, kind: 'dues' | 'overdue'): Promise<string> {
    const r = new Replies(business);
    const today = localDate(business.timezone, this.deps.clock.now());
    const totals = await this.deps.summary.get(business);
    const largest = await largestBalances(this.deps.db, business.id, LARGEST, kind === 'overdue' ? today : undefined);
    if (kind === 'overdue') return r.balances('overdue', totals.overdue.paise, totals.overdue.count, largest);
    return r.balances(
      'dues',
      totals.pending.paise + totals.overdue.paise,
      totals.pending.count + totals.overdue.count,
      largest,
    );
  }

  /** `statement <name>`: the contact's balance (or credit) and the buyer's account page to share. */
  private async statement(
    business: BusinessRow,
    c: Extract<ChatCommand, { kind: 'statement' }>,
    user: ChatUser,
  ): Promise<string> {
    const r = new Replies(business);
    const found = await this.contact(business, c.name, r.t('chat.retry_full_name'), user);
    if ('reply' in found) return found.reply;
    const { contact } = found;
    const balance = Number(contact.balance_paise);
    const standing =
      balance > 0
        ? r.t('chat.statement_owes', { name: contact.name, amount: r.money(balance) })
        : balance < 0
          ? r.t('chat.statement_credit', { name: contact.name, amount: r.money(-balance) })
          : r.t('chat.statement_nothing', { name: contact.name });
    const link = accountUrl(this.deps.publicBaseUrl, contact.account_token);
    return link === null ? standing : `${standing}\n${r.t('chat.account', { url: link })}`;
  }

  private async remind(
    business: BusinessRow,
    c: Extract<ChatCommand, { kind: 'remind' }>,
    user: ChatUser,
  ): Promise<string> {
    const r = new Replies(business);
    const found = await this.contact(business, c.name, r.t('chat.retry_full_name'), user);
    if ('reply' in found) return found.reply;
    const { contact } = found;
    const [due] = await openDuesOldestFirst(this.deps.db, business.id, contact.id);
    if (!due) return r.t('chat.remind_nothing', { name: contact.name });
    const what = r.t('chat.remind_what', { amount: r.money(due.balance_paise), date: r.date(due.due_date) });
    try {
      const result = await this.deps.reminders.remind(business, due.id, {});
      if (result.sent) return r.t('chat.remind_sent', { name: contact.name, what });
      return r.t('chat.remind_held', { name: contact.name, what, why: r.hold(result.reason ?? 'paused') });
    } catch (error) {
      // The reminder's own channel failure (recorded on the reminder); the reply says so.
      if (error instanceof ChannelError) {
        return r.t('chat.remind_failed', { name: contact.name, error: error.message });
      }
      throw error;
    }
  }
}
