import { createConfirmationCode, createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import {
  type Attendee,
  AttendeeCreateInput,
  AttendeeListQuery,
  type AttendeeRecord,
  AttendeeUpdateInput,
  newAttendeeRecord,
  toApiAttendee,
} from "../resources/attendee.ts";
import { type DeleteResult, paginate } from "../resources/common.ts";
import { PaymentInput, RefundInput } from "../resources/payment.ts";
import { AttendeeExportQuery, attendeeExportStream, type ExportFormat } from "../export/attendee-export.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import { ERASED_ANSWER } from "../storage/erasure.ts";
import type { ListResult, OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import { recordPayment, refundByHand } from "./payment-changes.ts";
import { eraseAttendee, registerAttendee, updateAttendee } from "./registrations.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** Operations on one account's registrations. */
export interface AttendeeOperations {
  /** Throws `INVALID_REQUEST`, `NOT_FOUND`, `EVENT_FULL`, `DUPLICATE_REGISTRATION`. */
  register(input: AttendeeCreateInput): Promise<Attendee>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Attendee>;
  /** Partial update; throws `NOT_FOUND`, `INVALID_REQUEST`, `INVALID_STATE_TRANSITION`, `EVENT_FULL`, `DUPLICATE_REGISTRATION`. */
  update(id: string, input: AttendeeUpdateInput): Promise<Attendee>;
  /**
   * Records money taken by hand for a priced registration; paid in full, it is `confirmed`.
   * Throws `NOT_FOUND`, `INVALID_REQUEST` (overpaying: field `amount`), `INVALID_STATE_TRANSITION`.
   */
  pay(id: string, input: PaymentInput): Promise<Attendee>;
  /** Refunds part or all of what the registration paid (default: all). Throws `NOT_FOUND`, `INVALID_REQUEST` (field `amount`). */
  refund(id: string, input?: RefundInput): Promise<Attendee>;
  list(query?: Record<string, unknown>): Promise<ListResult<"attendees", Attendee>>;
  /**
   * Erases the registration: its personal data leaves every table and stored payload, an
   * active one frees its place, `attendee.deleted` is sent. Throws `NOT_FOUND`.
   */
  delete(id: string): Promise<DeleteResult>;
  /**
   * Every registration of the event, in registration order, as a byte stream in `format` (CSV
   * by default) read from the store a page at a time as it is consumed. Throws `NOT_FOUND`
   * (no such event) and `INVALID_REQUEST` (query) before the stream starts.
   */
  export(eventId: string, query?: Record<string, unknown>): Promise<AttendeeExport>;
}

/** A started export: its format and the stream of its bytes. */
export interface AttendeeExport {
  format: ExportFormat;
  stream: ReadableStream<Uint8Array>;
}

/** The registration operations of one account. */
export function createAttendeeOperations(
  storage: AttendeeStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
): AttendeeOperations {
  const { accountId, clock, queued } = context;
  const attendeeOut = (record: AttendeeRecord) => toApiAttendee(record, context.baseUrl);
  // The buyer's answers (the registration's create answer, its GET) carry the payment's client secret.
  const buyerOut = (record: AttendeeRecord) => toApiAttendee(record, context.baseUrl, true);
  /**
   * A Stripe payment still without its PaymentIntent gets it now (the buyer needs its secret).
   * Should Stripe fail, the registration is answered as it is, still payable: the payment worker
   * and the next GET try again.
   */
  async function withIntent(record: AttendeeRecord): Promise<AttendeeRecord> {
    if (!context.stripe || record.payment?.provider !== "stripe" || record.payment.paymentIntentId !== null)
      return record;
    try {
      const ref = { accountId, eventId: record.eventId, attendeeId: record.id };
      return (await context.stripe.ensureIntent(ref)) ?? record;
    } catch {
      return record;
    }
  }

  const attendees: AttendeeOperations = {
    async register(input) {
      const parsed = parseInput(AttendeeCreateInput, input);
      const record = newAttendeeRecord(parsed, {
        id: createId("attendee"),
        accountId,
        confirmationCode: createConfirmationCode(),
        now: clock().toISOString(),
      });
      const registered = await registerAttendee(context, record);
      queued();
      return buyerOut(await withIntent(registered));
    },
    async get(id) {
      const attendee = await storage.getAttendee(accountId, id);
      if (!attendee) throw notFound("Attendee", id);
      return buyerOut(await withIntent(attendee));
    },
    async update(id, input) {
      const parsed = parseInput(AttendeeUpdateInput, input);
      const { before, after } = await updateAttendee(context, {
        accountId,
        id,
        update: parsed,
        now: clock().toISOString(),
      });
      queued();
      // Cancelled unpaid: nobody is to pay its PaymentIntent any more.
      await context.stripe?.closeIntent(before, after);
      return attendeeOut(after);
    },
    async pay(id, input) {
      const parsed = parseInput(PaymentInput, input);
      const { after } = await recordPayment(context, { accountId, id, payment: parsed, now: clock().toISOString() });
      queued();
      return attendeeOut(after);
    },
    async refund(id, input = {}) {
      const parsed = parseInput(RefundInput, input);
      const { after } = await refundByHand(context, { accountId, id, refund: parsed, now: clock().toISOString() });
      queued();
      return attendeeOut(after);
    },
    async list(query = {}) {
      const parsed = parseInput(AttendeeListQuery, query, "query");
      const page = await storage.listAttendees(accountId, parsed);
      return { attendees: page.items.map(attendeeOut), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async delete(id) {
      const erased = await eraseAttendee(context, {
        accountId,
        id,
        erasure: { now: clock().toISOString(), replay: ERASED_ANSWER },
      });
      if (!erased) throw notFound("Attendee", id);
      queued();
      await context.stripe?.closeIntent(erased, null);
      return { success: true, message: `Attendee ${id} was erased.`, deletedId: id };
    },
    async export(eventId, query = {}) {
      const { format } = parseInput(AttendeeExportQuery, query, "query");
      if (!(await storage.getEvent(accountId, eventId, context.carbon))) throw notFound("Event", eventId);
      const stream = attendeeExportStream(
        (cursor, limit) => storage.eventAttendeesAfter(accountId, eventId, cursor, limit),
        format,
        attendeeOut,
      );
      return { format, stream };
    },
  };

  return attendees;
}
