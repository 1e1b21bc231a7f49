import * as z from "zod";
import { INPUT_FORMS } from "../_internal/parse-input.ts";
import { DateTimeInput, text, Timestamp } from "./common.ts";

/**
 * The ISO 4217 codes of the currencies in circulation, as the runtime's ICU data knows them
 * (`Intl.supportedValuesOf`): no list of our own to keep current. Read by the first code checked:
 * ICU's data costs a process that prices nothing several MB.
 */
let currencies: Set<string> | undefined;
const isCurrency = (code: string) => (currencies ??= new Set(Intl.supportedValuesOf("currency"))).has(code);

/**
 * The most one payment may be, a price with its offset contribution, in the currency's minor unit:
 * Stripe's largest amount (8 digits), so that every payment can be charged there.
 */
export const MAX_PAYMENT_AMOUNT = 99_999_999;

/** An ISO 4217 currency code in upper case (`EUR`, `USD`, `JPY`). */
export const Currency = z.string().refine(isCurrency, "must be an ISO 4217 currency code in upper case, e.g. EUR");

/**
 * An amount of money in a body: a whole number in the currency's minor unit (cents for EUR, yen
 * for JPY). JSON's `45.00` is the number 45, so it is 0.45 EUR, never 45 EUR.
 */
export function amountInMinorUnits(min: number, description: string) {
  const schema = z.int().min(min).max(MAX_PAYMENT_AMOUNT).meta({ description });
  INPUT_FORMS.add(schema, { form: "a whole number in the currency's minor units (4500 is 45.00 EUR)" });
  return schema;
}

/** An amount of money: an integer in the currency's minor unit (cents for EUR, yen for JPY). */
export const Money = z.strictObject({
  amount: amountInMinorUnits(0, "A whole number in the currency's minor unit: 4500 is 45.00 EUR."),
  currency: Currency,
});
export type Money = z.infer<typeof Money>;

export const TicketTypeInput = z.strictObject({
  name: text(50),
  price: Money,
  capacity: z
    .int()
    .min(1)
    .max(1_000_000)
    .nullish()
    .meta({ description: "Active registrations of this type at most; none: only the event's capacity limits it." }),
  salesEndAt: DateTimeInput.nullish().meta({ description: "No registration of this type from this time on." }),
});
export type TicketTypeInput = z.input<typeof TicketTypeInput>;

/**
 * An event's ticket types: at most 50, names unique (compared case-insensitively, so that two
 * cannot be confused at the door), one currency for all of them. Empty: the event has none.
 */
export const TicketTypesInput = z
  .array(TicketTypeInput)
  .max(50)
  .superRefine((types, ctx) => {
    const seen = new Set<string>();
    for (const [i, type] of types.entries()) {
      const key = type.name.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "name"], message: "must be unique in the event" });
      seen.add(key);
      if (type.price.currency !== types[0]?.price.currency)
        ctx.addIssue({
          code: "custom",
          path: [i, "price", "currency"],
          message: `must be the currency of the event's other ticket types (${types[0]?.price.currency})`,
        });
    }
  });

/** A ticket type as stored and returned. */
export const TicketType = z.object({
  name: z.string(),
  price: Money,
  capacity: z.int().nullable(),
  salesEndAt: Timestamp.nullable(),
});
export type TicketType = z.infer<typeof TicketType>;

/** The stored form of validated ticket types. */
export function toTicketTypes(input: z.output<typeof TicketTypesInput>): TicketType[] {
  return input.map((type) => ({
    name: type.name,
    price: type.price,
    capacity: type.capacity ?? null,
    salesEndAt: type.salesEndAt ?? null,
  }));
}

export const REFUND_POLICIES = ["full", "none"] as const;
export type RefundPolicy = (typeof REFUND_POLICIES)[number];
