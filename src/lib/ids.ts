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

/**
 * The 74 random bits of a UUID version 7 as three numbers (no BigInt: a bulk import makes ~4 ids
 * per due, most of them by incrementing these within one millisecond): `a` the 12 bits of
 * rand_a, then rand_b's 62 bits as `b` (30 high bits) and `c` (32 low bits).
 */
export interface Rand74 {
  a: number;
  b: number;
  c: number;
}

const C_LIMIT = 2 ** 32;
const B_LIMIT = 2 ** 30;
const A_LIMIT = 2 ** 12;

let lastMs = -1;
const last: Rand74 = { a: 0, b: 0, c: 0 };
/** The first two groups of the uuid for lastMs (its 48-bit time in hex), made once per millisecond. */
let lastMsGroups = '';
/** uuidPrefix of lastMs and `last`: only `c` changes between most ids. */
let lastPrefix = '';

function random74(into: Rand74): void {
  const bytes = randomSlice(10);
  into.a = bytes.readUInt16BE(0) & (A_LIMIT - 1);
  into.b = bytes.readUInt32BE(2) & (B_LIMIT - 1);
  into.c = bytes.readUInt32BE(6);
}

/** Adds 1 to the 74-bit value; false when it wraps past its largest value (then it is all zeros). */
export function increment74(r: Rand74): boolean {
  if (++r.c < C_LIMIT) return true;
  r.c = 0;
  if (++r.b < B_LIMIT) return true;
  r.b = 0;
  if (++r.a < A_LIMIT) return true;
  r.a = 0;
  return false;
}

/** The uuid text of a millisecond's groups (`xxxxxxxx-xxxx-`) and 74 random bits, with the version and variant. */
export function formatUuidv7(msGroups: string, r: Rand74): string {
  return uuidPrefix(msGroups, r) + r.c.toString(16).padStart(8, '0');
}

/** Everything before `c`'s 8 hex digits: the time, the version and rand_a, then rand_b's variant and `b`. */
function uuidPrefix(msGroups: string, r: Rand74): string {
  // rand_b with the variant bits (0b10) on top: 0x80000000 + b is 8 hex digits.
  const high = (0x80000000 + r.b).toString(16);
  return `${msGroups}${(0x7000 | r.a).toString(16)}-${high.slice(0, 4)}-${high.slice(4)}`;
}

function msGroups(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-`;
}

/**
 * UUID version 7 (RFC 9562): time-ordered, so new rows land at the end of primary-key indexes
 * instead of at random pages, which keeps inserts cheap at millions of rows. Within one process
 * ids are strictly increasing (RFC 9562 method 2: the random part is incremented when the
 * millisecond repeats), so ordering by id is the order of creation, e.g. for outbox events.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    lastMsGroups = msGroups(nowMs);
    random74(last);
    lastPrefix = uuidPrefix(lastMsGroups, last);
  } else if (last.c < C_LIMIT - 1) {
    last.c++;
  } else {
    if (!increment74(last)) {
      lastMs += 1;
      lastMsGroups = msGroups(lastMs);
      random74(last);
    }
    lastPrefix = uuidPrefix(lastMsGroups, last);
  }
  return lastPrefix + last.c.toString(16).padStart(8, '0');
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
