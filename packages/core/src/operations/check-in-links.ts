import { CheckInLink, CheckInLinkCreateInput, CheckInLinkListQuery } from "../resources/check-in-link.ts";
import { DeleteResult } from "../resources/common.ts";
import { accountOperation } from "./context.ts";
import { listOf } from "./define.ts";

/** The organiser's operations on an event's check-in links: the door staff's links, each opening its event's door. */
export const CHECK_IN_LINK_OPERATIONS = [
  accountOperation({
    id: "events.createCheckInLink",
    client: "events.checkInLinks.create",
    method: "POST",
    path: "/events/:id/check-in-links",
    scope: "attendees:write",
    tag: "Events",
    operationId: "createCheckInLink",
    summary:
      "Make a check-in link for the event's door (no API key needed to use it): its `url` is shown in this answer only",
    body: CheckInLinkCreateInput,
    bodyOptional: true,
    example: ({ endDate }) => ({ label: "North gate", expiresAt: endDate }),
    response: {
      status: 201,
      schema: CheckInLink,
      name: "CheckInLink",
      description: "The link, with its url (shown once)",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, body }) => account.checkInLinks.create(params.id, body),
    // The token is not kept: a replay shows the link without it.
    replay: (link) => ({ ...link, url: null }),
  }),
  accountOperation({
    id: "events.listCheckInLinks",
    client: "events.checkInLinks.list",
    method: "GET",
    path: "/events/:id/check-in-links",
    scope: "attendees:read",
    tag: "Events",
    operationId: "listCheckInLinks",
    summary: "List the event's check-in links, oldest first (without their url)",
    query: CheckInLinkListQuery,
    response: {
      status: 200,
      schema: listOf("checkInLinks", CheckInLink),
      name: "CheckInLinkList",
      description: "One page of the event's check-in links",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, query }) => account.checkInLinks.list(params.id, query),
  }),
  accountOperation({
    id: "events.revokeCheckInLink",
    client: "events.checkInLinks.revoke",
    method: "DELETE",
    path: "/events/:id/check-in-links/:linkId",
    scope: "attendees:write",
    tag: "Events",
    operationId: "revokeCheckInLink",
    summary: "Revoke a check-in link: it opens nothing from the next request on, on every server",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The revocation" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.checkInLinks.revoke(params.id, params.linkId),
  }),
];
