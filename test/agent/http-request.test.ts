import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnswerTimeoutError,
  httpCall,
  keptAliveConnections,
} from '../../agent/core/http-request.ts';

/**
 * The agent's HTTP client is Node's own (agent/core/http-request.ts). These tests pin what
 * the agent relies on of it, against a real server on port 0: kept-alive connections reused,
 * a server that stops answering failed by the timeout, a cut answer failed with Node's code.
 */
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(
  handle: (response: ServerResponse) => void,
): Promise<{ url: string; sockets: () => number }> {
  let sockets = 0;
  const server = createServer((_request, response) => handle(response));
  server.on('connection', () => {
    sockets += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, sockets: () => sockets };
}

describe("the agent's HTTP client (node:http)", () => {
  it('answers status, headers and the whole body; calls on kept-alive connections share one socket', async () => {
    const server = await serve((response) => {
      response.setHeader('retry-after', '3');
      response.end('hello');
    });
    const connections = keptAliveConnections(server.url, {
      connections: 8,
      keepAliveMs: 60_000,
      connectTimeoutMs: 10_000,
    });
    try {
      for (let call = 0; call < 3; call++) {
        const answer = await httpCall(server.url, { timeoutMs: 5000, connections });
        expect(answer.status).toBe(200);
        expect(answer.headers['retry-after']).toBe('3');
        expect(answer.body.toString()).toBe('hello');
      }
      expect(server.sockets()).toBe(1);
    } finally {
      await connections.close();
    }
  });

  it('a call without kept-alive connections opens one of its own each time', async () => {
    const server = await serve((response) => response.end('ok'));
    await httpCall(server.url, { timeoutMs: 5000 });
    await httpCall(server.url, { timeoutMs: 5000 });
    expect(server.sockets()).toBe(2);
  });

  it('a server that sends no answer fails the call with AnswerTimeoutError', async () => {
    const server = await serve(() => {});
    await expect(httpCall(server.url, { timeoutMs: 200 })).rejects.toBeInstanceOf(
      AnswerTimeoutError,
    );
  });

  it('an answer whose body stops coming fails the call with AnswerTimeoutError', async () => {
    const server = await serve((response) => {
      response.writeHead(200, { 'content-length': '10' });
      response.write('half');
    });
    await expect(httpCall(server.url, { timeoutMs: 200 })).rejects.toBeInstanceOf(
      AnswerTimeoutError,
    );
  });

  it("an answer cut short fails the call with Node's ECONNRESET", async () => {
    const server = await serve((response) => {
      response.writeHead(200, { 'content-length': '10' });
      response.write('half', () => response.socket?.destroy());
    });
    await expect(httpCall(server.url, { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
  });

  it('a refused connection fails the call with ECONNREFUSED', async () => {
    const server = await serve(() => {});
    const url = server.url;
    for (const open of servers.splice(0)) await new Promise((resolve) => open.close(resolve));
    await expect(httpCall(url, { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('an aborted call ends at once with the abort', async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const call = httpCall(server.url, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });
});
