import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';

/** A company of its own, so that lists count only what the test made. */
export async function freshCompany(server: TestServer) {
  const token = await server.token(await server.createCompany(), '*');
  const create = async (body: Record<string, unknown>) => {
    const answer = await server.request('POST', '/customers', {
      token,
      body: { type: 'F', ...body },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.data as { id: number; [key: string]: unknown };
  };
  const get = (path: string) => server.request('GET', path, { token });
  return { token, create, get };
}

export type FreshCompany = Awaited<ReturnType<typeof freshCompany>>;
