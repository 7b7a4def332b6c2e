import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The baseline: a bare node:http server that answers each benchmarked path with the bytes the
 * real API answered it with (a JSON file given by argv[2]: {"<method> <path prefix>": body}).
 */
const bodies = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Record<string, string>;
const routes = Object.entries(bodies).map(([key, body]) => {
  const [method, prefix] = key.split(' ') as [string, string];
  return { method, prefix, body: Buffer.from(body) };
});

const server = createServer((req, res) => {
  const route = routes.find((r) => r.method === req.method && (req.url ?? '').startsWith(r.prefix));
  // drain a request body (POST) before answering, as the API does
  req.resume();
  req.on('end', () => {
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': route.body.length,
    });
    res.end(route.body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('bare ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
