/**
 * Waiting work of several owners (companies), served fairly: each owner's items in the
 * order they came; the next item is the first of the owner with the fewest items running
 * now, and among equals of the owner served least recently (round robin). So one owner's many items
 * never keep another's single one waiting behind them, and one owner never holds every
 * thread while another waits. Each owner may have at most `maxPerOwner` items waiting;
 * `push` refuses one more unless it is `forced`.
 */
export class FairQueue<T> {
  readonly maxPerOwner: number;
  /** The owners with waiting items, in the order they take turns (a Map keeps it). */
  readonly #owners = new Map<number, T[]>();
  /** Items taken (`shift`) and not yet `done`, by owner. */
  readonly #running = new Map<number, number>();
  /** When each owner with items waiting or running was last served (a count of shifts). */
  readonly #served = new Map<number, number>();
  #shifts = 0;
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

  /**
   * The next item and its owner: the first of the owner with the fewest running, served
   * least recently among equals (one never served, or idle since, first; then the order
   * they came). Counted as running until `done(owner)`.
   */
  shift(): { owner: number; item: T } | undefined {
    let chosen: number | undefined;
    let best = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (const owner of this.#owners.keys()) {
      const rank = [this.#running.get(owner) ?? 0, this.#served.get(owner) ?? -1];
      if (rank[0]! < best[0]! || (rank[0] === best[0] && rank[1]! < best[1]!)) {
        [chosen, best] = [owner, rank];
      }
    }
    if (chosen === undefined) return undefined;
    const line = this.#owners.get(chosen)!;
    const item = line.shift()!;
    if (line.length === 0) this.#owners.delete(chosen);
    this.#running.set(chosen, best[0]! + 1);
    this.#served.set(chosen, this.#shifts++);
    this.#size -= 1;
    return { owner: chosen, item };
  }

  /** An item of `owner` taken by `shift` has finished. */
  done(owner: number): void {
    const running = (this.#running.get(owner) ?? 0) - 1;
    if (running > 0) {
      this.#running.set(owner, running);
      return;
    }
    this.#running.delete(owner);
    // Idle now: its turn is forgotten, and the maps hold only the owners with work.
    if (!this.#owners.has(owner)) this.#served.delete(owner);
  }

  /** Takes `item` out of its owner's line (its request went away); false if it is not there. */
  remove(owner: number, item: T): boolean {
    const line = this.#owners.get(owner);
    const at = line?.indexOf(item) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) {
      this.#owners.delete(owner);
      if (!this.#running.has(owner)) this.#served.delete(owner);
    }
    this.#size -= 1;
    return true;
  }

  /** Every waiting item, emptied out (the pool closes). */
  drain(): T[] {
    const items = [...this.#owners.values()].flat();
    this.#owners.clear();
    this.#served.clear();
    this.#size = 0;
    return items;
  }
}
