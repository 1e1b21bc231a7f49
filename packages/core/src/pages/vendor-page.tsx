import { renderDocument } from "../_internal/html-document.tsx";
import { localDateTime } from "../_internal/local-time.ts";
import type { LinkContext } from "../operations/context.ts";
import { VENDOR_LINK_OPERATIONS } from "../operations/vendor-link.ts";
import type { VendorRequest } from "../resources/vendor.ts";
import { field, type LinkPage, type PageState, runLinkOperation } from "./link-page.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** What the page says after each of its forms succeeded (`?done=`): a fixed text per note, never the query's own. */
const DONE: Readonly<Record<string, string>> = {
  confirmed: "You confirmed the booking. Thank you!",
  declined: "You declined the booking. The organiser has been told.",
};

const STATUS_TEXT: Readonly<Record<VendorRequest["status"], string>> = {
  requested: "Waiting for your answer",
  confirmed: "Confirmed",
  declined: "Declined",
  cancelled: "Cancelled by the organiser",
};

function Notices({ state }: { state: PageState }) {
  const done = state.done === null ? undefined : DONE[state.done];
  return (
    <>
      {done !== undefined && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {state.error && (
        <p class="error" role="alert">
          {state.error.message}
        </p>
      )}
    </>
  );
}

function Answer({ state }: { state: PageState }) {
  return (
    <section aria-labelledby="answer-title">
      <h2 id="answer-title">Your answer</h2>
      <form method="post">
        <label for="message">Message</label>
        <textarea id="message" name="message" maxLength={2000}>
          {state.form?.get("message") ?? ""}
        </textarea>
        <div class="actions">
          <button type="submit" name="action" value="confirm">
            Confirm
          </button>
          <button type="submit" name="action" value="decline" class="secondary">
            Decline
          </button>
        </div>
      </form>
    </section>
  );
}

/** The vendor's page at its link: what is asked, for which event, and the vendor's answer. */
export function renderVendorPage(request: VendorRequest, state: PageState): string {
  const { event } = request;
  return renderDocument({
    title: `${event.name}: booking for ${request.vendor.name}`,
    style: PAGE_STYLE,
    children: (
      <main>
        <Notices state={state} />
        <h1>{event.name}</h1>
        <section aria-labelledby="booking-title">
          <h2 id="booking-title">Booking for {request.vendor.name}</h2>
          <dl>
            <dt>When</dt>
            <dd>
              {localDateTime(event.startDate, null)} to {localDateTime(event.endDate, null)}
            </dd>
            <dt>Where</dt>
            <dd>
              {event.location.city}, {event.location.country}
            </dd>
            <dt>Services</dt>
            <dd>{request.services}</dd>
            <dt>Status</dt>
            <dd>
              <span class="status">{STATUS_TEXT[request.status]}</span>
            </dd>
          </dl>
        </section>
        {request.status === "requested" && <Answer state={state} />}
      </main>
    ),
  });
}

/** The vendor's page and its forms, over the operations of the vendor's link. */
export const VENDOR_PAGE: LinkPage<LinkContext> = {
  async render(link, state) {
    const request = (await runLinkOperation(VENDOR_LINK_OPERATIONS, "link.view", link, {})) as VendorRequest;
    return renderVendorPage(request, state);
  },
  actions: {
    async confirm(link, form) {
      await runLinkOperation(VENDOR_LINK_OPERATIONS, "link.confirm", link, {}, { message: field(form, "message") });
      return "confirmed";
    },
    async decline(link, form) {
      await runLinkOperation(VENDOR_LINK_OPERATIONS, "link.decline", link, {}, { message: field(form, "message") });
      return "declined";
    },
  },
};
