import { Activity, ActivityInput } from "../resources/activity.ts";
import { DeleteResult } from "../resources/common.ts";
import { ActivityListQuery, ActivityUpdateInput } from "../resources/priced-activity.ts";
import { listOf } from "./define.ts";
import { accountOperation } from "./context.ts";

/** The activities recorded for an event (energy, catering, travel, ...), priced. */
export const ACTIVITY_OPERATIONS = [
  accountOperation({
    id: "activities.create",
    method: "POST",
    path: "/events/:id/activities",
    scope: "events:write",
    tag: "Activities",
    operationId: "createActivity",
    summary:
      "Record an activity of the event (energy, fuel, catering, accommodation, materials, freight, waste, water, staff travel)",
    body: ActivityInput,
    example: () => ({
      kind: "electricity",
      quantity: 1200,
      unit: "kWh",
      source: "grid",
      note: "Venue meter, main hall",
    }),
    response: {
      status: 201,
      schema: Activity,
      name: "Activity",
      description: "The activity, priced with the factor set in use",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, body }) => account.activities.create(params.id, body),
  }),
  accountOperation({
    id: "activities.list",
    method: "GET",
    path: "/events/:id/activities",
    scope: "events:read",
    tag: "Activities",
    operationId: "listActivities",
    summary: "List the event's activities, oldest first",
    query: ActivityListQuery,
    response: {
      status: 200,
      schema: listOf("activities", Activity),
      name: "ActivityList",
      description: "One page of activities",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, query }) => account.activities.list(params.id, query),
  }),
  accountOperation({
    id: "activities.get",
    method: "GET",
    path: "/events/:id/activities/:activityId",
    scope: "events:read",
    tag: "Activities",
    operationId: "getActivity",
    summary: "Get an activity",
    response: { status: 200, schema: Activity, name: "Activity", description: "The activity" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.activities.get(params.id, params.activityId),
  }),
  accountOperation({
    id: "activities.update",
    method: "PUT",
    path: "/events/:id/activities/:activityId",
    scope: "events:write",
    tag: "Activities",
    operationId: "updateActivity",
    summary: "Update an activity (partial; the result is checked whole, and its kind cannot change)",
    body: ActivityUpdateInput,
    example: () => ({ quantity: 1350, dataQuality: "measured" }),
    response: { status: 200, schema: Activity, name: "Activity", description: "The updated activity, priced again" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, body }) => account.activities.update(params.id, params.activityId, body),
  }),
  accountOperation({
    id: "activities.delete",
    method: "DELETE",
    path: "/events/:id/activities/:activityId",
    scope: "events:write",
    tag: "Activities",
    operationId: "deleteActivity",
    summary: "Delete an activity",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.activities.delete(params.id, params.activityId),
  }),
];
