import type { Logger } from 'pino';
import { AdjustmentService } from './adjustments/service.js';
import { BankService } from './bank/service.js';
import { BulkService } from './bulk/service.js';
import { type AuthenticatedKey, BusinessService } from './businesses/service.js';
import { type CacheNamespace, cache } from './cache/cache.js';
import type { ChatChannel } from './channels/channel.js';
import { createChannel } from './channels/index.js';
import { ChatCommandService } from './chat-commands/service.js';
import { ClaimService } from './claims/service.js';
import type { Config } from './config.js';
import { ContactMergeService } from './contact-merge/service.js';
import { ContactService } from './contacts/service.js';
import type { Store } from './db/store.js';
import { EventService } from './events/service.js';
import { IdempotencyStore } from './idempotency/store.js';
import { BusinessGate } from './lib/business-gate.js';
import type { Clock } from './lib/clock.js';
import { Messenger } from './messaging/messenger.js';
import { StorePace, unpaced } from './messaging/pace.js';
import { MessagingService } from './messaging/service.js';
import { ServiceWindow } from './messaging/window.js';
import { createGateway } from './payments-gateway/index.js';
import type { PaymentsGateway } from './payments-gateway/port.js';
import { GatewayService } from './payments-gateway/service.js';
import { ReceiptService } from './receipts/service.js';
import { ChatInboundService } from './reminders/inbound.js';
import { ReminderService } from './reminders/service.js';
import { StatementService } from './statements/service.js';
import { SummaryService } from './summary/service.js';
import { TransactionService } from './transactions/service.js';
import { UserService } from './users/service.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { lazySecretBox } from './webhooks/secret-box.js';
import { createHttpSender, type WebhookSender } from './webhooks/sender.js';
import { WebhookService } from './webhooks/service.js';

export interface Services {
  businesses: BusinessService;
  contacts: ContactService;
  /** merging two buyers that are one person */
  contactMerge: ContactMergeService;
  transactions: TransactionService;
  /** bulk import and export of dues (PRODUCT part 12) */
  bulk: BulkService;
  summary: SummaryService;
  /** the chat channel port (CHAT_CHANNEL): the adapter itself */
  channel: ChatChannel;
  /** the channel as everything sends through it: paced, and each message recorded (messaging/) */
  messenger: Messenger;
  /** usage and cost of the messages sent (GET /v1/messaging/usage, the dashboard) */
  messaging: MessagingService;
  reminders: ReminderService;
  /** "I have paid" claims, confirmed or rejected by the business (PRODUCT part 11) */
  claims: ClaimService;
  /** receipts of buyers' accounts: allocations, credit, reversals */
  receipts: ReceiptService;
  /** bank statements matched to dues */
  bank: BankService;
  /** buyers' statements of account */
  statements: StatementService;
  /** tds, discounts, credit notes and write-offs on dues */
  adjustments: AdjustmentService;
  /** payment links and gateway payments (PAYMENTS_GATEWAY), and unapplied money */
  moneyIn: GatewayService;
  chatInbound: ChatInboundService;
  /** Idempotency-Key records, written by the services inside their transactions */
  idempotency: IdempotencyStore;
  /** the business's events of the last 30 days (GET /v1/events) */
  events: EventService;
  webhooks: WebhookService;
  /** the business's owner and staff (PRODUCT part 23) */
  users: UserService;
  /** fans outbox events out to deliveries and sends them (run by the webhook worker job) */
  webhookDispatcher: WebhookDispatcher;
  /** the HTTPS client of webhook deliveries; closed with the runtime */
  webhookSender: WebhookSender;
  /** rendered list pages (cache/cache.ts, http/rendered.ts); absent when RESPONSE_CACHE_MB=0 */
  pages: CacheNamespace<string> | undefined;
}

/** A business's list reads that wait for one of its running ones to end; more are answered 429. */
const READS_QUEUED_PER_BUSINESS = 32;

