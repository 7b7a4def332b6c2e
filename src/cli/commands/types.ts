import type { Values } from '../args.js';
import type { CliContext } from '../context.js';

/**
 * What a command prints: `json` with --json (exactly one object), else `text`; nothing when it
 * streamed its output. `exitCode`: a command whose answer is a failure (verify finding a
 * difference) says so by its exit code (default 0).
 */
export type CliResult = { json: object; text: string; exitCode?: number } | undefined;

export interface CliCommand {
  run(values: Values, ctx: CliContext): Promise<CliResult>;
}
