import { requireService } from './services.ts';

/**
 * The Redis the tests use (`SHOPDESK_TEST_REDIS`, default 127.0.0.1:6379). Without one that
 * answers, the test is skipped with a line saying so (or fails with it in CI:
 * test/helpers/services.ts), instead of failing on a count that a server with no Redis kept
 * in its own memory.
 */
export async function testRedisUrl(): Promise<string> {
  await requireService('redis');
  return process.env.SHOPDESK_TEST_REDIS ?? 'redis://127.0.0.1:6379';
}
