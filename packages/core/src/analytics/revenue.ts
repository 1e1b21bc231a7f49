import * as z from "zod";
import type { RevenueFigures } from "./analytics-figures.ts";

/** Ticket money in one currency, in its minor unit. */
export const Revenue = z.object({
  currency: z.string().meta({ description: "ISO 4217 code of this entry's money; its figures are in its minor unit." }),
  gross: z.int().meta({ description: "Money received." }),
  refunded: z.int().meta({ description: "Money returned (a Stripe refund counts from when it is decided)." }),
  net: z.int().meta({ description: "gross - refunded." }),
  outstanding: z.int().meta({
    description: "What active registrations not admitted yet still owe: their price less the money kept.",
  }),
});
export type Revenue = z.infer<typeof Revenue>;

/** The report's form of a currency's money. */
export function revenueOf(figures: RevenueFigures): Revenue {
  return {
    currency: figures.currency,
    gross: figures.gross,
    refunded: figures.refunded,
    net: figures.gross - figures.refunded,
    outstanding: figures.outstanding,
  };
}
