import { buildApp } from './app.js';
import { bootstrap, onShutdownSignal } from './bootstrap.js';
import { createJobs } from './workers/index.js';
import { type RunningWorkers, startWorkers } from './workers/runner.js';

/** The only file that listens: config -> store -> app -> workers. */
async function main() {
  const runtime = await bootstrap();
  const { config, logger } = runtime;
  const app = await buildApp(runtime, logger);
  await app.listen({ port: config.port, host: config.host });

  let workers: RunningWorkers | undefined;
  if (config.workers) {
    workers = startWorkers(createJobs(runtime), runtime);
    logger.info('background workers running in this process');
  }
  logger.info({ store: runtime.store.kind, port: config.port }, 'receivables API ready');

  onShutdownSignal(logger, async () => {
    await app.close();
    await workers?.stop();
    await runtime.close();
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
