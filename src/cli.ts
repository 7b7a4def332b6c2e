import { once } from 'node:events';
import { runCli } from './cli/run.js';

/** Entry point of the admin CLI: `npm run -s cli -- <command> [options] [--json]`. */
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    process.stderr.write(`${line}\n`);
  },
  // The export streams: wait for stdout to drain rather than hold the whole file in memory.
  write: async (chunk) => {
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  },
  ...(process.stderr.isTTY && {
    progress: (text: string) => process.stderr.write(`\r\x1b[K${text}`),
  }),
}).then(
  (code) => {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
