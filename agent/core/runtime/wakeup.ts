/**
 * Wakes a loop that waits for something to do: the poll loop while paused, the outbox loop
 * while empty or backing off, the heartbeat loop between heartbeats (the printers changed).
 * A wake with nobody waiting is dropped; each loop looks at its condition again before it
 * waits.
 */
export class Wakeup {
  private waiting: (() => void) | null = null;

  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting = resolve;
    });
  }

  wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}
