import type { Executor } from '../db/schema.js';
import * as endpointsRepo from './endpoint-repository.js';
import type { SecretBox } from './secret-box.js';

/**
 * The secrets a delivery is signed with are those in force when it is sent, not when it was
 * claimed: a rotation committed while a delivery waited in the dispatcher's queue signs it with
 * the new secret. Reads are batched: the sends started in one turn of the event loop share one
 * query, started after all of them asked (so none can see secrets older than its own start).
 */
type Waiting = { resolve: (row: endpointsRepo.SealedSecrets | undefined) => void; reject: (e: unknown) => void };

export class SendingSecrets {
  #batch: Map<string, Waiting[]> | null = null;

  constructor(private readonly db: Executor) {}

  of(endpointId: string): Promise<endpointsRepo.SealedSecrets | undefined> {
    if (this.#batch === null) {
      this.#batch = new Map();
      queueMicrotask(() => void this.#flush());
    }
    const batch = this.#batch;
    return new Promise((resolve, reject) => {
      const waiting = batch.get(endpointId);
      if (waiting) waiting.push({ resolve, reject });
      else batch.set(endpointId, [{ resolve, reject }]);
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#batch as Map<string, Waiting[]>;
    this.#batch = null;
    try {
      const rows = new Map((await endpointsRepo.secretsOf(this.db, [...batch.keys()])).map((r) => [r.id, r]));
      for (const [id, waiting] of batch) for (const w of waiting) w.resolve(rows.get(id));
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
    }
  }
}

/**
 * The plain secrets in force at `now`, newest first: the current one, and the one a rotation
 * replaced while it has not expired.
 */
export function secretsInForce(
  box: SecretBox,
  endpointId: string,
  sealed: endpointsRepo.SealedSecrets,
  now: Date,
): [string, ...string[]] {
  const current = box.open(sealed.secret_sealed, endpointId);
  if (
    sealed.previous_secret_sealed === null ||
    sealed.previous_secret_expires_at === null ||
    Date.parse(sealed.previous_secret_expires_at) <= now.getTime()
  ) {
    return [current];
  }
  return [current, box.open(sealed.previous_secret_sealed, endpointId)];
}
