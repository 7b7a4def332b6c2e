import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { uniquePhone } from './harness.js';
import { runScript, startScript } from './processes.js';
import { freePort, GiveUp, waitUntil } from './throwaway-servers.js';

/** `npm start`'s (or `npm run worker`'s) entry point as its own process, its JSON log lines collected. */
export interface ServerProcess {
  child: ChildProcess;
  base: string;
  /** raw output so far */
  output(): string;
  /** the parsed JSON log lines whose msg is `msg` */
  logged(msg: string): Record<string, unknown>[];
  /** SIGKILL if still running */
  kill(): Promise<void>;
  /** Throws GiveUp (ends a waitUntil at once) if the process has exited. */
  assertAlive(): void;
}

export async function startServerProcess(
  env: Record<string, string | undefined>,
  script: 'src/server.ts' | 'src/worker.ts' = 'src/server.ts',
): Promise<ServerProcess> {
  const port = await freePort();
  const chunks: string[] = [];
  const child = startScript(script, { ...env, PORT: String(port), HOST: '127.0.0.1' });
  child.stdout?.on('data', (d) => chunks.push(String(d)));
  child.stderr?.on('data', (d) => chunks.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  const output = () => chunks.join('');
  await waitUntil(
    `${script} to be ready`,
    async () => {
      if (child.exitCode !== null) throw new GiveUp(`${script} exited early (${child.exitCode}):\n${output()}`);
      if (script === 'src/worker.ts') return output().includes('worker running') ? true : undefined;
      return (await fetch(`${base}/readyz`)).ok ? true : undefined;
    },
    60_000,
  );
  return {
    child,
    base,
    output,
    logged: (msg) =>
      output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === msg),
    assertAlive() {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new GiveUp(`${script} exited (${child.exitCode ?? child.signalCode}):\n${output().slice(-4000)}`);
      }
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/** Creates a business on the plan with API access through the admin CLI; returns its API key. */
export async function createBusinessWithKey(env: Record<string, string | undefined>): Promise<string> {
  const result = await runScript(
    'src/cli.ts',
    ['business', 'create', '--name', 'Fault Traders', '--phone', uniquePhone(), '--plan', 'business', '--json'],
    env,
  );
  if (result.code !== 0) throw new Error(`business create failed (${result.code}): ${result.stderr}`);
  return (JSON.parse(result.stdout) as { api_key: string }).api_key;
}

/** A value of a metric (no labels) from /metrics. */
export async function metricValue(base: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

export interface Answer {
  /** the contact's name, unique per request, and the request's Idempotency-Key */
  name: string;
  key: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  id: string | undefined;
}

/** POST /v1/contacts with an Idempotency-Key; an exception (refused, reset) is status 0. */
export async function createContact(base: string, apiKey: string, name: string, key: string): Promise<Answer> {
  try {
    const res = await fetch(`${base}/v1/contacts`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ name }),
    });
    const body = (await res.json()) as { data?: { id: string }; error?: { code: string } };
    return {
      name,
      key,
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      code: body.error?.code,
      id: body.data?.id,
    };
  } catch (error) {
    return { name, key, status: 0, retryAfter: null, code: String(error), id: undefined };
  }
}

/** `workers` loops creating contacts (each a new name and key) one after another until stopped. */
export function startLoad(base: string, apiKey: string, workers = 3) {
  const answers: Answer[] = [];
  let stopped = false;
  let n = 0;
  const loop = async () => {
    while (!stopped) {
      const i = n++;
      answers.push(await createContact(base, apiKey, `Load Contact ${i}`, `load-${i}`));
    }
  };
  const loops = Array.from({ length: workers }, loop);
  return {
    answers,
    acknowledged: () => answers.filter((a) => a.status === 201).map((a) => a.id as string),
    count: (status: number) => answers.filter((a) => a.status === status).length,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
