import { createHash, randomFillSync } from 'node:crypto';

/**
 * Random bytes from the CSPRNG, drawn 4 KiB at a time: each call into randomBytes costs a few
 * microseconds whatever its size, and a new due takes several ids and a pay token.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomSlice(size: number): Buffer {
  if (size > pool.length) return randomFillSync(Buffer.alloc(size));
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // A copy: the pooled bytes are handed out once and never reused.
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return out;
}

const RAND_BITS = 74n;
const RAND_LIMIT = 1n << RAND_BITS;
let lastMs = -1;
let lastRand = 0n;

function random74(): bigint {
  return BigInt(`0x${randomSlice(10).toString('hex')}`) & (RAND_LIMIT - 1n);
}

/**
 * UUID version 7 (RFC 9562): time-ordered, so new rows land at the end of primary-key indexes
 * instead of at random pages, which keeps inserts cheap at millions of rows. Within one process
 * ids are strictly increasing (RFC 9562 method 2: the random part is incremented when the
 * millisecond repeats), so ordering by id is the order of creation, e.g. for outbox events.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  let ms = nowMs;
  let rand: bigint;
  if (ms <= lastMs) {
    ms = lastMs;
    rand = lastRand + 1n;
    if (rand >= RAND_LIMIT) {
      ms += 1;
      rand = random74();
    }
  } else {
    rand = random74();
  }
  lastMs = ms;
  lastRand = rand;
  const randA = Number(rand >> 62n) & 0xfff;
  const randB = (rand & ((1n << 62n) - 1n)) | (0b10n << 62n);
  const hex =
    ms.toString(16).padStart(12, '0') +
    (0x7000 | randA).toString(16).padStart(4, '0') +
    randB.toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An unguessable URL-safe token: 144 random bits. */
export function randomToken(bytes = 18): string {
  return randomSlice(bytes).toString('base64url');
}

/**
 * An unguessable URL-safe token (144 random bits) that sorts after every token made before it:
 * the creation time in fixed-width hex, then the random part. Its unique index is then written at
 * its end, like a time-ordered id's, instead of at a random page (one more page in the WAL for
 * every new due, and a random read once the index outgrows the cache). It tells when it was made,
 * nothing that unlocks anything.
 */
export function timeOrderedToken(nowMs: number = Date.now()): string {
  return nowMs.toString(16).padStart(12, '0') + randomToken();
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
