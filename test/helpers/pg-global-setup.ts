import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openStore } from '../../src/db/store.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the server's maintenance database, for CREATE/DROP DATABASE */
    pgAdminUrl: string;
    /** a migrated database that each test file copies (CREATE DATABASE ... TEMPLATE) */
    pgTemplate: string;
  }
}

/**
 * Migrates one template database for the run; every test file then gets its own copy of it
 * (test/helpers/harness.ts), so that workers which claim rows across the whole store (webhook
 * dispatch, reminders, the overdue sweep) only ever see their own file's data. Everything is
 * dropped afterwards. TEST_DATABASE_URL points at the server's maintenance database (default:
 * local trust auth). PostgreSQL being unreachable fails the run.
 */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const prefix = `receivables_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_template`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required for the postgres test project and is unreachable at ${adminUrl}: ${(error as Error).message}`,
    );
  }
  await admin.query(`create database ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const store = openStore({ databaseUrl: url.toString(), dataDir: '', pgPoolMax: 1 });
  await migrate(store.db);
  await store.close();
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);

  return async () => {
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [
      `${prefix}%`,
    ]);
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
    await admin.end();
  };
}
