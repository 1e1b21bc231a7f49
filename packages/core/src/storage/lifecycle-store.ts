import type { EmissionFactorSet } from "../carbon/emission-factors.ts";

/** What one purge removed. */
export interface PurgeResult {
  idempotencyKeys: number;
  deliveries: number;
  attempts: number;
}

/**
 * The store's lifecycle: its schema, a round trip, its release, and the purge of what is kept no
 * longer.
 * Each method is atomic (see `Storage`).
 */
export interface StorageLifecycle {
  /**
   * The travel emission factors the kept figures are computed with (`carbonFootprint`,
   * analytics); `DEFAULT_EMISSION_FACTORS` unless the storage was made with another set.
   */
  emissionFactors?: EmissionFactorSet;
  /**
   * Brings the schema up to date, then the kept figures: when the storage was given a factor set
   * and the stored figures were computed with another, recomputes every event's emissions from its
   * registrations in one transaction and records the set. Idempotent; safe to call from several
   * processes at once.
   */
  migrate(): Promise<void>;
  /** A round trip to the store; throws when it cannot be reached. */
  ping(): Promise<void>;
  /** Releases the store. No method may be called afterwards. */
  close(): Promise<void>;
  /**
   * Deletes what is kept no longer, and returns how many records went: the idempotency
   * records expired by `now`, and the deliveries (with their attempts) last active (`updatedAt`:
   * created, attempted or redelivered) before `deliveriesBefore` that will never be sent again:
   * `succeeded` and `failed` ones, and `pending` ones of an inactive webhook that no worker
   * holds. A pending delivery of an active webhook is never deleted. Works in small
   * transactions, so the API's writes are not held up; each is atomic.
   */
  purgeExpired(purge: { now: string; deliveriesBefore: string }): Promise<PurgeResult>;
}
