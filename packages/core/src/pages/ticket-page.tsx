import { renderDocument } from "../_internal/html-document.tsx";
import { localDateTime } from "../_internal/local-time.ts";
import { ownEntry } from "../_internal/own-entry.ts";
import { TRAVEL_MODE_WORDS } from "../carbon/activity-words.ts";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { ServiceError } from "../errors.ts";
import type { TicketContext } from "../operations/context.ts";
import { TICKET_LINK_OPERATIONS } from "../operations/ticket-link.ts";
import type { Ticket } from "../resources/ticket-link.ts";
import { inMajorUnits } from "../rules/payments.ts";
import type { TicketOverview } from "../service/ticket-link-operations.ts";
import { field, type LinkPage, numberField, type PageState, runLinkOperation } from "./link-page.ts";
import { PAGE_STYLE } from "./page-style.ts";
import { FormError } from "./form-error.tsx";

/** What the page says after each of its forms succeeded (`?done=`): a fixed text per note, never the query's own. */
const DONE: Readonly<Record<string, string>> = {
  saved: "Your details were saved.",
  cancelled: "Your registration was cancelled.",
  payment_cancelled: "The payment was not made. You can pay with the Pay button below while your place is held.",
};

const PAYMENT_WORDS: Readonly<Record<NonNullable<Ticket["payment"]>["status"], string>> = {
  requires_payment: "Waiting for payment",
  paid: "Paid",
  failed: "The last payment failed",
  expired: "Not paid in time",
  refunded: "Refunded",
  partially_refunded: "Partly refunded",
};

/** The words of the fields an error may name, for "Emergency contact phone: ...". */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  dietaryPreferences: "Dietary preferences",
  "accessibilityNeeds.other": "Other accessibility needs",
  "emergencyContact.name": "Emergency contact name",
  "emergencyContact.phone": "Emergency contact phone",
  "emergencyContact.relationship": "Relationship",
  "carbonOffset.travelMode": "Travel mode",
  "carbonOffset.travelDistance": "Travel distance (km)",
};

/**
 * The refusals of the ticket link's operations in the attendee's words, by `details.reason`: the
 * API's messages name the registration's and the event's ids and give times in UTC, for a
 * developer; the page names neither and gives times in the event's time zone.
 */
const REFUSAL_WORDS: Readonly<Record<string, (ticket: Ticket) => string>> = {
  event_started: (ticket) =>
    `The event started on ${localDateTime(ticket.event.startDate, ticket.event.timeZone)}: your registration can no longer be changed or cancelled here.`,
  registration_cancelled: () => "This registration is cancelled: it can no longer be changed here.",
  not_priced: () => "This ticket is free: there is nothing to pay.",
  manual_payment: () =>
    "This ticket is paid to the organiser, in person or by bank transfer, not online: once the organiser records it, your ticket is confirmed here.",
  not_payable: () => "There is nothing to pay for this registration now.",
  payment_expired: (ticket) =>
    ticket.payment?.expiresAt
      ? `Your place was held for payment until ${localDateTime(ticket.payment.expiresAt, ticket.event.timeZone)}, and that time has passed.`
      : "The time to pay for your place has passed.",
};

/** A refusal as the page shows it: in the attendee's words where its reason has them ({@link REFUSAL_WORDS}), else as it is. */
function refusalInWords(error: ServiceError, ticket: Ticket): ServiceError {
  const reason = error.details?.reason;
  const words = ownEntry(REFUSAL_WORDS, typeof reason === "string" ? reason : undefined);
  if (words === undefined) return error;
  return new ServiceError(error.code, {
    message: words(ticket),
    ...(error.field !== undefined && { field: error.field }),
    ...(error.details !== undefined && { details: error.details }),
  });
}

/** Everything the page is drawn from. */
interface TicketView extends TicketOverview {
  state: PageState;
}

const when = (view: TicketView, timestamp: string) => localDateTime(timestamp, view.ticket.event.timeZone);
const money = (amount: number, currency: string) => inMajorUnits(amount, currency);

