import path from 'node:path';
import { DEFAULT_PRICES, type PriceTable, parsePriceTable } from './messaging/prices.js';

/**
 * The one configuration object, validated once at start-up (PRODUCT part 1) and passed in.
 * Nothing else in the code reads process.env.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly pgPoolMax: number;
  /** PostgreSQL: longest a statement may run before the server cancels it (0: no limit). */
  readonly pgStatementTimeoutMs: number;
  /** SQLite: threads with read-only connections that run the list reads (0: on the main connection). */
  readonly readThreads: number;
  /** Long reads (lists) one business may run at once per process; 0: derived from the threads or pool. */
  readonly readsPerBusiness: number;
  readonly redisUrl: string | undefined;
  /** How long a rate-limit hit waits for Redis before it is counted locally and the breaker opens. */
  readonly redisTimeoutMs: number;
  readonly publicBaseUrl: string;
  readonly rateLimitPerMinute: number;
  readonly authFailuresPerMinute: number;
  readonly webhookAllowPrivateNetworks: boolean;
  readonly webhookTimeoutMs: number;
  readonly workers: boolean;
  readonly chatChannel: 'log' | 'whatsapp';
  readonly whatsapp: {
    readonly apiBase: string | undefined;
    readonly phoneNumberId: string | undefined;
    readonly token: string | undefined;
    readonly appSecret: string | undefined;
    readonly verifyToken: string | undefined;
    /** WHATSAPP_BUSINESS_ACCOUNT_ID: the WhatsApp Business Account whose templates `templates sync` manages */
    readonly businessAccountId: string | undefined;
    /** WHATSAPP_MESSAGES_PER_SECOND: the number's pace, shared by every business and process */
    readonly messagesPerSecond: number;
    /** WHATSAPP_PRICES: cost per message by pricing category, in thousandths of a paisa */
    readonly prices: PriceTable;
  };
  /** PAYMENTS_GATEWAY (PRODUCT part 11): none, or razorpay with its keys (never logged). */
  readonly paymentsGateway: 'none' | 'razorpay';
  readonly razorpay: {
    readonly apiBase: string;
    readonly keyId: string | undefined;
    readonly keySecret: string | undefined;
    readonly webhookSecret: string | undefined;
  };
  /**
   * Keys that encrypt secrets at rest (webhook signing secrets), hex, the sealing key last:
   * ENCRYPTION_KEYS=old,new or ENCRYPTION_KEY; required on PostgreSQL (docs/security.md).
   */
  readonly encryptionKeys: readonly string[];
  readonly logLevel: string;
  /** One access-log line per request; off by default because it halves throughput. */
  readonly logRequests: boolean;
  readonly bodyLimitBytes: number;
  /**
   * Which proxies' X-Forwarded-For to believe (for the per-address auth-failure limit): a hop
   * count, or a list of addresses/CIDRs; false trusts none (PRODUCT part 16: never a blanket true).
   */
  readonly trustProxy: false | number | readonly string[];
  /** METRICS_TOKEN: `/metrics` answers only with `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** Memory for rendered responses (list pages, summaries: http/rendered.ts); 0 turns it off. */
  readonly responseCacheBytes: number;
  /**
   * Scheduled backups of the SQLite store (workers/scheduled-backup.ts): BACKUP_DIR, a backup every
   * BACKUP_EVERY_HOURS, the last BACKUP_KEEP kept; undefined when BACKUP_DIR is unset.
   */
  readonly backups: { readonly dir: string; readonly everyHours: number; readonly keep: number } | undefined;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true/false (or on/off), got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  }
  return raw;
}

function hexKey(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw !== undefined && !/^[0-9a-fA-F]{64}$/.test(raw)) {
    throw new ConfigError(`${name} must be 64 hex characters (32 bytes), e.g. from \`openssl rand -hex 32\``);
  }
  return raw?.toLowerCase();
}

