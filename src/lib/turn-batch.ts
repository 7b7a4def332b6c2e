/**
 * Reads asked for during one turn of the event loop, answered by one call: the keys gathered until
 * the I/O callbacks of the turn have run (setImmediate), so concurrent requests (each its own I/O
 * callback) share a statement and its round trip. Nothing is kept: every key is read after it was
 * asked for, never answered from an earlier read (a cache would serve another process's stale
 * data; DataLoader's default schedule would batch only within one callback). A failed read fails
 * every key of its batch.
 */
type Waiters<V> = { resolve: (value: V) => void; reject: (error: unknown) => void }[];

export class TurnBatch<K, V> {
  #pending: Map<K, Waiters<V>> | null = null;

  constructor(private readonly load: (keys: K[]) => Promise<Map<K, V>>) {}

  read(key: K): Promise<V> {
    let pending = this.#pending;
    if (pending === null) {
      pending = new Map();
      this.#pending = pending;
      setImmediate(() => this.#flush());
    }
    let waiters = pending.get(key);
    if (waiters === undefined) {
      waiters = [];
      pending.set(key, waiters);
    }
    const list = waiters;
    return new Promise<V>((resolve, reject) => list.push({ resolve, reject }));
  }

  async #flush(): Promise<void> {
    const batch = this.#pending as Map<K, Waiters<V>>;
    this.#pending = null;
    let values: Map<K, V>;
    try {
      values = await this.load([...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    for (const [key, waiters] of batch) {
      for (const waiter of waiters) {
        if (values.has(key)) waiter.resolve(values.get(key) as V);
        else waiter.reject(new Error('TurnBatch: the load gave no value for a key'));
      }
    }
  }
}
