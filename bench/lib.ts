import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';

export const ROOT = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a TypeScript entry point of the project and waits for `readyText` on its stdout (if given). */
export async function start(script: string, args: string[], env: Record<string, string>, readyText: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  if (!readyText) {
    child.stdout?.resume();
    return Object.assign(child, { readyOutput: '' });
  }
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyText)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output.slice(-2000)}`)));
  });
  child.stdout?.resume();
  return Object.assign(child, { readyOutput: output });
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** paths cycled through by each connection */
  paths?: string[];
  connections: number;
  seconds: number;
}

export async function measure(load: Load) {
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    ...(load.paths
      ? {
          requests: load.paths.map((p) => ({
            path: p,
            method: load.method ?? 'GET',
            ...(load.headers && { headers: load.headers }),
            ...(load.body !== undefined && { body: load.body }),
          })),
        }
      : {
          method: load.method ?? 'GET',
          ...(load.headers && { headers: load.headers }),
          ...(load.body !== undefined && { body: load.body }),
        }),
  });
  const ok = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    rps: ok / load.seconds,
    p50: result.latency.p50,
    mean: result.latency.average,
    errors: bad,
  };
}
