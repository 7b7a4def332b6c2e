import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
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

let ticks: number | undefined;
/**
 * CPU time (user + system) a process has used so far, in seconds (Linux /proc). Unlike the request
 * rate, the CPU a server spends per request hardly moves with what else the machine is doing.
 */
export function cpuSeconds(pid: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after "pid (comm) ": state is field 3, utime and stime are fields 14 and 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** paths cycled through by each connection */
  paths?: string[];
  /** or whole requests cycled through (each with its own headers and body) */
  requests?: { path: string; headers?: Record<string, string>; body?: string }[];
  connections: number;
  seconds: number;
  /** the server's process: its CPU time per answered request is measured too */
  pid?: number | undefined;
}

export async function measure(load: Load) {
  const cpuBefore = load.pid === undefined ? 0 : cpuSeconds(load.pid);
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    ...(load.requests
      ? { requests: load.requests.map((r) => ({ method: load.method ?? 'GET', ...r })) }
      : load.paths
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
  const cpu = load.pid === undefined ? Number.NaN : cpuSeconds(load.pid) - cpuBefore;
  return {
    rps: ok / load.seconds,
    /** microseconds of the server's CPU per answered request (NaN without a pid) */
    cpuUs: (cpu * 1e6) / Math.max(1, ok),
    p50: result.latency.p50,
    mean: result.latency.average,
    errors: bad,
  };
}

/** An import row of the bulk benches (bench/bulk.ts, bench/import-inprocess.ts): 500 contacts, due dates over four months, one invoice number each. */
export const dueDate = (i: number) => new Date(Date.now() + ((i % 120) - 60) * 86_400_000).toISOString().slice(0, 10);
export const importRow = (i: number, tag: string) => ({
  contact_name: `Bulk Buyer ${i % 500}`,
  amount_paise: 1000 + (i % 9000),
  due_date: dueDate(i),
  invoice_number: `${tag}-${i}`,
});
