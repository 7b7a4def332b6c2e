import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Runtime } from '../bootstrap.js';
import { presentBusinessForOperator } from '../businesses/presenter.js';
import { DashboardAuth } from '../dashboard/auth.js';
import { AppError, isClientError, RowsError } from '../errors.js';
import type { Services } from '../services.js';
import { TRANSACTION_STATUS_FILTERS } from '../transactions/schema.js';

/**
 * Admin CLI (PRODUCT part 1, contract):
 *   npm run -s cli -- <command> [options] [--json]
 * With --json, exactly one JSON object is printed on stdout. Bad arguments: a message on stderr
 * and exit code 2.
 */
const USAGE = `usage: npm run -s cli -- <command> [options] [--json]

commands:
  business create --name N --phone P [--plan business] [--currency INR] [--country IN]
                  [--language en] [--timezone Asia/Kolkata]
  business set --business ID [--plan P] [--plan-expires-at ISO] [--reminders-paused true|false] [--reminder-steps "-3,0,7,30"]
               [--upi-id VPA]
  key issue --business ID
  key list --business ID
  key revoke --key KEY | --id KEY_ID
  secrets reseal
  import --business ID --file F [--dry-run]
  export --business ID [--status pending|overdue|outstanding|paid] > F
  login-link --business ID          one-time dashboard sign-in link (15 minutes, one use)`;

class UsageError extends Error {}

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  phone: { type: 'string' },
  plan: { type: 'string' },
  currency: { type: 'string' },
  country: { type: 'string' },
  language: { type: 'string' },
  timezone: { type: 'string' },
  business: { type: 'string' },
  'plan-expires-at': { type: 'string' },
  'reminders-paused': { type: 'string' },
  'reminder-steps': { type: 'string' },
  'upi-id': { type: 'string' },
  key: { type: 'string' },
  file: { type: 'string' },
  'dry-run': { type: 'boolean' },
  status: { type: 'string' },
  id: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function allowOnly(values: Values, allowed: string[]) {
  for (const key of Object.keys(values)) {
    if (key !== 'json' && key !== 'help' && !allowed.includes(key)) {
      throw new UsageError(`--${key} does not apply to this command`);
    }
  }
}

type Command = (values: Values, services: Services, runtime: Runtime) => Promise<{ json: object; text: string }>;