/** The rules of the service, shared by the HTTP app, the workers and the admin CLI. */
export function createServices(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  /** where a refused webhook target's detail is logged */
  logger?: Pick<Logger, 'warn'>;
  channel?: ChatChannel;
  webhookSender?: WebhookSender;
  /** the payments gateway port; default: the adapter PAYMENTS_GATEWAY names, if any */
  gateway?: PaymentsGateway;
}): Services {
  const { db } = deps.store;
  const { clock, config } = deps;
  const { logger } = deps;
  const webhookSender =
    deps.webhookSender ??
    createHttpSender({
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
      // The business's delivery log says only "destination not allowed"; the address is logged here.
      ...(logger && { onRefused: (detail: string) => logger.warn({ detail }, 'webhook destination not allowed') }),
    });
  const secretBox = lazySecretBox({
    encryptionKeys: config.encryptionKeys,
    db,
    serverStore: deps.store.server,
    dataDir: config.dataDir,
  });
  const idempotency = new IdempotencyStore({ db, clock });
  // The lists run on the store's read threads (SQLite) and at most readsPerBusiness at once per business.
  const reads = {
    db: deps.store.reads,
    gate: new BusinessGate(deps.store.readsPerBusiness, READS_QUEUED_PER_BUSINESS),
  };
  const contacts = new ContactService({ db, clock, idempotency, reads });
  const businesses = new BusinessService({
    db,
    clock,
    changeStamp: deps.store.changeStamp,
    apiKeys: deps.store.otherCommits && {
      cache: cache.byCount<AuthenticatedKey>(10_000),
      otherCommits: deps.store.otherCommits,
    },
  });
  const channel = deps.channel ?? createChannel(deps.config);
  // The number's pace matters only when messages leave the process.
  const pace =
    channel.name === 'whatsapp' ? new StorePace({ db, clock, perSecond: config.whatsapp.messagesPerSecond }) : unpaced;
  const prices = config.whatsapp.prices;
  const messenger = new Messenger({ db, clock, channel, pace, shaper: new ServiceWindow({ db, clock, prices }) });
  const transactions = new TransactionService({ db, clock, contacts, idempotency, reads });
  const summary = new SummaryService({ db, clock });
  const reminders = new ReminderService({
    db,
    clock,
    channel: messenger,
    publicBaseUrl: deps.config.publicBaseUrl,
    pace,
  });
  const commands = new ChatCommandService({
    db,
    clock,
    idempotency,
    transactions,
    reminders,
    summary,
    publicBaseUrl: deps.config.publicBaseUrl,
  });
  return {
    businesses,
    contacts,
    contactMerge: new ContactMergeService({ db, clock }),
    transactions,
    bulk: new BulkService({
      db,
      transactions,
      idempotency,
      publicBaseUrl: config.publicBaseUrl,
    }),
    summary,
    channel,
    messenger,
    messaging: new MessagingService({ db }),
    reminders,
    claims: new ClaimService({ db, clock, contacts }),
    receipts: new ReceiptService({ db, clock, contacts, idempotency }),
    bank: new BankService({ db, clock }),
    statements: new StatementService({ db, clock }),
    adjustments: new AdjustmentService({ db, clock }),
    moneyIn: new GatewayService({ db, clock, gateway: deps.gateway ?? createGateway(config) }),
    idempotency,
    chatInbound: new ChatInboundService({ db, clock, channel: messenger, businesses, commands, prices }),
    events: new EventService({ db, clock }),
    webhooks: new WebhookService({ db, clock, sender: webhookSender, secretBox }),
    users: new UserService({ db, clock }),
    webhookDispatcher: new WebhookDispatcher({
      db,
      clock,
      sender: webhookSender,
      secretBox,
      timeoutMs: config.webhookTimeoutMs,
      // Paced and recorded like every message (messaging/messenger.ts).
      channel: messenger,
    }),
    webhookSender,
    pages: config.responseCacheBytes > 0 ? cache.byLength(config.responseCacheBytes) : undefined,
  };
}
