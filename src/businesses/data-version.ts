import { cache } from '../cache/cache.js';
import type { Db } from '../db/schema.js';
import { TurnBatch } from '../lib/turn-batch.js';
import * as repo from './repository.js';

/** Businesses whose data version is kept (read); past that the least recently asked go first. */
const VERSIONS_KEPT = 10_000;

/**
 * A business's data version (repo.readDataVersion): what a rendered response of the business is
 * kept with (http/rendered.ts). BusinessService.dataVersion answers from here.
 */
export class DataVersions {
  /** Data versions read, kept with the store's change stamp they were read under: cache/cache.ts `dataVersions`. */
  readonly #versions = cache.byCount<number>(VERSIONS_KEPT);
  /** Without a change stamp (PostgreSQL): the versions asked for in one turn, read by one statement. */
  readonly #versionReads: TurnBatch<string, number>;

  constructor(
    private readonly deps: {
      db: Db;
      /** db/store.ts Store.changeStamp (SQLite) */
      changeStamp?: (() => string) | undefined;
    },
  ) {
    this.#versionReads = new TurnBatch<string, number>((ids) => repo.readDataVersions(deps.db, ids));
  }

  /**
   * Where the store has a change stamp (SQLite), a version read while the stamp stood is answered
   * again without a statement until anything commits: a rendered read then costs no query of its
   * own. The stamp is taken before the read, so a commit racing the read only makes the next one
   * read.
   */
  async read(businessId: string): Promise<number> {
    const stampOf = this.deps.changeStamp;
    if (!stampOf) return this.#versionReads.read(businessId);
    const stamp = stampOf();
    const known = this.#versions.get(businessId, stamp);
    if (known !== undefined) return known;
    const version = await repo.readDataVersion(this.deps.db, businessId);
    this.#versions.set(businessId, stamp, version);
    return version;
  }
}
