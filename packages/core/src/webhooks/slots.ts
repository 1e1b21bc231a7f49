/**
 * Attempts in flight per key (a webhook, an account, the whole worker) under a bound, refilled
 * in batches: a key that reaches its bound stays full until a quarter of its slots are free
 * again. A busy receiver with a backlog is then topped up by one claim of several deliveries
 * (one write transaction) instead of one claim per attempt that ends.
 */
export class Slots {
  readonly #held = new Map<string, number>();
  readonly #full = new Set<string>();
  /** Free slots a full key waits for. */
  readonly #refill: number;

  constructor(readonly bound: number) {
    this.#refill = Math.max(1, Math.ceil(bound / 4));
  }

  take(key: string): void {
    const held = (this.#held.get(key) ?? 0) + 1;
    this.#held.set(key, held);
    if (held >= this.bound) this.#full.add(key);
  }

  give(key: string): void {
    const held = (this.#held.get(key) ?? 1) - 1;
    if (held <= 0) this.#held.delete(key);
    else this.#held.set(key, held);
    if (this.bound - held >= this.#refill) this.#full.delete(key);
  }

  /** Whether `key` reached its bound and is not refilled yet: no claim for it. */
  isFull(key: string): boolean {
    return this.#full.has(key);
  }

  get anyFull(): boolean {
    return this.#full.size > 0;
  }

  /** Slots `key` may take now: none while it is full. */
  room(key: string): number {
    return this.#full.has(key) ? 0 : this.bound - (this.#held.get(key) ?? 0);
  }

  /** What each key holds, as a claim counts it: a full key at its bound, so the claim leaves it out. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const [key, held] of this.#held) counts[key] = this.#full.has(key) ? Math.max(held, this.bound) : held;
    return counts;
  }
}
