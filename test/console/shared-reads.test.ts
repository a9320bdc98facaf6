import { describe, expect, it, vi } from 'vitest';
import { SharedReads } from '../../server/console/shared-reads.ts';

/** Reads that answer when told, in the order they started. */
function reads() {
  const started: { key: string; answer: (value: string) => void }[] = [];
  const read = (key: string) => () =>
    new Promise<string>((answer) => {
      started.push({ key, answer });
    });
  return { started, read };
}

describe('reads shared by requests that arrive together', () => {
  it('a request that arrives while a read runs gets the next read, shared with those after it', async () => {
    const shared = new SharedReads();
    const { started, read } = reads();
    const first = shared.read('jobs:1', read('jobs:1'));
    const second = shared.read('jobs:1', read('jobs:1'));
    const third = shared.read('jobs:1', read('jobs:1'));
    expect(started).toHaveLength(1);
    started[0]!.answer('before');
    expect(await first).toBe('before');
    await vi.waitFor(() => expect(started).toHaveLength(2));
    started[1]!.answer('after');
    expect(await second).toBe('after');
    expect(await third).toBe('after');
  });

  it("one company's read is never another's", async () => {
    const shared = new SharedReads();
    const { started, read } = reads();
    const mine = shared.read('overview:1', read('overview:1'));
    const theirs = shared.read('overview:2', read('overview:2'));
    expect(started.map((s) => s.key)).toEqual(['overview:1', 'overview:2']);
    for (const s of started) s.answer(s.key);
    expect(await mine).toBe('overview:1');
    expect(await theirs).toBe('overview:2');
  });
});
