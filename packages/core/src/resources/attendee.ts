import * as z from "zod";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import {
  BooleanParam,
  KeyValueMap,
  lowerCaseText,
  OrderParam,
  pagingParams,
  plainText,
  resolvePaging,
  text,
  Timestamp,
} from "./common.ts";
import { Payment, PaymentRecord, toApiPayment } from "./payment.ts";

/**
 * Every status a registration can have. A new registration is `confirmed`, or `waitlisted` when
 * its event is full and keeps a waiting list.
 */
export const ATTENDEE_STATUSES = ["confirmed", "pending", "cancelled", "checked-in", "waitlisted"] as const;
export type AttendeeStatus = (typeof ATTENDEE_STATUSES)[number];

/** A phone number with its country code: `+` then 7 to 15 digits, spaces, dots, dashes and brackets allowed. */
export const Phone = z
  .string()
  .trim()
  .max(32)
  .regex(/^\+[0-9 ().-]+$/, "must start with + and the country code, e.g. +49 30 1234567")
  .refine((value) => {
    const digits = value.replace(/\D/g, "").length;
    return digits >= 7 && digits <= 15;
  }, "must hold 7 to 15 digits");

export const Email = text(254).pipe(z.email());

export const AccessibilityNeeds = z.strictObject({
  wheelchairAccess: z.boolean().optional(),
  signLanguage: z.boolean().optional(),
  visualAid: z.boolean().optional(),
  other: plainText(500).optional(),
});
export type AccessibilityNeeds = z.infer<typeof AccessibilityNeeds>;

export const CarbonOffset = z.strictObject({
  opted: z.boolean().optional(),
  amount: z.number().min(0).max(1_000_000).optional().meta({ description: "Offset contribution in USD." }),
  travelDistance: z.number().min(0).max(100_000).optional().meta({ description: "Travel distance in km." }),
  travelMode: z.enum(TRAVEL_MODES).optional(),
});
export type CarbonOffset = z.infer<typeof CarbonOffset>;

export const EmergencyContact = z.strictObject({
  name: text(200),
  phone: Phone,
  relationship: text(100).optional(),
});
export type EmergencyContact = z.infer<typeof EmergencyContact>;

/** Dietary preferences: trimmed, lower-cased and de-duplicated; at most 20 of up to 50 characters. */
export const DietaryPreferences = z
  .array(lowerCaseText(50))
  .max(20)
  .transform((items) => [...new Set(items)]);

const attendeeFields = {
  firstName: text(100),
  lastName: text(100),
  email: Email,
  phone: Phone.nullish(),
  company: text(200).nullish(),
  title: text(200).nullish(),
  ticketType: text(50),
  dietaryPreferences: DietaryPreferences.nullish(),
  accessibilityNeeds: AccessibilityNeeds.nullish(),
  carbonOffset: CarbonOffset.nullish(),
  emergencyContact: EmergencyContact.nullish(),
  customFields: KeyValueMap.nullish(),
};

/** Body of `POST /attendees`. A new registration is `confirmed`: `status` is not accepted here. */
export const AttendeeCreateInput = z.strictObject({ eventId: text(64), ...attendeeFields });
export type AttendeeCreateInput = z.input<typeof AttendeeCreateInput>;
export type AttendeeCreate = z.output<typeof AttendeeCreateInput>;

/** Body of `PUT /attendees/:id`: a partial update; `null` clears an optional field. `eventId` cannot change. */
export const AttendeeUpdateInput = z
  .strictObject({
    ...attendeeFields,
    firstName: attendeeFields.firstName.optional(),
    lastName: attendeeFields.lastName.optional(),
    email: attendeeFields.email.optional(),
    ticketType: attendeeFields.ticketType.optional(),
    status: z.enum(ATTENDEE_STATUSES).optional(),
    eventId: z.unknown().optional().meta({ description: "Not accepted: a registration cannot move to another event." }),
  })
  .superRefine((value, ctx) => {
    if (value.eventId !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["eventId"],
        message: "cannot be changed; cancel and register for the other event",
      });
    }
  });
export type AttendeeUpdateInput = z.input<typeof AttendeeUpdateInput>;
export type AttendeeUpdate = z.output<typeof AttendeeUpdateInput>;

/** Body of `POST /events/:id/check-in`. */
export const CheckInInput = z.strictObject({
  confirmationCode: z.string().trim().toUpperCase().min(1).max(32),
});
export type CheckInInput = z.input<typeof CheckInInput>;

