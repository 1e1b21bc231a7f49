import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EventListQuery, EventWithStats } from "../resources/event.ts";
import type { Page } from "./common.ts";

/**
 * Reads of events with the figures kept on them, outside a transaction. Events are written in
 * transactions (`TransactionStore`: `tx.events`), by the business transactions of `service/`.
 */
export interface EventStore {
  /** The account's event with its figures (its score under `carbon`), or `null`. */
  getEvent(accountId: string, id: string, carbon: CarbonSettings): Promise<EventWithStats | null>;
  /** One page of the account's events, filtered and sorted as the query says (ties broken by id; `minScore` under `carbon`). */
  listEvents(accountId: string, query: EventListQuery, carbon: CarbonSettings): Promise<Page<EventWithStats>>;
}
