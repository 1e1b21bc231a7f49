/**
 * Attempts in flight under a bound, refilled in batches: a bound that is reached closes to new
 * claims until a quarter of its slots are free again. A busy receiver with a backlog is then
 * topped up by one claim of several deliveries (one write transaction) instead of one claim per
 * attempt that ends.
 */
export class Slots {
  #held = 0;
  #closed = false;
  /** Free slots a closed bound waits for. */
  readonly #reopenAt: number;

  constructor(readonly bound: number) {
    this.#reopenAt = Math.max(1, Math.ceil(bound / 4));
  }

  /** Slots taken now. */
  get held(): number {
    return this.#held;
  }

  take(): void {
    this.#held += 1;
    if (this.#held >= this.bound) this.#closed = true;
  }

  give(): void {
    this.#held = Math.max(0, this.#held - 1);
    if (this.bound - this.#held >= this.#reopenAt) this.#closed = false;
  }

  /** True from reaching the bound until a quarter of the slots are free: no claim meanwhile, though some slots may be free. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Slots a claim may take now: none while closed. */
  get room(): number {
    return this.#closed ? 0 : this.bound - this.#held;
  }
}

/** {@link Slots} per key (a webhook, an account), each under the same bound. */
export class KeyedSlots {
  readonly #byKey = new Map<string, Slots>();
  #closedKeys = 0;

  constructor(readonly bound: number) {}

  take(key: string): void {
    let slots = this.#byKey.get(key);
    if (!slots) this.#byKey.set(key, (slots = new Slots(this.bound)));
    const wasClosed = slots.closed;
    slots.take();
    if (!wasClosed && slots.closed) this.#closedKeys += 1;
  }

  give(key: string): void {
    const slots = this.#byKey.get(key);
    if (!slots) return;
    const wasClosed = slots.closed;
    slots.give();
    if (wasClosed && !slots.closed) this.#closedKeys -= 1;
    if (slots.held === 0 && !slots.closed) this.#byKey.delete(key);
  }

  /** Whether `key` reached its bound and has not reopened yet (see {@link Slots.closed}). */
  isClosed(key: string): boolean {
    return this.#byKey.get(key)?.closed ?? false;
  }

  /** Whether any key is closed. */
  get anyClosed(): boolean {
    return this.#closedKeys > 0;
  }

  /** The room of each key that holds slots; any other key has the whole bound. */
  room(): { each: number; left: Record<string, number> } {
    const left: Record<string, number> = {};
    for (const [key, slots] of this.#byKey) left[key] = slots.room;
    return { each: this.bound, left };
  }
}

/** The bounds of {@link DeliverySlots}. */
export interface DeliveryBounds {
  /** Attempts in flight at once, over all webhooks. */
  total: number;
  perWebhook: number;
  perAccount: number;
}

/**
 * A worker's attempts in flight under its three bounds (in all, per webhook, per account): the
 * one owner of those bounds. A claim asks it how much it may take; the storage only hands out no
 * more than that.
 */
export class DeliverySlots {
  readonly #total: Slots;
  readonly #byWebhook: KeyedSlots;
  readonly #byAccount: KeyedSlots;

  constructor(bounds: DeliveryBounds) {
    this.#total = new Slots(bounds.total);
    this.#byWebhook = new KeyedSlots(bounds.perWebhook);
    this.#byAccount = new KeyedSlots(bounds.perAccount);
  }

  take(delivery: { webhookId: string; accountId: string }): void {
    this.#total.take();
    this.#byWebhook.take(delivery.webhookId);
    this.#byAccount.take(delivery.accountId);
  }

  /** Gives a delivery's slots back; true when a claim may now take its place (none of its bounds is still closed). */
  give(delivery: { webhookId: string; accountId: string }): boolean {
    this.#total.give();
    this.#byWebhook.give(delivery.webhookId);
    this.#byAccount.give(delivery.accountId);
    return (
      !this.#total.closed &&
      !this.#byWebhook.isClosed(delivery.webhookId) &&
      !this.#byAccount.isClosed(delivery.accountId)
    );
  }

  /** What the next claim may take: in all, and per webhook and account. */
  claimRoom() {
    return { limit: this.#total.room, webhookRoom: this.#byWebhook.room(), accountRoom: this.#byAccount.room() };
  }

  /** True while some webhook or account is closed: its backlog is probably most of what is due. */
  get anyKeyClosed(): boolean {
    return this.#byWebhook.anyClosed || this.#byAccount.anyClosed;
  }
}
