/**
 * Waiting work of several owners (companies), served fairly: each owner's items in the
 * order they came, the owners in turn (round robin), so one owner's many items never keep
 * another's single one waiting behind them. Each owner may have at most `maxPerOwner` items
 * waiting; `push` refuses one more unless it is `forced`.
 */
export class FairQueue<T> {
  readonly maxPerOwner: number;
  /** The owners with waiting items, in the order they are served next (a Map keeps it). */
  readonly #owners = new Map<number, T[]>();
  #size = 0;

  constructor(maxPerOwner: number) {
    this.maxPerOwner = maxPerOwner;
  }

  get size(): number {
    return this.#size;
  }

  /** Items `owner` has waiting. */
  waiting(owner: number): number {
    return this.#owners.get(owner)?.length ?? 0;
  }

  /** Adds `item` at the end of its owner's line; false (nothing added) when that is full. */
  push(owner: number, item: T, forced = false): boolean {
    const line = this.#owners.get(owner);
    if (!line) {
      this.#owners.set(owner, [item]);
    } else {
      if (!forced && line.length >= this.maxPerOwner) return false;
      line.push(item);
    }
    this.#size += 1;
    return true;
  }

  /** The next item: the first of the owner whose turn it is, who then goes to the back. */
  shift(): T | undefined {
    const next = this.#owners.entries().next();
    if (next.done) return undefined;
    const [owner, line] = next.value;
    const item = line.shift()!;
    this.#owners.delete(owner);
    if (line.length > 0) this.#owners.set(owner, line);
    this.#size -= 1;
    return item;
  }

  /** Takes `item` out of its owner's line (its request went away); false if it is not there. */
  remove(owner: number, item: T): boolean {
    const line = this.#owners.get(owner);
    const at = line?.indexOf(item) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.#owners.delete(owner);
    this.#size -= 1;
    return true;
  }

  /** Every waiting item, emptied out (the pool closes). */
  drain(): T[] {
    const items = [...this.#owners.values()].flat();
    this.#owners.clear();
    this.#size = 0;
    return items;
  }
}