const COMMANDS: Record<string, Command> = {
  'business create': async (v, { businesses }) => {
    allowOnly(v, ['name', 'phone', 'plan', 'currency', 'country', 'language', 'timezone']);
    const { business, apiKey } = await businesses.create({
      name: required(v, 'name'),
      phone: required(v, 'phone'),
      ...(v.plan !== undefined && { plan: v.plan }),
      ...(v.currency !== undefined && { currency: v.currency }),
      ...(v.country !== undefined && { country: v.country }),
      ...(v.language !== undefined && { language: v.language }),
      ...(v.timezone !== undefined && { timezone: v.timezone }),
    });
    return {
      json: { business: presentBusinessForOperator(business), api_key: apiKey },
      text: `created business ${business.name} (${business.id}), plan ${business.plan}\nAPI key (shown once): ${apiKey}`,
    };
  },
  'business set': async (v, { businesses }) => {
    allowOnly(v, ['business', 'plan', 'plan-expires-at', 'reminders-paused', 'reminder-steps', 'upi-id']);
    const id = required(v, 'business');
    const paused = v['reminders-paused'];
    if (paused !== undefined && paused !== 'true' && paused !== 'false') {
      throw new UsageError('--reminders-paused must be true or false');
    }
    if (
      v.plan === undefined &&
      v['plan-expires-at'] === undefined &&
      paused === undefined &&
      v['reminder-steps'] === undefined &&
      v['upi-id'] === undefined
    ) {
      throw new UsageError(
        'business set needs at least one of --plan, --plan-expires-at, --reminders-paused, --reminder-steps, --upi-id',
      );
    }
    const business = await businesses.update(id, {
      ...(v.plan !== undefined && { plan: v.plan }),
      ...(v['plan-expires-at'] !== undefined && {
        planExpiresAt: v['plan-expires-at'],
      }),
      ...(paused !== undefined && { remindersPaused: paused === 'true' }),
      ...(v['reminder-steps'] !== undefined && { reminderSteps: v['reminder-steps'] }),
      ...(v['upi-id'] !== undefined && {
        upiId: v['upi-id'] === '' ? null : v['upi-id'],
      }),
    });
    return {
      json: { business: presentBusinessForOperator(business) },
      text: `updated business ${business.id}`,
    };
  },
  'key issue': async (v, { businesses }) => {
    allowOnly(v, ['business']);
    const apiKey = await businesses.issueKey(required(v, 'business'));
    return {
      json: { api_key: apiKey },
      text: `API key (shown once): ${apiKey}`,
    };
  },
  'key list': async (v, { businesses }) => {
    allowOnly(v, ['business']);
    const id = required(v, 'business');
    await businesses.get(id);
    const keys = await businesses.listKeys(id);
    const lines = keys.map(
      (k) =>
        `${k.id}  ${k.prefix}…  ${k.source.padEnd(9)}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`,
    );
    return { json: { keys }, text: lines.length > 0 ? lines.join('\n') : 'no keys' };
  },
  'key revoke': async (v, { businesses }) => {
    allowOnly(v, ['key', 'id']);
    if ((v.key === undefined) === (v.id === undefined)) throw new UsageError('give one of --key or --id');
    const revoked =
      v.id !== undefined
        ? await businesses.revokeKeyById(required(v, 'id'))
        : await businesses.revokeKey(required(v, 'key'));
    if (!revoked) throw new UsageError(`no active API key matches --${v.id !== undefined ? 'id' : 'key'}`);
    return { json: { revoked: true }, text: 'API key revoked' };
  },
  'secrets reseal': async (v, { webhooks }) => {
    allowOnly(v, []);
    const { resealed, databaseKeyRemoved } = await webhooks.resealSecrets();
    return {
      json: { resealed, database_key_removed: databaseKeyRemoved },
      text: `re-sealed ${resealed} webhook secret(s) with the current key${databaseKeyRemoved ? '; removed the key kept in the database' : ''}`,
    };
  },
  // PRODUCT part 14: a one-time link into the business's dashboard.
  'login-link': async (v, _services, runtime) => {
    allowOnly(v, ['business']);
    const auth = new DashboardAuth({
      db: runtime.store.db,
      clock: runtime.clock,
      channel: runtime.services.messenger,
      rateLimits: runtime.rateLimits,
      publicBaseUrl: runtime.config.publicBaseUrl,
    });
    const url = await auth.createLink(required(v, 'business'));
    return { json: { url }, text: `dashboard sign-in link (15 minutes, one use): ${url}` };
  },
};