/** The registration's status in words. */
function statusWords(ticket: Ticket): string {
  const { attendee, payment } = ticket;
  switch (attendee.status) {
    case "confirmed":
      return "Confirmed";
    case "checked-in":
      return "Checked in";
    case "cancelled":
      return "Cancelled";
    case "waitlisted":
      return attendee.waitlistPosition === null
        ? "On the waiting list"
        : `On the waiting list, place ${attendee.waitlistPosition}`;
    case "pending":
      return payment && payment.amountDue > 0 ? "Waiting for payment" : "Waiting for the organiser's confirmation";
  }
}

/** The note after "Pay" came back: what Stripe's redirect says is not proof, so the payment's own status decides. */
function paidNote(ticket: Ticket): string {
  const { payment } = ticket;
  if (payment && payment.amountDue === 0 && payment.amountPaid > 0) return "Thank you — your payment was received.";
  return "Thank you — your payment is being confirmed. This page shows its status; reload it in a moment.";
}

/** Whether the refusal belongs beside the details form: it came from there, and the page draws it again. */
function detailsRefused(view: TicketView): boolean {
  return view.state.form?.get("action") === "save" && detailsShown(view);
}

/** Whether the page offers the details form: changes are still taken and the cancellation's step is not open. */
function detailsShown(view: TicketView): boolean {
  return view.ticket.changesAllowed && view.state.query.get("confirm") !== "cancel";
}

