import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { TEST_ENCRYPTION_KEY } from './harness.js';
import { freePort } from './throwaway-servers.js';

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

/**
 * Starts `src/server.ts` on a free port and resolves once its /readyz answers 200 (within about
 * 30 s; an early exit or no answer fails with the process's output).
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
): Promise<{ child: ChildProcess; base: string; logs: string[] }> {
  const port = await freePort();
  const logs: string[] = [];
  const child = startScript('src/server.ts', { HOST: '127.0.0.1', ...env, PORT: String(port) });
  child.stdout?.on('data', (d) => logs.push(String(d)));
  child.stderr?.on('data', (d) => logs.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${logs.join('')}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) return { child, base, logs };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become ready:\n${logs.join('')}`);
}
