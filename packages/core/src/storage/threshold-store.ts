import type { ThresholdListQuery, ThresholdMetric, ThresholdRecord } from "../resources/threshold.ts";
import type { Page } from "./common.ts";

/**
 * Configured thresholds (`resources/threshold.ts`). Each method is atomic (see `Storage`);
 * judging them is a step of the business transactions of registrations, over
 * `storage.transaction` (`tx.thresholds`).
 */
export interface ThresholdStore {
  /**
   * Stores a new threshold. One set for an event stores only while the account has that event,
   * checked under the event's lock in the same transaction; returns `false`, storing nothing,
   * when it has none (a missing event, or another account's).
   */
  insertThreshold(threshold: ThresholdRecord): Promise<boolean>;
  /** The account's threshold, or `null`. */
  getThreshold(accountId: string, id: string): Promise<ThresholdRecord | null>;
  /**
   * Writes `threshold` (found by its id and account) as given but its id, account and creation
   * time, under its row's lock; when `resetState` is set, forgets its crossing state for every
   * event (it is judged afresh at the next change of its metric). Like `insertThreshold`, a new
   * `eventId` must name the account's event: `"no-event"` otherwise, writing nothing;
   * `"not-found"` when the account has no such threshold.
   */
  updateThreshold(threshold: ThresholdRecord, resetState: boolean): Promise<"updated" | "not-found" | "no-event">;
  /** Deletes the account's threshold and its crossing state; the deleted record, or `null`. */
  deleteThreshold(accountId: string, id: string): Promise<ThresholdRecord | null>;
  /** One page of the account's thresholds, newest first (ties by id). */
  listThresholds(accountId: string, query: ThresholdListQuery): Promise<Page<ThresholdRecord>>;
}

/** A threshold's crossing state for one event: reached or not, as of the last change that moved its metric. */
export interface ThresholdState {
  thresholdId: string;
  reached: boolean;
}

/** Thresholds in a write transaction (`tx.thresholds`), under the event's lock. */
export interface ThresholdWrites {
  /**
   * The account's thresholds that apply to the event (its own and the account-wide ones) of
   * the given metrics (all when left out), oldest first. Locks them against deletion and change
   * until the transaction ends (PostgreSQL: `FOR KEY SHARE`, which concurrent registrations of
   * other events share), so their state rows can be written; one deleted meanwhile is not listed.
   */
  applicable(accountId: string, eventId: string, metrics?: readonly ThresholdMetric[]): Promise<ThresholdRecord[]>;
  /** The event's crossing state of each of `thresholdIds` that has one (no row: not reached). Exact under the event's lock. */
  states(eventId: string, thresholdIds: readonly string[]): Promise<ThresholdState[]>;
  /**
   * Sets the crossing state of a threshold listed by {@link applicable} for the event (an upsert
   * on the pair). Call it under the event's lock, which serialises the writers of the event's
   * states; the primary key on the pair is the backstop.
   */
  setState(thresholdId: string, eventId: string, reached: boolean, at: string): Promise<void>;
  /** True when the account has a threshold of `metric`, for any of its events or all of them. Takes no lock. */
  accountHas(accountId: string, metric: ThresholdMetric): Promise<boolean>;
}