function encryptionKeys(env: Env): string[] {
  const list = optional(env, 'ENCRYPTION_KEYS');
  const single = hexKey(env, 'ENCRYPTION_KEY');
  if (list === undefined) return single ? [single] : [];
  if (single !== undefined) throw new ConfigError('set ENCRYPTION_KEYS or ENCRYPTION_KEY, not both');
  return list.split(',').map((part, i) => {
    const key = part.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(key)) {
      throw new ConfigError(`ENCRYPTION_KEYS item ${i + 1} must be 64 hex characters (32 bytes)`);
    }
    return key.toLowerCase();
  });
}

const IPV4_OR_CIDR = /^(\d{1,3}\.){3}\d{1,3}(\/\d{1,2})?$/;
const IPV6_OR_CIDR = /^[0-9a-fA-F:]+(\/\d{1,3})?$/;

function trustProxy(env: Env): false | number | string[] {
  const raw = optional(env, 'TRUST_PROXY');
  if (raw === undefined || ['false', '0', 'off', 'no'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 0, 1, 32);
  const list = raw.split(',').map((s) => s.trim());
  for (const item of list) {
    if (!IPV4_OR_CIDR.test(item) && !(item.includes(':') && IPV6_OR_CIDR.test(item))) {
      throw new ConfigError(
        `TRUST_PROXY must be a hop count (e.g. 1) or a comma-separated list of addresses/CIDRs (e.g. 10.0.0.0/8), got "${item}"`,
      );
    }
  }
  return list;
}

function prices(env: Env): PriceTable {
  const table = parsePriceTable(optional(env, 'WHATSAPP_PRICES') ?? DEFAULT_PRICES);
  if (typeof table === 'string') throw new ConfigError(`WHATSAPP_PRICES: ${table}`);
  return table;
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

/**
 * The host part of the default PUBLIC_BASE_URL: `localhost` for a loopback or every-interface
 * listener (the address a browser on this machine opens), the address itself otherwise.
 */
export function urlHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', ''].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP: all or nothing, and SQLite's only (pg_dump backs up PostgreSQL). */
function backups(env: Env, dataDir: string, postgres: boolean): Config['backups'] {
  const dir = optional(env, 'BACKUP_DIR');
  const everyHours = int(env, 'BACKUP_EVERY_HOURS', 24, 1, 8760);
  const keep = int(env, 'BACKUP_KEEP', 7, 1, 1000);
  if (dir === undefined) {
    for (const name of ['BACKUP_EVERY_HOURS', 'BACKUP_KEEP']) {
      if (optional(env, name) !== undefined) throw new ConfigError(`${name} needs BACKUP_DIR (where the backups go)`);
    }
    return undefined;
  }
  if (postgres) {
    throw new ConfigError('BACKUP_DIR backs up the SQLite store; with DATABASE_URL, back up PostgreSQL with pg_dump');
  }
  const resolved = path.resolve(dir);
  if (resolved === dataDir) throw new ConfigError('BACKUP_DIR must not be DATA_DIR: a backup belongs elsewhere');
  return { dir: resolved, everyHours, keep };
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const chatChannel = env.CHAT_CHANNEL || 'log';
  if (chatChannel !== 'log' && chatChannel !== 'whatsapp') {
    throw new ConfigError(`CHAT_CHANNEL must be "log" or "whatsapp", got "${chatChannel}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const publicBaseUrl = (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${urlHost(host)}:${port}`).replace(
    /\/+$/,
    '',
  );
  const whatsapp = {
    apiBase: url(env, 'WHATSAPP_API_BASE', ['http:', 'https:'])?.replace(/\/+$/, ''),
    phoneNumberId: optional(env, 'WHATSAPP_PHONE_NUMBER_ID'),
    token: optional(env, 'WHATSAPP_TOKEN'),
    appSecret: optional(env, 'WHATSAPP_APP_SECRET'),
    verifyToken: optional(env, 'WHATSAPP_VERIFY_TOKEN'),
    businessAccountId: optional(env, 'WHATSAPP_BUSINESS_ACCOUNT_ID'),
    messagesPerSecond: int(env, 'WHATSAPP_MESSAGES_PER_SECOND', 80, 1, 1000),
    prices: prices(env),
  };
  if (chatChannel === 'whatsapp') {
    // Without the app secret, inbound webhooks could not be verified: refuse rather than trust them.
    for (const [key, name] of [
      ['phoneNumberId', 'WHATSAPP_PHONE_NUMBER_ID'],
      ['token', 'WHATSAPP_TOKEN'],
      ['appSecret', 'WHATSAPP_APP_SECRET'],
    ] as const) {
      if (!whatsapp[key]) throw new ConfigError(`CHAT_CHANNEL=whatsapp needs ${name}`);
    }
  }
  const paymentsGateway = env.PAYMENTS_GATEWAY || 'none';
  if (paymentsGateway !== 'none' && paymentsGateway !== 'razorpay') {
    throw new ConfigError(`PAYMENTS_GATEWAY must be "none" or "razorpay", got "${paymentsGateway}"`);
  }
  const razorpay = {
    apiBase: (url(env, 'RAZORPAY_API_BASE', ['http:', 'https:']) ?? 'https://api.razorpay.com').replace(/\/+$/, ''),
    keyId: optional(env, 'RAZORPAY_KEY_ID'),
    keySecret: optional(env, 'RAZORPAY_KEY_SECRET'),
    webhookSecret: optional(env, 'RAZORPAY_WEBHOOK_SECRET'),
  };
  if (paymentsGateway === 'razorpay') {
    for (const [key, name] of [
      ['keyId', 'RAZORPAY_KEY_ID'],
      ['keySecret', 'RAZORPAY_KEY_SECRET'],
      ['webhookSecret', 'RAZORPAY_WEBHOOK_SECRET'],
    ] as const) {
      // Only the variable's name is ever reported: its value is a secret.
      if (!razorpay[key]) throw new ConfigError(`PAYMENTS_GATEWAY=razorpay needs ${name}`);
    }
  }
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    pgPoolMax: int(env, 'PG_POOL_MAX', 10, 1, 1000),
    pgStatementTimeoutMs: int(env, 'PG_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    readThreads: int(env, 'READ_THREADS', 2, 0, 64),
    readsPerBusiness: int(env, 'READS_PER_BUSINESS', 0, 0, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000),
    publicBaseUrl,
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 30, 1, 100_000_000),
    authFailuresPerMinute: int(env, 'AUTH_FAILURES_PER_MINUTE', 300, 1, 100_000_000),
    webhookAllowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    workers: bool(env, 'WORKERS', true),
    chatChannel,
    whatsapp: {
      ...whatsapp,
      apiBase: whatsapp.apiBase ?? 'https://graph.facebook.com/v21.0',
    },
    paymentsGateway,
    razorpay,
    encryptionKeys: encryptionKeys(env),
    logLevel: env.LOG_LEVEL || 'info',
    logRequests: bool(env, 'LOG_REQUESTS', false),
    bodyLimitBytes: 64 * 1024,
    trustProxy: trustProxy(env),
    metricsToken: optional(env, 'METRICS_TOKEN'),
    responseCacheBytes: int(env, 'RESPONSE_CACHE_MB', 32, 0, 65_536) * 1024 * 1024,
    backups: backups(env, dataDir, databaseUrl !== undefined),
    ...overrides,
  };
  // PRODUCT part 16: an operator's backup of the database must not carry the key to its secrets.
  if (config.databaseUrl && config.encryptionKeys.length === 0) {
    throw new ConfigError(
      'ENCRYPTION_KEY is required with DATABASE_URL (64 hex characters, e.g. from `openssl rand -hex 32`); see docs/security.md',
    );
  }
  return Object.freeze(config);
}
