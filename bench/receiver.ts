import { startHttpsReceiver } from '../test/helpers/https-receiver.js';

/** The local HTTPS receiver of `npm run bench:webhooks`, in its own process: answers 200, counts. */
const receiver = await startHttpsReceiver();
receiver.respond(() => 200);
setInterval(() => {
  // keep memory flat over long runs: only the count matters here
  receiver.requests.length = 0;
}, 1000).unref();
process.stdout.write(`${JSON.stringify({ url: receiver.url, caPath: receiver.caPath })}\n`);
process.on('SIGTERM', () => receiver.close().then(() => process.exit(0)));
