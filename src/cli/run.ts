import { parseArgs } from 'node:util';
import { CLI_ACTOR, runAs } from '../audit/context.js';
import { AppError, isClientError, RowsError } from '../errors.js';
import { checkIds, OPTIONS, UsageError, type Values } from './args.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { createContext } from './context.js';
import type { CliIo } from './io.js';

export type { CliIo } from './io.js';

/**
 * Admin CLI:
 *   npm run -s cli -- <command> [options] [--json]
 * With --json, exactly one JSON object is printed on stdout. Bad arguments: a message on stderr
 * and exit code 2. Each command is a file in commands/, loaded when it runs (commands/index.ts),
 * and opens only what it uses (context.ts): a command that only reads runs no migration.
 */
const USAGE = `usage: npm run -s cli -- <command> [options] [--json]

commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}`;

/** The command the words name (one word or two) and the words after its name. */
function findCommand(positionals: string[]): { entry: CommandEntry; args: string[] } | undefined {
  for (const words of [2, 1]) {
    const entry = positionals.length >= words ? COMMANDS[positionals.slice(0, words).join(' ')] : undefined;
    if (!entry) continue;
    const args = positionals.slice(words);
    return args.length === 0 || entry.takesText ? { entry, args } : undefined;
  }
  return undefined;
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
  const found = findCommand(positionals);
  if (!found) {
    return fail(
      new UsageError(positionals.length === 0 ? 'a command is required' : `unknown command "${positionals.join(' ')}"`),
      json,
    );
  }
  try {
    checkIds(values);
  } catch (error) {
    return fail(error, json);
  }
  const ctx = createContext(io, json, found.args);
  try {
    const { default: command } = await found.entry.load();
    // What a command changes is audited as done by the operator's CLI (audit/context.ts).
    const result = await runAs(CLI_ACTOR, () => command.run(values, ctx));
    if (result) io.out(json ? JSON.stringify(result.json) : result.text);
    return result?.exitCode ?? 0;
  } catch (error) {
    return fail(error, json);
  } finally {
    await ctx.close();
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
 * `--reminder-steps "-3,0,7,30"`: the value starts with a dash, which parseArgs takes for an
 * option; joined into `--reminder-steps=-3,0,7,30` it is read as the value.
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
