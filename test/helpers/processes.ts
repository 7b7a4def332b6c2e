import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { TEST_ENCRYPTION_KEY } from './harness.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the project (src/cli.ts, ...) as its own process, via tsx. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, script), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Starts a long-running entry point (src/server.ts, src/worker.ts) and returns the child. */
export function startScript(script: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Store settings for a child process sharing the harness's store. */
export function storeEnv(h: { dataDir: string; databaseUrl: string | undefined }): Record<string, string | undefined> {
  return h.databaseUrl
    ? { DATABASE_URL: h.databaseUrl, DATA_DIR: h.dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }
    : { DATA_DIR: h.dataDir, DATABASE_URL: '' };
}