function Notices({ view }: { view: TicketView }) {
  const { state, ticket } = view;
  const done = state.done === "paid" ? paidNote(ticket) : ownEntry(DONE, state.done);
  return (
    <>
      {done !== undefined && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {state.error && !detailsRefused(view) && <FormError id="page-error" error={state.error} words={FIELD_WORDS} />}
    </>
  );
}

/** The event's place in one line: address, postcode and city, state, country, as far as known. */
function placeOf(location: Ticket["event"]["location"]): string {
  const { address, zipCode, city, state, country } = location;
  return [address, [zipCode, city].filter(Boolean).join(" "), state, country].filter(Boolean).join(", ");
}

/**
 * The ticket: who, what, when, where, its status and code, the QR image while it admits. Its
 * links are relative to the page (`../qr/`, `<token>/calendar.ics`), so they hold on any host
 * and under either version prefix, and the image comes from the page's own origin.
 */
function TicketCard({ view, token }: { view: TicketView; token: string }) {
  const { ticket } = view;
  const { attendee, event } = ticket;
  return (
    <section aria-labelledby="ticket-title">
      <h2 id="ticket-title">Your ticket</h2>
      <dl>
        <dt>Name</dt>
        <dd>
          {attendee.firstName} {attendee.lastName}
        </dd>
        <dt>Ticket</dt>
        <dd>{attendee.ticketType}</dd>
        <dt>Status</dt>
        <dd>
          <span class="status">{statusWords(ticket)}</span>
        </dd>
        <dt>Confirmation code</dt>
        <dd class="code">{attendee.confirmationCode}</dd>
        <dt>Starts</dt>
        <dd>{when(view, event.startDate)}</dd>
        <dt>Ends</dt>
        <dd>{when(view, event.endDate)}</dd>
        <dt>Where</dt>
        <dd>{placeOf(event.location)}</dd>
      </dl>
      {attendee.qrCode !== null && (
        <>
          <img class="qr" alt="QR code for check-in" src={`../qr/${encodeURIComponent(attendee.id)}.png`} />
          <p class="muted hint">Show this code, or the confirmation code, at the entrance.</p>
        </>
      )}
      {event.status !== "cancelled" && (
        <div class="actions">
          <a class="button secondary" href={`${encodeURIComponent(token)}/calendar.ics`}>
            Add to calendar
          </a>
        </div>
      )}
    </section>
  );
}

function Payment({ view }: { view: TicketView }) {
  const { payment } = view.ticket;
  if (!payment) return null;
  const { currency } = payment;
  return (
    <section aria-labelledby="payment-title">
      <h2 id="payment-title">Payment</h2>
      <dl>
        <dt>Price</dt>
        <dd>{money(payment.amount, currency)}</dd>
        <dt>Amount due</dt>
        <dd>{money(payment.amountDue, currency)}</dd>
        {payment.amountPaid > 0 && (
          <>
            <dt>Paid</dt>
            <dd>{money(payment.amountPaid, currency)}</dd>
          </>
        )}
        {payment.amountRefunded > 0 && (
          <>
            <dt>Refunded</dt>
            <dd>{money(payment.amountRefunded, currency)}</dd>
          </>
        )}
        <dt>Payment</dt>
        <dd>{PAYMENT_WORDS[payment.status]}</dd>
        {view.payable && payment.expiresAt !== null && (
          <>
            <dt>Pay by</dt>
            <dd>{when(view, payment.expiresAt)}</dd>
          </>
        )}
      </dl>
      {view.payable ? (
        <form method="post" aria-label="Pay">
          <input type="hidden" name="action" value="pay" />
          <button type="submit">Pay {money(payment.amountDue, currency)}</button>
        </form>
      ) : (
        payment.provider === "manual" &&
        payment.amountDue > 0 &&
        view.ticket.attendee.status === "pending" && (
          <p class="muted">
            The organiser takes this payment in person or by bank transfer; once it is recorded, your ticket is
            confirmed here.
          </p>
        )
      )}
    </section>
  );
}

/** A form's fields by name, as typed (after a refusal) or as stored. */
function detailValues(view: TicketView): (name: string) => string {
  const { state, ticket } = view;
  if (state.form && detailsRefused(view)) {
    const form = state.form;
    return (name) => form.get(name) ?? "";
  }
  const { attendee } = ticket;
  const stored: Record<string, string> = {
    dietaryPreferences: attendee.dietaryPreferences.join(", "),
    wheelchairAccess: attendee.accessibilityNeeds?.wheelchairAccess ? "on" : "",
    signLanguage: attendee.accessibilityNeeds?.signLanguage ? "on" : "",
    visualAid: attendee.accessibilityNeeds?.visualAid ? "on" : "",
    accessibilityOther: attendee.accessibilityNeeds?.other ?? "",
    emergencyName: attendee.emergencyContact?.name ?? "",
    emergencyPhone: attendee.emergencyContact?.phone ?? "",
    emergencyRelationship: attendee.emergencyContact?.relationship ?? "",
    travelMode: attendee.carbonOffset.travelMode ?? "",
    travelDistance: attendee.carbonOffset.travelDistance === null ? "" : String(attendee.carbonOffset.travelDistance),
    opted: attendee.carbonOffset.opted ? "on" : "",
  };
  return (name) => stored[name] ?? "";
}

/** A text field with its label, marked when the refusal names its API field. */
function TextField(props: {
  id: string;
  label: string;
  value: string;
  apiField: string;
  error: ServiceError | null;
  type?: "text" | "tel" | "number";
  hint?: string;
  maxLength?: number;
}) {
  const invalid = props.error?.field === props.apiField;
  const describedBy = [props.hint ? `${props.id}-hint` : undefined, invalid ? "details-error" : undefined]
    .filter(Boolean)
    .join(" ");
  const common = {
    id: props.id,
    name: props.id,
    value: props.value,
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-describedby": describedBy || undefined,
  };
  return (
    <>
      <label for={props.id}>{props.label}</label>
      {props.type === "number" ? (
        <input type="number" inputMode="decimal" step="any" min="0" {...common} />
      ) : props.type === "tel" ? (
        <input type="tel" {...common} />
      ) : (
        <input type="text" maxLength={props.maxLength} {...common} />
      )}
      {props.hint && (
        <p class="muted hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
    </>
  );
}

function Checkbox({ id, label, checked }: { id: string; label: string; checked: boolean }) {
  return (
    <label class="inline" for={id}>
      <input type="checkbox" id={id} name={id} checked={checked} />
      {label}
    </label>
  );
}

/** The attendee's own details: dietary preferences, accessibility needs, emergency contact, travel; "Save" changes them. */
function Details({ view }: { view: TicketView }) {
  const value = detailValues(view);
  const error = detailsRefused(view) ? view.state.error : null;
  return (
    <section aria-labelledby="details-title">
      <h2 id="details-title">Your details</h2>
      <form method="post" aria-labelledby="details-title">
        {error && <FormError id="details-error" error={error} words={FIELD_WORDS} />}
        <input type="hidden" name="action" value="save" />
        <TextField
          id="dietaryPreferences"
          label="Dietary preferences"
          value={value("dietaryPreferences")}
          apiField="dietaryPreferences"
          error={error}
          hint="Separate several with commas, for example: vegan, nut allergy."
          maxLength={1100}
        />
        <fieldset>
          <legend>Accessibility needs</legend>
          <Checkbox id="wheelchairAccess" label="Wheelchair access" checked={value("wheelchairAccess") === "on"} />
          <Checkbox id="signLanguage" label="Sign language" checked={value("signLanguage") === "on"} />
          <Checkbox id="visualAid" label="Visual aid" checked={value("visualAid") === "on"} />
          <TextField
            id="accessibilityOther"
            label="Other accessibility needs"
            value={value("accessibilityOther")}
            apiField="accessibilityNeeds.other"
            error={error}
            maxLength={500}
          />
        </fieldset>
        <fieldset>
          <legend>Emergency contact</legend>
          <TextField
            id="emergencyName"
            label="Emergency contact name"
            value={value("emergencyName")}
            apiField="emergencyContact.name"
            error={error}
            maxLength={200}
          />
          <TextField
            id="emergencyPhone"
            label="Emergency contact phone"
            type="tel"
            value={value("emergencyPhone")}
            apiField="emergencyContact.phone"
            error={error}
            hint="With the country code, for example +49 30 1234567."
          />
          <TextField
            id="emergencyRelationship"
            label="Relationship"
            value={value("emergencyRelationship")}
            apiField="emergencyContact.relationship"
            error={error}
            maxLength={100}
          />
        </fieldset>
        <fieldset>
          <legend>Travel to the event</legend>
          <p class="muted hint">Your journey counts in the event's carbon footprint.</p>
          <label for="travelMode">Travel mode</label>
          <select
            id="travelMode"
            name="travelMode"
            aria-invalid={error?.field === "carbonOffset.travelMode" ? "true" : undefined}
          >
            <option value="" selected={value("travelMode") === ""}>
              Not given
            </option>
            {TRAVEL_MODES.map((mode) => (
              <option value={mode} selected={value("travelMode") === mode}>
                {TRAVEL_MODE_WORDS[mode]}
              </option>
            ))}
          </select>
          <TextField
            id="travelDistance"
            label="Travel distance (km)"
            type="number"
            value={value("travelDistance")}
            apiField="carbonOffset.travelDistance"
            error={error}
            hint="One way, from where you set off."
          />
          <Checkbox id="opted" label="Offset my travel" checked={value("opted") === "on"} />
        </fieldset>
        <button type="submit">Save</button>
      </form>
    </section>
  );
}

/** What cancelling now means for the money: the refund by the event's policy, or that there is none. */
function refundSentence(view: TicketView): string | null {
  const { payment } = view.ticket;
  if (!payment || payment.amountPaid - payment.amountRefunded <= 0) return null;
  if (view.refundOnCancel > 0)
    return `${money(view.refundOnCancel, payment.currency)} will be refunded to you, as the event's refund policy gives a full refund until it starts.`;
  return "Nothing will be refunded: the event's refund policy gives no refunds.";
}

/** The cancellation: a button leading to its confirmation step (`?confirm=cancel`), which says what happens. */
function Cancellation({ view }: { view: TicketView }) {
  const confirming = view.state.query.get("confirm") === "cancel";
  const { attendee } = view.ticket;
  if (!confirming)
    return (
      <section aria-labelledby="cancel-title">
        <h2 id="cancel-title">Can't come?</h2>
        <form method="get" aria-labelledby="cancel-title">
          <input type="hidden" name="confirm" value="cancel" />
          <button type="submit" class="secondary">
            Cancel registration
          </button>
        </form>
      </section>
    );
  const refund = refundSentence(view);
  return (
    <section aria-labelledby="confirm-title" class="card">
      <h2 id="confirm-title">Cancel your registration?</h2>
      <p>
        {attendee.status === "waitlisted"
          ? "You leave the waiting list, and the next person in line moves up."
          : "Your place is given up, and the next person on the waiting list, if any, gets it."}{" "}
        This cannot be undone.
      </p>
      {refund !== null && <p>{refund}</p>}
      <form method="post" aria-labelledby="confirm-title">
        <input type="hidden" name="action" value="cancel" />
        <div class="actions">
          <button type="submit" class="danger">
            Confirm cancellation
          </button>
          <a class="button secondary" href="?">
            Keep my registration
          </a>
        </div>
      </form>
    </section>
  );
}

/** Why the page offers no changes: the event called off, the registration cancelled, or the event begun. */
function Closed({ view }: { view: TicketView }) {
  const { event, attendee, payment } = view.ticket;
  if (event.status === "cancelled")
    return (
      <p class="notice">
        This event was cancelled by its organiser.
        {payment && payment.amountRefunded > 0 && ` ${money(payment.amountRefunded, payment.currency)} was refunded.`}
      </p>
    );
  if (attendee.status === "cancelled")
    return (
      <p class="notice">
        This registration is cancelled.
        {payment && payment.amountRefunded > 0 && ` ${money(payment.amountRefunded, payment.currency)} was refunded.`}
      </p>
    );
  if (!view.ticket.changesAllowed)
    return <p class="notice">The event has started: your details can no longer be changed here.</p>;
  return null;
}

/** The attendee's page at their ticket link: the ticket, its payment, their details and the cancellation. */
export function renderTicketPage(view: TicketView, token: string): string {
  const { ticket } = view;
  return renderDocument({
    title: `${ticket.event.name}: your ticket`,
    style: PAGE_STYLE,
    children: (
      <main>
        <Notices view={view} />
        <h1>{ticket.event.name}</h1>
        <Closed view={view} />
        <TicketCard view={view} token={token} />
        <Payment view={view} />
        {ticket.changesAllowed && !detailsShown(view) && <Cancellation view={view} />}
        {detailsShown(view) && (
          <>
            <Details view={view} />
            <Cancellation view={view} />
          </>
        )}
      </main>
    ),
  });
}

const run = (ticket: TicketContext, id: string, body?: unknown) =>
  runLinkOperation(TICKET_LINK_OPERATIONS, id, ticket, {}, body);

/** A form's comma-separated list: the items, trimmed, empty ones left out. */
function listOf(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * The details form as the `PUT /tickets/:token` body: every field is on the form, so a blank one
 * clears (`null`); a checkbox is sent only when ticked. The operation's schema judges the rest.
 */
function ticketUpdateBody(form: URLSearchParams): Record<string, unknown> {
  const other = field(form, "accessibilityOther");
  const needs = {
    wheelchairAccess: form.has("wheelchairAccess"),
    signLanguage: form.has("signLanguage"),
    visualAid: form.has("visualAid"),
    ...(other !== undefined && { other }),
  };
  const anyNeed = needs.wheelchairAccess || needs.signLanguage || needs.visualAid || other !== undefined;
  const contact = {
    name: field(form, "emergencyName"),
    phone: field(form, "emergencyPhone"),
    relationship: field(form, "emergencyRelationship"),
  };
  const anyContact = Object.values(contact).some((value) => value !== undefined);
  return {
    dietaryPreferences: listOf(field(form, "dietaryPreferences")),
    accessibilityNeeds: anyNeed ? needs : null,
    emergencyContact: anyContact
      ? Object.fromEntries(Object.entries(contact).filter(([, value]) => value !== undefined))
      : null,
    carbonOffset: {
      travelMode: field(form, "travelMode") ?? null,
      travelDistance: numberField(form, "travelDistance") ?? null,
      opted: form.has("opted"),
    },
  };
}

/** Where Stripe serves a Checkout Session's page, which Pay redirects to. */
const STRIPE_CHECKOUT_ORIGIN = "https://checkout.stripe.com";

/** The attendee's ticket page and its forms, over the operations of the ticket link. */
export const TICKET_PAGE: LinkPage<TicketContext> = {
  async render(ticket, state) {
    const overview = await ticket.overview();
    const error = state.error && refusalInWords(state.error, overview.ticket);
    return renderTicketPage({ ...overview, state: { ...state, error } }, ticket.token);
  },
  actions: {
    async save(ticket, form) {
      await run(ticket, "ticket.update", ticketUpdateBody(form));
      return "saved";
    },
    async cancel(ticket) {
      await run(ticket, "ticket.cancel");
      return "cancelled";
    },
    async pay(ticket) {
      const { url } = (await run(ticket, "ticket.checkout")) as { url: string };
      return { redirect: url };
    },
  },
  // Pay's answer is a redirect to the Checkout Session's page.
  formTargets: [STRIPE_CHECKOUT_ORIGIN],
};