/** A registration as stored. */
export const AttendeeRecord = z.object({
  id: z.string(),
  accountId: z.string(),
  eventId: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  company: z.string().nullable(),
  title: z.string().nullable(),
  ticketType: z.string(),
  dietaryPreferences: z.array(z.string()),
  accessibilityNeeds: AccessibilityNeeds.nullable(),
  carbonOffset: CarbonOffset.nullable(),
  emergencyContact: EmergencyContact.nullable(),
  customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  status: z.enum(ATTENDEE_STATUSES),
  waitlistPosition: z
    .int()
    .min(1)
    .nullable()
    .meta({ description: "Place in the event's waiting list (1 is next) while `waitlisted`; null otherwise." }),
  confirmationCode: z.string(),
  registrationDate: Timestamp,
  updatedAt: Timestamp,
  checkedInAt: Timestamp.nullable(),
  cancelledAt: Timestamp.nullable(),
  payment: PaymentRecord.nullable(),
});
export type AttendeeRecord = z.infer<typeof AttendeeRecord>;

/** A registration as the API returns it. */
export const Attendee = AttendeeRecord.omit({ accountId: true }).extend({
  payment: Payment.nullable().meta({
    description: "What a priced ticket costs and how it is paid; null for a free registration and while waitlisted.",
  }),
  qrCode: z.url().meta({ description: "URL of a PNG QR code that encodes confirmationCode, for check-in." }),
  ticketUrl: z.url().nullable().meta({
    description:
      "The attendee's own ticket link (no API key: its token opens this registration). Shown in the registration's create answer and in the answer of POST /attendees/:id/ticket-link only; null in every other answer, in a replay and in notifications.",
  }),
});
export type Attendee = z.infer<typeof Attendee>;

/**
 * The API form of a registration: its QR code image under `baseUrl`, and its payment with the
 * client secret only in the buyer's answers (`withSecret`: the create answer, `GET`,
 * `attendee.promoted`). `ticketUrl` is null: only the answers that make a link show it.
 */
export function toApiAttendee(attendee: AttendeeRecord, baseUrl: string, withSecret = false): Attendee {
  const { accountId: _accountId, payment, ...rest } = attendee;
  return {
    ...rest,
    payment: payment && toApiPayment(payment, withSecret),
    qrCode: qrCodeUrlOf(baseUrl, attendee.id),
    ticketUrl: null,
  };
}

/** The public QR code image of a registration's confirmation code, under `baseUrl`. */
export function qrCodeUrlOf(baseUrl: string, attendeeId: string): string {
  return `${baseUrl}/v1/qr/${attendeeId}.png`;
}

/** Builds the stored record of a new registration. */
export function newAttendeeRecord(
  input: AttendeeCreate,
  ids: { id: string; accountId: string; confirmationCode: string; now: string },
): AttendeeRecord {
  return {
    id: ids.id,
    accountId: ids.accountId,
    eventId: input.eventId,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    phone: input.phone ?? null,
    company: input.company ?? null,
    title: input.title ?? null,
    ticketType: input.ticketType,
    dietaryPreferences: input.dietaryPreferences ?? [],
    accessibilityNeeds: input.accessibilityNeeds ?? null,
    carbonOffset: input.carbonOffset ?? null,
    emergencyContact: input.emergencyContact ?? null,
    customFields: input.customFields ?? {},
    status: "confirmed",
    waitlistPosition: null,
    confirmationCode: ids.confirmationCode,
    registrationDate: ids.now,
    updatedAt: ids.now,
    checkedInAt: null,
    cancelledAt: null,
    payment: null,
  };
}

export const ATTENDEE_SORT_FIELDS = ["registrationDate", "firstName", "lastName", "company"] as const;

/** Query of `GET /attendees`. */
export const AttendeeListQuery = z
  .strictObject({
    eventId: text(64).optional(),
    ...pagingParams,
    status: z.enum(ATTENDEE_STATUSES).optional(),
    ticketType: text(50).optional(),
    search: text(200).optional(),
    carbonOffset: BooleanParam.optional(),
    sortBy: z.enum(ATTENDEE_SORT_FIELDS).default("registrationDate"),
    order: OrderParam,
  })
  .transform(resolvePaging);
export type AttendeeListQuery = z.output<typeof AttendeeListQuery>;
