import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The ceiling: bare node:http answering fixed bodies as long as ShopDesk's answers (GET
 * 200, POST 201, PUT 200), so the ratio against it shows what the framework and the work
 * cost. Sizes come from argv: `--get BYTES --post BYTES --put BYTES`.
 */
function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const bodyOf = (bytes: number) => Buffer.from(`{"data":"${'x'.repeat(Math.max(0, bytes - 11))}"}`);
const answers: Record<string, { status: number; body: Buffer }> = {
  GET: { status: 200, body: bodyOf(argument('--get', 512)) },
  POST: { status: 201, body: bodyOf(argument('--post', 512)) },
  PUT: { status: 200, body: bodyOf(argument('--put', 32)) },
};

const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  const answer = answers[request.method ?? 'GET'] ?? answers.GET!;
  const reply = () => {
    response.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': answer.body.length,
    });
    response.end(answer.body);
  };
  // Read the whole body before answering, as any real server must.
  if (request.method === 'GET') {
    request.resume();
    reply();
  } else {
    request.on('data', () => {});
    request.on('end', reply);
  }
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`ceiling listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
