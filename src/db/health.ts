import { isStoreUnavailable } from './unavailable.js';

/** Told once when an outage starts (with its cause) and once when it ends. */
export interface StoreMonitor {
  onDown?(cause: unknown): void;
  onUp?(downForMs: number): void;
}

const FIRST_PROBE_MS = 250;
const MAX_PROBE_MS = 5000;

/**
 * Whether the store answers, as seen by this process. Connection failures (db/unavailable.ts)
 * mark it down; the first one starts an outage, which the monitor hears about once (log, metric),
 * however many requests fail meanwhile. While down, a probe runs with bounded back-off
 * (250 ms doubling to 5 s) so that recovery is noticed without traffic; any new connection that
 * succeeds ends the outage too.
 */
export class StoreHealth {
  readonly #monitor: StoreMonitor;
  #probe: (() => Promise<void>) | undefined;
  #downSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(monitor: StoreMonitor = {}) {
    this.#monitor = monitor;
  }

  get up(): boolean {
    return this.#downSince === undefined;
  }

  /** The check the probe runs while the store is down (e.g. `select 1` on a fresh connection). */
  setProbe(probe: () => Promise<void>): void {
    this.#probe = probe;
  }

  /** Records `error` if it means the store is unreachable; returns whether it did. */
  failed(error: unknown): boolean {
    if (!isStoreUnavailable(error)) return false;
    if (this.#downSince === undefined && !this.#stopped) {
      this.#downSince = Date.now();
      this.#monitor.onDown?.(error);
      this.#scheduleProbe(FIRST_PROBE_MS);
    }
    return true;
  }

  succeeded(): void {
    if (this.#downSince === undefined) return;
    const downFor = Date.now() - this.#downSince;
    this.#downSince = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#monitor.onUp?.(downFor);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #scheduleProbe(delayMs: number) {
    if (!this.#probe || this.#stopped) return;
    const probe = this.#probe;
    this.#timer = setTimeout(() => {
      probe().then(
        () => this.succeeded(),
        () => {
          if (!this.up) this.#scheduleProbe(Math.min(delayMs * 2, MAX_PROBE_MS));
        },
      );
    }, delayMs);
    this.#timer.unref();
  }
}
