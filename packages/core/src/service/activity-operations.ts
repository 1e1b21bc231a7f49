import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import type { ActivityInput } from "../resources/activity.ts";
import { paginate } from "../resources/common.ts";
import { type ActivityListQuery, type ActivityUpdateInput, toApiActivity } from "../resources/priced-activity.ts";
import type { ActivityStore } from "../storage/activity-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import { deleteActivity, insertActivity, updateActivity } from "./activity-changes.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** The activity operations of one account. */
export function createActivityOperations(
  storage: ActivityStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
) {
  const { accountId, clock, queued } = context;

  const activities = {
    async create(eventId: string, parsed: z.output<typeof ActivityInput>) {
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
    async list(eventId: string, parsed: z.output<typeof ActivityListQuery>) {
      const page = await storage.listActivities(accountId, eventId, parsed);
      // An empty page may be an event of another account: that is a 404, as for its other sub-resources.
      if (page.total === 0 && !(await storage.getEvent(accountId, eventId, context.carbon)))
        throw notFound("Event", eventId);
      return {
        activities: page.items.map(toApiActivity),
        pagination: paginate(parsed.page, parsed.limit, page.total),
      };
    },
    async get(eventId: string, id: string) {
      const activity = await storage.getActivity(accountId, eventId, id);
      if (!activity) throw notFound("Activity", id);
      return toApiActivity(activity);
    },
    async update(eventId: string, id: string, parsed: z.output<typeof ActivityUpdateInput>) {
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
    async delete(eventId: string, id: string) {
      const deleted = await deleteActivity(context, { accountId, eventId, id, now: clock().toISOString() });
      queued();
      if (!deleted) throw notFound("Activity", id);
      return { success: true as const, message: `Activity ${id} was deleted.`, deletedId: id };
    },
  };

  return activities;
}
