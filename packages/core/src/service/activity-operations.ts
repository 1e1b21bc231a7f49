import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { type Activity, ActivityInput } from "../resources/activity.ts";
import { type DeleteResult, paginate } from "../resources/common.ts";
import { ActivityListQuery, ActivityUpdateInput, toApiActivity } from "../resources/priced-activity.ts";
import type { ActivityStore } from "../storage/activity-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import { deleteActivity, insertActivity, updateActivity } from "./activity-changes.ts";
import type { ListResult, OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/**
 * Operations on the activity records of one account's events (docs/api.md, Activities):
 * what an event used, burned, served, shipped and threw away, each priced with the
 * storage's factor set when written.
 */
export interface ActivityOperations {
  /** Records an activity of the event. Throws `INVALID_REQUEST` (naming the field), `NOT_FOUND` (event). */
  create(eventId: string, input: ActivityInput): Promise<Activity>;
  /** One page of the event's activities, oldest first. Throws `INVALID_REQUEST` (query), `NOT_FOUND` (event). */
  list(eventId: string, query?: Record<string, unknown>): Promise<ListResult<"activities", Activity>>;
  /** Throws `NOT_FOUND`. */
  get(eventId: string, id: string): Promise<Activity>;
  /**
   * Partial update: the given fields are merged into the record and the whole is checked again.
   * Throws `INVALID_REQUEST` (naming the field; `kind` when it would change), `NOT_FOUND`.
   */
  update(eventId: string, id: string, input: ActivityUpdateInput): Promise<Activity>;
  /** Throws `NOT_FOUND`. */
  delete(eventId: string, id: string): Promise<DeleteResult>;
}

/** The activity operations of one account. */
export function createActivityOperations(
  storage: ActivityStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
): ActivityOperations {
  const { accountId, clock, queued } = context;

  const activities: ActivityOperations = {
    async create(eventId, input) {
      const parsed = parseInput(ActivityInput, input);
      const activity = await insertActivity(context, {
        accountId,
        eventId,
        activity: parsed,
        id: createId("activity"),
        now: clock().toISOString(),
      });
      queued();
      return toApiActivity(activity);
    },
    async list(eventId, query = {}) {
      const parsed = parseInput(ActivityListQuery, query, "query");
      const page = await storage.listActivities(accountId, eventId, parsed);
      // An empty page may be an event of another account: that is a 404, as for its other sub-resources.
      if (page.total === 0 && !(await storage.getEvent(accountId, eventId, context.carbon)))
        throw notFound("Event", eventId);
      return {
        activities: page.items.map(toApiActivity),
        pagination: paginate(parsed.page, parsed.limit, page.total),
      };
    },
    async get(eventId, id) {
      const activity = await storage.getActivity(accountId, eventId, id);
      if (!activity) throw notFound("Activity", id);
      return toApiActivity(activity);
    },
    async update(eventId, id, input) {
      const parsed = parseInput(ActivityUpdateInput, input);
      const activity = await updateActivity(context, {
        accountId,
        eventId,
        id,
        patch: parsed,
        now: clock().toISOString(),
      });
      queued();
      return toApiActivity(activity);
    },
    async delete(eventId, id) {
      const deleted = await deleteActivity(context, { accountId, eventId, id, now: clock().toISOString() });
      queued();
      if (!deleted) throw notFound("Activity", id);
      return { success: true, message: `Activity ${id} was deleted.`, deletedId: id };
    },
  };

  return activities;
}
