import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { bootstrap, onShutdownSignal } from './bootstrap.js';
import { urlHost } from './config.js';
import { startupLines } from './home/page.js';
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
  const { port } = app.server.address() as AddressInfo;
  // PUBLIC_BASE_URL when given; else the address listened on (the port chosen when PORT=0).
  const defaultBase = `http://${urlHost(config.host)}:${config.port}`;
  const base = config.publicBaseUrl === defaultBase ? `http://${urlHost(config.host)}:${port}` : config.publicBaseUrl;
  logger.info({ store: runtime.store.name, port, url: base }, 'receivables API ready');
  // For the person at the terminal, on stderr: stdout stays JSON log lines for log collectors.
  process.stderr.write(`\n${startupLines(base, runtime.store.name, config.workers).join('\n')}\n\n`);

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