/** A bar on stderr while a terminal watches (PRODUCT part 12): `[#####.....] 5000/10000 rows`. */
function progressBar(io: CliIo, done: number, total?: number) {
  if (!io.progress) return;
  if (total === undefined) return io.progress(`${done} rows`);
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  io.progress(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} rows`);
}

/** Commands of one word that need the services and the output stream (bulk import and export). */
type BulkCommand = (
  values: Values,
  services: Services,
  io: CliIo,
) => Promise<{ json: object; text: string } | undefined>;

const BULK_COMMANDS: Record<string, BulkCommand> = {
  import: async (v, services, io) => {
    allowOnly(v, ['business', 'file', 'dry-run']);
    const businessId = required(v, 'business');
    const file = required(v, 'file');
    const business = await services.businesses.get(businessId);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --file ${file}: ${(error as Error).message}`);
    }
    const source = file.toLowerCase().endsWith('.json') ? { rows: jsonRows(text) } : { csv: text };
    const result = await services.bulk.importDues(business, source, {
      dryRun: v['dry-run'] === true,
      onProgress: (done, total) => progressBar(io, done, total),
    });
    return {
      json: { data: result },
      text: `${v['dry-run'] ? 'dry run: would import' : 'imported'} ${result.created} dues (${result.contacts_created} new contacts)`,
    };
  },
  export: async (v, services, io) => {
    allowOnly(v, ['business', 'status']);
    const status = v.status;
    if (status !== undefined && !(TRANSACTION_STATUS_FILTERS as readonly string[]).includes(status)) {
      throw new UsageError(`--status must be one of ${TRANSACTION_STATUS_FILTERS.join(', ')}`);
    }
    const business = await services.businesses.get(required(v, 'business'));
    const write = io.write ?? ((chunk: string) => io.out(chunk.replace(/\r\n$/, '')));
    let rows = -1;
    for await (const chunk of services.bulk.exportCsv(business, { ...(status !== undefined && { status }) })) {
      await write(chunk);
      rows += chunk.split('\r\n').length - 1;
      progressBar(io, rows);
    }
    return undefined;
  },
};

function jsonRows(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--file is not valid JSON');
  }
  const rows = (parsed as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) throw new UsageError('a JSON --file must be {"rows": [...]}');
  return rows;
}

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** raw output (the export's CSV), resolved once it may be written again; default: out */
  write?(chunk: string): Promise<void> | void;
  /** a progress line for a terminal (given only when stderr is one) */
  progress?(text: string): void;
}

/** Runs one CLI command; returns the exit code. In-process so that it can be tested directly. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const fail = (error: unknown, json: boolean) => report(error, json, io);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: joinDashValues(argv),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return fail(new UsageError((error as Error).message), argv.includes('--json'));
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  if (values.help) {
    io.err(USAGE);
    return 0;
  }
  const bulkCommand = positionals.length === 1 ? BULK_COMMANDS[positionals[0] as string] : undefined;
  // Other commands are one word (login-link) or two (business create).
  const name = positionals.join(' ');
  const command = positionals.length <= 2 ? COMMANDS[name] : undefined;
  if (!bulkCommand && !command) {
    return fail(
      new UsageError(positionals.length === 0 ? 'a command is required' : `unknown command "${positionals.join(' ')}"`),
      json,
    );
  }

  // Imported late so that `--help` and usage errors answer without opening the store.
  const { bootstrap } = await import('../bootstrap.js');
  const runtime = await bootstrap({ env: io.env, logLevel: 'warn', logToStderr: true, shortLived: true });
  try {
    const result = bulkCommand
      ? await bulkCommand(values, runtime.services, io)
      : await (command as Command)(values, runtime.services, runtime);
    if (result) io.out(json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (error) {
    return fail(error, json);
  } finally {
    await runtime.close();
  }
}

function report(error: unknown, json: boolean, io: CliIo): number {
  // Argument problems (and a business or key that does not exist) are exit 2; anything else 1.
  const usage = error instanceof UsageError || (error instanceof AppError && isClientError(error.code));
  const message = error instanceof Error ? error.message : String(error);
  const rows = error instanceof RowsError ? error.rows : undefined;
  if (json) {
    const field = error instanceof AppError ? error.field : undefined;
    io.out(JSON.stringify({ error: { message, ...(field !== undefined && { field }), ...(rows && { rows }) } }));
  }
  if (rows && !json) for (const r of rows) io.err(`row ${r.row}, ${r.field}: ${r.message}`);
  io.err(usage && !rows ? `error: ${message}\n\n${USAGE}` : `error: ${message}`);
  return usage ? 2 : 1;
}

/**
 * `--reminder-steps "-3,0,7,30"` (PRODUCT part 13): the value starts with a dash, which parseArgs
 * takes for an option; joined into `--reminder-steps=-3,0,7,30` it is read as the value.
 */
function joinDashValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--reminder-steps' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
