import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openStore } from '../../src/db/store.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

/**
 * Creates one throw-away PostgreSQL database for the run, migrates it, and drops it afterwards.
 * TEST_DATABASE_URL points at a server's maintenance database (default: local trust auth).
 */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `receivables_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required for the postgres test project and is unreachable at ${adminUrl}: ${(error as Error).message}`,
    );
  }
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = openStore({ databaseUrl: url.toString(), dataDir: '', pgPoolMax: 2 });
  await migrate(store.db);
  await store.close();
  project.provide('pgUrl', url.toString());

  return async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
}
