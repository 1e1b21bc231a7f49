import type { ActivityListQuery, PricedActivity } from "../resources/priced-activity.ts";
import type { Page } from "./common.ts";

/**
 * Reads of activity records, outside a transaction. Records are written in transactions
 * (`TransactionStore`: `tx.activities`, under their event's lock), by the business transactions
 * of `service/`, priced with the storage's factor set before they are written.
 */
export interface ActivityStore {
  /** The account's activity `id` of event `eventId` with its stored figures, or `null` (another account's or event's too). */
  getActivity(accountId: string, eventId: string, id: string): Promise<PricedActivity | null>;
  /** One page of the account's activities of the event, oldest first (`createdAt`, then `id`). */
  listActivities(accountId: string, eventId: string, query: ActivityListQuery): Promise<Page<PricedActivity>>;
}
