import type { Values } from '../args.js';
import type { CliContext } from '../context.js';

/** What a command prints: `json` with --json (exactly one object), else `text`; nothing when it streamed its output. */
export type CliResult = { json: object; text: string } | undefined;

export interface CliCommand {
  run(values: Values, ctx: CliContext): Promise<CliResult>;
}
