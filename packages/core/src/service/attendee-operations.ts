import type * as z from "zod";
import { createConfirmationCode, createId } from "../_internal/ids.ts";
import {
  type Attendee,
  type AttendeeCreateInput,
  type AttendeeListQuery,
  type AttendeeRecord,
  type AttendeeUpdateInput,
  newAttendeeRecord,
  toApiAttendee,
} from "../resources/attendee.ts";
import { paginate } from "../resources/common.ts";
import type { PaymentInput, RefundInput } from "../resources/payment.ts";
import { type AttendeeExportQuery, attendeeExportStream, type ExportFormat } from "../export/attendee-export.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import { ERASED_ANSWER } from "../storage/erasure.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import { recordPayment, refundByHand } from "./payment-changes.ts";
import { eraseAttendee, registerAttendee } from "./registrations.ts";
import { changeRegistration, newTicketLink, rotateTicketLink } from "./ticket-link-operations.ts";
import { ticketUrlOf } from "../resources/ticket-link.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** A started export: its format and the stream of its bytes. */
export interface AttendeeExport {
  format: ExportFormat;
  stream: ReadableStream<Uint8Array>;
}

/** The registration operations of one account. */
export function createAttendeeOperations(
  storage: AttendeeStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
) {
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

  const attendees = {
    // Attendee, not its ticketUrl as a string: a replay of the answer shows null.
    async register(parsed: z.output<typeof AttendeeCreateInput>): Promise<Attendee> {
      const now = clock().toISOString();
      const record = newAttendeeRecord(parsed, {
        id: createId("attendee"),
        accountId,
        confirmationCode: createConfirmationCode(),
        now,
      });
      const { token, link } = newTicketLink(accountId, record.id, now);
      const registered = await registerAttendee(context, record, link);
      queued();
      return { ...buyerOut(await withIntent(registered)), ticketUrl: ticketUrlOf(context.baseUrl, token) };
    },
    async ticketLink(id: string): Promise<Attendee> {
      const { token, link } = newTicketLink(accountId, id, clock().toISOString());
      const attendee = await rotateTicketLink(context, { accountId, id, link });
      return { ...attendeeOut(attendee), ticketUrl: ticketUrlOf(context.baseUrl, token) };
    },
    async get(id: string) {
      const attendee = await storage.getAttendee(accountId, id);
      if (!attendee) throw notFound("Attendee", id);
      return buyerOut(await withIntent(attendee));
    },
    async update(id: string, parsed: z.output<typeof AttendeeUpdateInput>) {
      const { after } = await changeRegistration(context, { id, update: parsed });
      return attendeeOut(after);
    },
    async pay(id: string, parsed: z.output<typeof PaymentInput>) {
      const { after } = await recordPayment(context, { accountId, id, payment: parsed, now: clock().toISOString() });
      queued();
      return attendeeOut(after);
    },
    async refund(id: string, parsed: z.output<typeof RefundInput>) {
      const { after } = await refundByHand(context, { accountId, id, refund: parsed, now: clock().toISOString() });
      queued();
      return attendeeOut(after);
    },
    async list(parsed: z.output<typeof AttendeeListQuery>) {
      const page = await storage.listAttendees(accountId, parsed);
      return { attendees: page.items.map(attendeeOut), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async delete(id: string) {
      const erased = await eraseAttendee(context, {
        accountId,
        id,
        erasure: { now: clock().toISOString(), replay: ERASED_ANSWER },
      });
      if (!erased) throw notFound("Attendee", id);
      queued();
      await context.stripe?.closeIntent(erased, null);
      return { success: true as const, message: `Attendee ${id} was erased.`, deletedId: id };
    },
    async export(eventId: string, { format }: z.output<typeof AttendeeExportQuery>) {
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
