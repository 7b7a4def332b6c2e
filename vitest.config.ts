import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the unit tests once and every black-box test twice: on SQLite and on
 * PostgreSQL (a throw-away database created by test/helpers/pg-global-setup.ts). PostgreSQL
 * being unreachable fails the run; it never skips.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          env: { TEST_STORE: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.test.ts'],
          env: { TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
