import { bootstrap, onShutdownSignal } from './bootstrap.js';
import { createJobs } from './workers/index.js';
import { startWorkers } from './workers/runner.js';

/** `npm run worker`: the background jobs without HTTP, for running beside API-only processes. */
async function main() {
  const runtime = await bootstrap();
  const workers = startWorkers(createJobs(runtime), runtime);
  runtime.logger.info({ store: runtime.store.name }, 'worker running');
  onShutdownSignal(runtime.logger, async () => {
    await workers.stop();
    await runtime.close();
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
