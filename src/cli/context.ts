import type { BusinessService } from '../businesses/service.js';
import type { ChatChannel } from '../channels/channel.js';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import type { Clock } from '../lib/clock.js';
import type { Services } from '../services.js';
import type { CliIo } from './io.js';

/**
 * What a command may ask for, each built on first use so that a command pays only for what it
 * uses. `writes: false` opens the store as it is (no migration run: one small read checks that it
 * is up to date), `writes: true` migrates it first, as the server does at start.
 */
export interface CliContext {
  readonly io: CliIo;
  readonly json: boolean;
  /** the words after the command's name (`chat --business ID "add Ravi 500"`: the text) */
  readonly args: readonly string[];
  config(): Promise<Config>;
  /** Where people reach the server: PUBLIC_BASE_URL, else HOST/PORT (config.ts), as the server says. */
  publicBaseUrl(): Promise<string>;
  store(opts: { writes: boolean }): Promise<Store>;
  /** the businesses and their keys only */
  businesses(opts: { writes: boolean }): Promise<BusinessService>;
  /** every service, as the server wires them (the chat channel and the clock may be given) */
  services(opts: { writes: boolean; channel?: ChatChannel; clock?: Clock }): Promise<Services>;
}

export class StoreNotReadyError extends Error {}

export function createContext(
  io: CliIo,
  json: boolean,
  args: readonly string[],
): CliContext & { close(): Promise<void> } {
  let config: Config | undefined;
  let opened: Promise<{ store: Store; migrated: boolean }> | undefined;
  let services: Services | undefined;
  const ctx = {
    io,
    json,
    args,
    async config() {
      if (!config) {
        const { loadConfig } = await import('../config.js');
        config = loadConfig(io.env);
      }
      return config;
    },
    async publicBaseUrl() {
      return (await ctx.config()).publicBaseUrl;
    },
    async store({ writes }: { writes: boolean }): Promise<Store> {
      const cfg = await ctx.config();
      opened ??= import('../db/store.js').then(({ openStore }) => ({
        store: openStore(cfg, { backgroundCheckpoints: false }),
        migrated: false,
      }));
      const current = await opened;
      if (current.migrated) return current.store;
      const { migrate, pendingMigrations } = await import('../db/store.js');
      if (writes) {
        await migrate(current.store.db);
      } else if ((await pendingMigrations(current.store.db)) > 0) {
        // Checked with one small read rather than the migrator (which locks and may write): a
        // store behind this code would answer reads with missing tables or columns.
        throw new StoreNotReadyError(
          'the store is not up to date with this version: start the server once (npm start), or run a command that writes, to migrate it',
        );
      }
      current.migrated = true;
      return current.store;
    },
    async businesses({ writes }: { writes: boolean }) {
      const { db } = await ctx.store({ writes });
      const [{ BusinessService }, { systemClock }] = await Promise.all([
        import('../businesses/service.js'),
        import('../lib/clock.js'),
      ]);
      return new BusinessService({ db, clock: systemClock });
    },
    async services({ writes, channel, clock }: { writes: boolean; channel?: ChatChannel; clock?: Clock }) {
      if (services) return services;
      const store = await ctx.store({ writes });
      const [{ createServices }, { systemClock }] = await Promise.all([
        import('../services.js'),
        import('../lib/clock.js'),
      ]);
      services = createServices({
        store,
        clock: clock ?? systemClock,
        config: await ctx.config(),
        ...(channel && { channel }),
      });
      return services;
    },
    async close() {
      await services?.webhookSender.close();
      if (opened) await (await opened.catch(() => undefined))?.store.close();
    },
  };
  return ctx;
}
