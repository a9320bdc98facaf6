let seq = 0;

/** A valid create body with a fresh code; `override` replaces or (undefined) removes fields. */
export function body(override: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = {
    manage_stock: true,
    code: `CODE-${++seq}`,
    name: 'Widget',
    price: 10,
    unit: 'UN',
  };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

/** A value of exactly `length` characters, different on every call. */
export const uniq = (length: number) => `${++seq}`.padEnd(length, 'x').slice(0, length);
