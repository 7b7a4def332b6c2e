import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../http/metrics.js';

/**
 * A background job: one file per job (workers/*.ts), run in a loop by the runner. Several
 * processes may run the same job against one PostgreSQL database, so a job claims its rows
 * (FOR UPDATE SKIP LOCKED or a conditional update) rather than assuming it is alone.
 */
export interface Job {
  readonly name: string;
  /** Pause between runs once a run finds nothing to do. */
  readonly idleMs: number;
  /** Handles one batch; returns how many items it handled (0 means idle). */
  runOnce(signal: AbortSignal): Promise<number>;
  /** Optional: call `wake` to cut the idle pause short (e.g. on LISTEN/NOTIFY). */
  subscribe?(wake: () => void): () => void;
}

export interface RunningWorkers {
  /** Cuts the idle pause of the named job (or of all jobs) short. */
  wake(name?: string): void;
  /** Stops taking new batches and waits for the batches in flight to finish. */
  stop(): Promise<void>;
}

/** After a failed run: 250 ms, doubling per consecutive failure, at most 5 s. */
export function errorBackoffMs(consecutiveFailures: number): number {
  return Math.min(250 * 2 ** Math.max(0, consecutiveFailures - 1), 5000);
}

export function startWorkers(
  jobs: readonly Job[],
  deps: { logger: FastifyBaseLogger; metrics: Metrics },
): RunningWorkers {
  const controller = new AbortController();
  const { signal } = controller;
  const wakers = new Map<string, () => void>();
  const unsubscribers: (() => void)[] = [];

  const loops = jobs.map(async (job) => {
    let wakeUp: (() => void) | null = null;
    let woken = false;
    const wake = () => {
      woken = true;
      wakeUp?.();
    };
    wakers.set(job.name, wake);
    if (job.subscribe) unsubscribers.push(job.subscribe(wake));

    // A run of failures (e.g. the database is away) is logged when it starts and when it ends,
    // not once per attempt; every attempt still counts in worker_job_errors_total.
    let failures = 0;
    while (!signal.aborted) {
      let handled = 0;
      let failed = false;
      woken = false;
      try {
        handled = await job.runOnce(signal);
        if (handled > 0) deps.metrics.jobRuns.inc({ job: job.name }, handled);
        if (failures > 0) deps.logger.info({ job: job.name, failures }, 'background job running again');
        failures = 0;
      } catch (error) {
        failed = true;
        failures++;
        deps.metrics.jobErrors.inc({ job: job.name });
        if (failures === 1)
          deps.logger.error({ err: error, job: job.name }, 'background job failed; retrying with back-off');
      }
      if (signal.aborted) break;
      if (handled > 0 && !failed) continue;
      if (woken && !failed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, failed ? errorBackoffMs(failures) : job.idleMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wakeUp = null;
          resolve();
        }
        wakeUp = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  });

  return {
    wake(name) {
      if (name === undefined) for (const w of wakers.values()) w();
      else wakers.get(name)?.();
    },
    async stop() {
      controller.abort();
      for (const unsubscribe of unsubscribers) unsubscribe();
      await Promise.all(loops);
    },
  };
}
