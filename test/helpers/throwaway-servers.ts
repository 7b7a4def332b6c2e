import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * PostgreSQL and Redis servers that a fault test owns: started in a temp folder on a free port,
 * stopped, killed and restarted at will, removed afterwards. The shared servers on 5432/6379 are
 * never touched.
 */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Thrown from a waitUntil check: stop waiting at once (e.g. the process under test died). */
export class GiveUp extends Error {}

/**
 * Polls `check` every 50 ms until it returns a value other than undefined; fails after `timeoutMs`
 * (with the last error `check` threw), or at once when `check` throws GiveUp.
 */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}`);
  return path.join(root, versions[0] as string, 'bin');
}

/** initdb refuses to run as root: then the cluster belongs to the `postgres` OS user. */
function asClusterOwner(file: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['/usr/sbin/runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

function ownerIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no postgres OS user to own a test cluster');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface ThrowawayPostgres {
  port: number;
  readonly running: boolean;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** `pg_ctl start`, waiting until it accepts connections */
  start(): Promise<void>;
  /** `pg_ctl stop`: fast closes sessions with 57P01, immediate is a crash (recovery at next start) */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), 'fault-pg-'));
  const owner = ownerIds();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const pgctl = (...args: string[]) => run(...asClusterOwner(path.join(bin, 'pg_ctl'), args));
  await run(
    ...asClusterOwner(path.join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]),
  );
  // fsync off: a test cluster's data only has to outlive its server process, not the machine.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const pg: ThrowawayPostgres = {
    port,
    get running() {
      return running;
    },
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await pgctl('start', '-D', data, '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', options);
      running = true;
    },
    async stop(mode) {
      await pgctl('stop', '-D', data, '-w', '-t', '60', '-m', mode);
      running = false;
    },
    async destroy() {
      if (running) await pg.stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}

export interface ThrowawayRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGKILL: the connection drops at once */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: connected but not answering (a hung server), then answering again */
  pause(): void;
  resume(): void;
  destroy(): Promise<void>;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'fault-redis-'));
  let child: ChildProcess | undefined;
  const redis: ThrowawayRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      let output = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 30_000);
        started.stdout?.on('data', (d) => {
          output += String(d);
          if (output.includes('Ready to accept connections')) {
            clearTimeout(timer);
            resolve();
          }
        });
        started.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`redis-server exited (${code}):\n${output}`));
        });
      });
    },
    async kill() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      c.kill('SIGKILL');
      await once(c, 'exit');
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async destroy() {
      redis.resume();
      await redis.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}
