import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../server/templates/fair-queue.ts';

/** Takes every waiting item, finishing each before the next (one thread). */
function serveOneByOne<T>(queue: FairQueue<T>): T[] {
  const order: T[] = [];
  for (let next = queue.shift(); next; next = queue.shift()) {
    order.push(next.item);
    queue.done(next.owner);
  }
  return order;
}

describe('FairQueue: companies served in turn, each in the order it sent', () => {
  it("one company's many items never keep another's single one waiting behind them", () => {
    const queue = new FairQueue<string>(100);
    for (let i = 1; i <= 10; i++) queue.push(1, `a${i}`);
    queue.push(2, 'b1');
    expect(serveOneByOne(queue).slice(0, 3)).toEqual(['a1', 'b1', 'a2']);
  });

  it('takes the companies round robin, each FIFO, and a company that comes back goes last', () => {
    const queue = new FairQueue<string>(100);
    queue.push(1, 'a1');
    queue.push(1, 'a2');
    queue.push(2, 'b1');
    queue.push(3, 'c1');
    queue.push(2, 'b2');
    const first = queue.shift()!;
    queue.done(first.owner);
    queue.push(1, 'a3');
    expect([first.item, ...serveOneByOne(queue)]).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(queue.shift()).toBeUndefined();
  });

  it('gives a free thread to the company with the fewest renders running, though another came first', () => {
    const queue = new FairQueue<string>(100);
    queue.push(1, 'a1');
    const running = queue.shift()!; // company 1 holds a thread
    expect(running.item).toBe('a1');
    queue.push(1, 'a2');
    queue.push(2, 'b1');
    expect(queue.shift()!.item).toBe('b1');
    queue.push(2, 'b2');
    // Both now hold one thread: company 1 has waited longest.
    expect(queue.shift()!.item).toBe('a2');
  });

  it("refuses a company's item past its cap, unless forced; others are not affected", () => {
    const queue = new FairQueue<string>(2);
    expect(queue.push(1, 'a1')).toBe(true);
    expect(queue.push(1, 'a2')).toBe(true);
    expect(queue.push(1, 'a3')).toBe(false);
    expect(queue.push(2, 'b1')).toBe(true);
    expect(queue.push(1, 'claim', true)).toBe(true);
    expect(queue.waiting(1)).toBe(3);
    expect(queue.size).toBe(4);
  });

  it('removes an item that is no longer wanted, and drains on close', () => {
    const queue = new FairQueue<string>(10);
    queue.push(1, 'a1');
    queue.push(2, 'b1');
    queue.push(2, 'b2');
    expect(queue.remove(1, 'a1')).toBe(true);
    expect(queue.remove(1, 'a1')).toBe(false);
    expect(queue.shift()!.item).toBe('b1');
    queue.push(3, 'c1');
    expect(queue.drain().sort()).toEqual(['b2', 'c1']);
    expect(queue.size).toBe(0);
  });
});
