import { afterEach, describe, expect, it } from 'vitest';
import { Busy, InvalidFields } from '../../server/domain-errors.ts';
import { RenderPool, type RenderRequest } from '../../server/templates/render-pool.ts';

const escpos = { language: 'escpos', width_mm: 80 } as const;

/** A receipt that renders in a few ms. */
const small = (companyId: number): RenderRequest => ({
  companyId,
  template: { kind: 'receipt', source: '^^{{ shop }}\nTotal | {{ total }}\n=' },
  data: { shop: `Shop ${companyId}`, total: 4.3 },
  profile: escpos,
  format: 'raw',
});

/**
 * A PNG that takes a second or more on the 2-core machine the suite runs on (1,200 lines
 * and the most QR codes a document may have), within every input bound.
 */
const slow = (companyId: number): RenderRequest => ({
  companyId,
  template: {
    kind: 'receipt',
    source: `{% for i in (1..1200) %}line {{ i }} | {{ i }}.00\n{% endfor %}{% for q in (1..10) %}{code:${'Q'.repeat(900)}{{ q }}; option:qrcode,8}\n{% endfor %}`,
  },
  data: {},
  profile: escpos,
  format: 'png',
});

let pool: RenderPool | undefined;

/**
 * A pool whose threads run at nice 0, as every server of the suite renders
 * (docs/testing.md): at the threads' usual nice 19 the suite's other processes (load 8 on
 * two cores) starved them, and renders passed their time limits (the budget, Liquid's own
 * 1 s) on wall time alone.
 */
const poolOf = (limits: ConstructorParameters<typeof RenderPool>[0]) =>
  new RenderPool({ niceness: 0, ...limits });
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('RenderPool', () => {
  it('starts no thread until the first render, renders there, and a refusal comes back as a 422', async () => {
    pool = poolOf({ threads: 1 });
    expect(pool.started).toBe(false);
    const rendered = await pool.render(small(1));
    expect(pool.started).toBe(true);
    expect(rendered.contentType).toBe('application/vnd.escpos');
    expect(rendered.bytes.toString('latin1')).toContain('Shop 1');
    const refused = await pool
      .render({ ...small(1), data: { shop: 'x'.repeat(5000) } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidFields);
    expect(refused.errors['data.shop'][0]).toMatch(/at most 4096 characters/);
  });

  it('ends a thread whose render passes its time budget, and a fresh thread renders the next', async () => {
    // The render takes seconds here, its budget is 0.2 s (a warmed thread renders the small
    // receipt in a few ms): the test holds on a machine ten times faster.
    pool = poolOf({ threads: 1, budgetMs: 200 });
    await pool.render(small(1));
    const before = pool.threadsStarted;
    const refused = await pool.render(slow(1)).catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidFields);
    expect(refused.errors.data[0]).toBe(
      'The template could not be rendered with this data: it took longer than its budget of 0.2 s.',
    );
    const next = await pool.render(small(2));
    expect(next.bytes.toString('latin1')).toContain('Shop 2');
    expect(pool.threadsStarted).toBe(before + 1);
  });

  it('a render past the memory limit ends its thread cleanly: a 422 naming the limit, and the next renders', async () => {
    // A budget that never ends it first: near its limit a heap collects often and slowly.
    pool = poolOf({ threads: 1, memoryMb: 16, budgetMs: 120_000 });
    const refused = await pool.render(slow(1)).catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidFields);
    expect(refused.errors).toEqual({
      data: [
        'The template could not be rendered with this data: it needed more than its memory limit of 16 MB.',
      ],
    });
    expect((await pool.render(small(1))).bytes.toString('latin1')).toContain('Shop 1');
  });

  it("serves companies in turn: one company's slow renders do not queue another's behind them", async () => {
    // A budget that never ends a render here: the order is what is tested.
    pool = poolOf({ threads: 1, queuedPerCompany: 8, budgetMs: 600_000 });
    const finished: string[] = [];
    const track = (name: string, request: RenderRequest) =>
      pool!.render(request).then(() => finished.push(name));
    const all = [1, 2, 3, 4].map((i) => track(`slow ${i}`, slow(1)));
    // Company 2 asks last, while company 1's four wait: it is served second, not fifth.
    all.push(track('other company', small(2)));
    await Promise.all(all);
    expect(finished.indexOf('other company')).toBe(1);
  });

  it("refuses a company's preview past its queue (Busy: a 429), never a claim, and never another company", async () => {
    pool = poolOf({ threads: 1, queuedPerCompany: 2, budgetMs: 600_000 });
    const running = pool.render(slow(1));
    const waiting = [pool.render(slow(1)), pool.render(slow(1))];
    const refused = await pool.render(small(1)).catch((e) => e);
    expect(refused).toBeInstanceOf(Busy);
    expect(refused.message).toMatch(/2 renders waiting/);
    const claim = pool.render({ ...small(1), claim: true });
    const other = pool.render(small(2));
    await Promise.all([running, ...waiting, claim, other]);
  });
});
