import pg from 'pg';

/** The SQL texts `pg` sent while `work` ran (other work of the server included). */
export async function sentDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; sent: string[] }> {
  const sent: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function spy(this: unknown, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return original.apply(this, args);
  };
  try {
    return { result: await work(), sent };
  } finally {
    prototype.query = original;
  }
}

/** How many of the sent texts match `pattern`. */
export const count = (sent: string[], pattern: RegExp) =>
  sent.filter((text) => pattern.test(text)).length;
