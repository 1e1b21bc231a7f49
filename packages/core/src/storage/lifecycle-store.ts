import { ServiceError } from "../errors.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";

/**
 * Why the store cannot serve now, as a `503`'s `details.fault` and `/health` say it:
 * unreachable (down, restarting, connection lost), timeout (a statement, a lock wait or the wait
 * for a pooled connection past its limit; SQLite's busy timeout), overloaded (out of connections
 * or memory), disk_full, read_only, io_error.
 */
export const STORE_FAULTS = ["unreachable", "timeout", "overloaded", "disk_full", "read_only", "io_error"] as const;
export type StoreFault = (typeof STORE_FAULTS)[number];

/** The faults that stop writes while reads may still work: `/health` then probes with a write until one succeeds. */
export const WRITE_FAULTS: readonly StoreFault[] = ["disk_full", "read_only"];

/** What a 503 of the store says, by fault. */
const FAULT_MESSAGES: Record<StoreFault, string> = {
  unreachable: "The store cannot be reached; retry shortly.",
  timeout: "The store did not answer in time; retry shortly.",
  overloaded: "The store is out of connections or resources; retry shortly.",
  disk_full: "The store cannot write: its disk is full.",
  read_only: "The store cannot write: it is read-only.",
  io_error: "The store failed to read or write; retry shortly.",
};

/** `503 SERVICE_UNAVAILABLE` for a fault of the store, with `Retry-After` and the fault in `details.fault`. */
export function storeUnavailable(fault: StoreFault, cause?: unknown): ServiceError {
  return new ServiceError("SERVICE_UNAVAILABLE", {
    message: FAULT_MESSAGES[fault],
    details: { fault },
    headers: { "retry-after": "5" },
    cause,
  });
}

/** What one purge removed. */
export interface PurgeResult {
  idempotencyKeys: number;
  deliveries: number;
  attempts: number;
  /** Emails of the email outbox, sent, failed or skipped. */
  emails: number;
}

/**
 * The store's lifecycle: its schema, a round trip, its release, and the purge of what is kept no
 * longer.
 * Each method is atomic (see `Storage`).
 */
export interface StorageLifecycle {
  /** The latest of {@link factorSets} (`DEFAULT_EMISSION_FACTORS` unless the storage was made with a later set). */
  emissionFactors?: EmissionFactorSet;
  /** The factor sets, one per year, the kept figures are computed with (each event by its start's year). */
  factorSets?: FactorSets;
  /**
   * Brings the schema up to date, then the kept figures: when the storage was given its factor
   * sets, prices again, in one transaction, every event whose set changed (its start's year now
   * falls to another set, or its set's factors changed): its travel emissions and tallies from
   * its registrations, its activity records, and records the set. Events whose set is unchanged
   * keep their figures. Idempotent; safe to call from several processes at once.
   */
  migrate(): Promise<void>;
  /**
   * A round trip to the store; throws when it cannot be reached. After a write failed for one of
   * the {@link WRITE_FAULTS}, a small real write instead, until one succeeds: so it throws while
   * the store cannot write.
   */
  ping(): Promise<void>;
  /** Releases the store. No method may be called afterwards. */
  close(): Promise<void>;
  /**
   * Deletes what is kept no longer, and returns how many records went: the idempotency
   * records expired by `now`, and the deliveries (with their attempts) last active (`updatedAt`:
   * created, attempted or redelivered) before `deliveriesBefore` that will never be sent again:
   * `succeeded` and `failed` ones, and `pending` ones of an inactive webhook that no worker
   * holds. A pending delivery of an active webhook is never deleted. And the emails of the email
   * outbox that are final (sent, failed, skipped) and last attempted before `emailsBefore`; a
   * pending one is never deleted. Works in small transactions, so the API's writes are not held
   * up; each is atomic.
   */
  purgeExpired(purge: { now: string; deliveriesBefore: string; emailsBefore: string }): Promise<PurgeResult>;
}
