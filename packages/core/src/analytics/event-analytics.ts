import * as z from "zod";
import { isCarbonNeutral } from "../carbon/carbon-neutral.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import { DEFAULT_EMISSION_FACTORS, type EmissionFactorSet } from "../carbon/emission-factors.ts";
import { Methodology, methodologyOf } from "./methodology.ts";
import { LOW_CARBON_TRAVEL_MODES, TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { sustainabilityScore } from "../carbon/sustainability-score.ts";
import { ACTIVE_ATTENDEE_STATUSES } from "../rules/attendee-status.ts";
import { EVENT_STATUSES, type EventRecord, SustainabilityGoals } from "../resources/event.ts";
import type { EventAnalyticsFigures, TicketMoneyFigures } from "./analytics-figures.ts";
import { Revenue, revenueOf } from "./revenue.ts";
import { LOW_CARBON_CERTIFICATION_SHARE, scoreTier } from "./certifications.ts";
import { travelModeBreakdown } from "./sustainability-report.ts";
import { buildFootprint, Footprint, kindFigures, MeasuredResources, measuredResources } from "./footprint.ts";
import { GOAL_TYPES, goalStatuses } from "../rules/goals.ts";
import { vendorFiguresOf, vendorShares } from "../rules/local-sourcing.ts";
import { percent, round3 } from "./statistics.ts";

const Num = z.number();
const NullableNum = z.number().nullable();
const ValueCount = z.object({ value: z.string(), count: z.int() });

/** Why the feedback section is empty. */
export const FEEDBACK_UNAVAILABLE_REASON =
  "The service does not collect attendee feedback yet, so there is nothing to summarise.";

/** The answer of `GET /analytics/events/:id`. */
/** A goal of the event judged on its figures (`rules/goals.ts`). */
export const GoalProgress = z.object({
  type: z.enum(GOAL_TYPES),
  set: z.boolean().meta({ description: "Whether the event set the goal (wasteReduction: a target above 0)." }),
  met: z.boolean().nullable().meta({
    description:
      "Met by the figures now; null for a goal the event did not set (set false), or when nothing recorded can tell (no waste or electricity recorded; local_sourcing: no confirmed vendor).",
  }),
  target: z.number().nullable(),
  metrics: z.record(z.string(), z.number().nullable()),
});

export const EventAnalytics = z.object({
  methodology: Methodology,
  eventId: z.string(),
  eventName: z.string(),
  status: z.enum(EVENT_STATUSES),
  category: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  attendance: z.object({
    capacity: z.int(),
    registered: z.int().meta({ description: "Every registration, cancelled and waitlisted ones included." }),
    active: z.int().meta({ description: "confirmed + pending + checked-in: the places taken." }),
    confirmed: z.int(),
    pending: z.int(),
    cancelled: z.int(),
    checkedIn: z.int(),
    waitlisted: z.int().meta({ description: "Registrations on the waiting list: they hold no place." }),
    placesLeft: z.int(),
    capacityUtilizationPercent: Num.meta({ description: "active / capacity." }),
    checkInRatePercent: NullableNum.meta({ description: "checked-in / active; null with no active registration." }),
  }),
  demographics: z.object({
    ticketTypes: z.array(ValueCount),
    companies: z.object({
      distinct: z.int(),
      notGiven: z.int(),
      top: z.array(ValueCount).meta({ description: "Up to 10, most registrations first." }),
    }),
    dietaryPreferences: z.array(ValueCount),
    accessibilityNeeds: z.object({
      wheelchairAccess: z.int(),
      signLanguage: z.int(),
      visualAid: z.int(),
      other: z.int(),
      anyNeed: z.int(),
    }),
    travelModes: z.array(z.object({ mode: z.enum(TRAVEL_MODES), count: z.int() })),
    travelNotReported: z.int(),
  }),
  sustainability: z.object({
    carbonFootprintKg: Num,
    emissionsPerAttendeeKg: NullableNum,
    byTravelMode: z.array(
      z.object({
        mode: z.enum(TRAVEL_MODES),
        registrations: z.int(),
        distanceKm: Num,
        emissionsKg: Num,
        emissionsSharePercent: NullableNum,
      }),
    ),
    offsetKg: Num,
    netEmissionsKg: Num,
    offsetCoveragePercent: NullableNum,
    offsetParticipation: z.object({ count: z.int(), percent: NullableNum }),
    lowCarbonTravelPercent: NullableNum,
    sustainabilityScore: Num,
    goals: SustainabilityGoals,
    goalProgress: z.array(GoalProgress).meta({
      description:
        "Every goal judged on the figures now: a goal met once and undone by a later record shows met false here (its notification is not taken back).",
    }),
    resources: MeasuredResources.meta({
      description: "Waste and electricity from the activity records; null where none of the kind is recorded.",
    }),
    certifications: z.object({
      carbonNeutral: z.boolean(),
      lowCarbonTravel: z.boolean(),
      tier: z.enum(["gold", "silver", "bronze"]).nullable(),
    }),
  }),
  footprint: Footprint,
  vendors: z
    .object({
      confirmed: z.int().meta({ description: "Vendors whose booking for the event is confirmed." }),
      local: z.int().meta({
        description:
          "Of those, the ones within LOCAL_SOURCING_RADIUS_KM (default 160) of the event by coordinates; one without coordinates is not local.",
      }),
      localSharePercent: NullableNum.meta({ description: "local / confirmed; null with no confirmed vendor." }),
      certified: z.int().meta({
        description:
          "Of the confirmed, those holding a certification with no validUntil or one not before the event's start.",
      }),
      certifiedSharePercent: NullableNum.meta({ description: "certified / confirmed; null with no confirmed vendor." }),
    })
    .meta({
      description:
        "Local sourcing: the event's confirmed vendors (the localSourcing goal is judged on localSharePercent).",
    }),
  engagement: z.object({
    checkInRatePercent: NullableNum,
    cancellationRatePercent: NullableNum.meta({ description: "cancelled / registered." }),
    travelReportedPercent: NullableNum,
    offsetOptInPercent: NullableNum,
    firstRegistrationAt: z.string().nullable(),
    lastRegistrationAt: z.string().nullable(),
    averageLeadTimeDays: NullableNum.meta({
      description: "Mean days from registration to the event's start (active registrations).",
    }),
  }),
  financial: z.object({
    currency: z.literal("USD").meta({
      description:
        "The currency of the carbon-offset figures only (offsetContributionsUsd, averageContributionUsd, " +
        "offsetPriceUsdPerTonne), in US dollars (major unit). Ticket money is not in it: each entry of revenue " +
        "and byTicketType names its own currency, in that currency's minor unit.",
    }),
    offsetContributionsUsd: Num.meta({ description: "Offset contributions of active registrations, in US dollars." }),
    contributors: z.int(),
    averageContributionUsd: NullableNum.meta({
      description: "Mean contribution of those who opted in, in US dollars.",
    }),
    offsetTonnes: Num,
    offsetPriceUsdPerTonne: Num,
    revenue: z.array(Revenue).meta({
      description:
        "Ticket money per currency (each entry's currency), in its minor unit (4500 is 45.00 EUR); not the offsets' USD.",
    }),
    byTicketType: z
      .array(
        z.object({
          ticketType: z.string(),
          currency: z.string().meta({ description: "The currency the type's tickets were sold in." }),
          sold: z.int().meta({
            description:
              "Active registrations of the type admitted in this currency (the money kept reached the price once), or free.",
          }),
          gross: z.int().meta({ description: "Money received for the type in this currency, in its minor unit." }),
        }),
      )
      .meta({
        description:
          "Each of the event's ticket types, then any other type and currency money was received or tickets sold in.",
      }),
  }),
  feedback: z.object({
    available: z.literal(false),
    reason: z.string(),
    responses: z.literal(0),
    averageRating: z.null(),
  }),
});
export type EventAnalytics = z.infer<typeof EventAnalytics>;

/**
 * Each of the event's ticket types in its order (sold and money received, 0 when none), then any
 * other type and currency money was received or tickets sold in (a type removed since, renamed,
 * or priced in another currency before). A ticket counts in the currency it was paid in; a free
 * one in its type's.
 */
export function ticketTypeMoney(event: Pick<EventRecord, "ticketTypes">, money: TicketMoneyFigures) {
  const rows = event.ticketTypes.map((type) => ({
    ticketType: type.name,
    currency: type.price.currency,
    sold: 0,
    gross: 0,
  }));
  const rowOf = (ticketType: string, currency: string | null) => {
    const found = rows.find((r) => r.ticketType === ticketType && (currency === null || r.currency === currency));
    if (found || currency === null) return found;
    const row = { ticketType, currency, sold: 0, gross: 0 };
    rows.push(row);
    return row;
  };
  for (const { ticketType, currency, gross } of money.gross) rowOf(ticketType, currency)!.gross += gross;
  for (const { ticketType, currency, sold } of money.sold) {
    const row = rowOf(ticketType, currency);
    if (row) row.sold += sold;
  }
  return rows;
}

/**
 * The per-event analytics report from the aggregated figures. Pure. Attendance counts every
 * registration by status; demographics, sustainability and finance cover the active ones
 * (the people holding a place), as the event's `carbonFootprint` does.
 */
export function buildEventAnalytics(
  figures: EventAnalyticsFigures,
  carbon: CarbonSettings,
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): EventAnalytics {
  const { event, statuses } = figures;
  const vendors = vendorFiguresOf(event, figures.confirmedVendors, carbon);
  const active = ACTIVE_ATTENDEE_STATUSES.reduce((sum, status) => sum + statuses[status], 0);
  const registered = active + statuses.cancelled + statuses.waitlisted;
  const sum = (pick: (m: EventAnalyticsFigures["byMode"][number]) => number) =>
    figures.byMode.reduce((total, m) => total + pick(m), 0);
  const emissionsKg = sum((m) => m.emissionsKg);
  const offsetUsd = sum((m) => m.offsetUsd);
  const opted = sum((m) => m.offsetOpted);
  const offset = offsetKg(offsetUsd, carbon);
  const travelReported = sum((m) => (m.mode === null ? 0 : m.registrations));
  const lowCarbon = sum((m) =>
    (LOW_CARBON_TRAVEL_MODES as readonly (string | null)[]).includes(m.mode) ? m.registrations : 0,
  );
  const score = sustainabilityScore({
    goals: event.sustainabilityGoals,
    travelReported,
    lowCarbonTravel: lowCarbon,
    emissionsKg,
    offsetKg: offset,
  });
  const checkInRate = percent(statuses["checked-in"], active);
  const footprint = buildFootprint({
    travelEmissionsKg: emissionsKg,
    travelReported,
    active,
    kinds: kindFigures(figures.activityGroups),
  });
  const whole = emissionsKg + figures.activities.emissionsKg;
  const kept = {
    activeRegistrations: active,
    emissionsKg,
    offsetUsd,
    travelReported,
    lowCarbonTravel: lowCarbon,
    waitlisted: statuses.waitlisted,
  };
  const cancellationRate = percent(statuses.cancelled, registered);
  return {
    methodology: methodologyOf(factors, carbon),
    eventId: event.id,
    eventName: event.name,
    status: event.status,
    category: event.category,
    startDate: event.startDate,
    endDate: event.endDate,
    attendance: {
      capacity: event.capacity,
      registered,
      active,
      confirmed: statuses.confirmed,
      pending: statuses.pending,
      cancelled: statuses.cancelled,
      checkedIn: statuses["checked-in"],
      waitlisted: statuses.waitlisted,
      placesLeft: Math.max(0, event.capacity - active),
      capacityUtilizationPercent: round3((100 * active) / event.capacity),
      checkInRatePercent: checkInRate,
    },
    demographics: {
      ticketTypes: figures.ticketTypes,
      companies: figures.companies,
      dietaryPreferences: figures.dietaryPreferences,
      accessibilityNeeds: {
        wheelchairAccess: figures.accessibility.wheelchairAccess,
        signLanguage: figures.accessibility.signLanguage,
        visualAid: figures.accessibility.visualAid,
        other: figures.accessibility.other,
        anyNeed: figures.accessibility.any,
      },
      travelModes: TRAVEL_MODES.map((mode) => ({
        mode,
        count: figures.byMode.find((m) => m.mode === mode)?.registrations ?? 0,
      })),
      travelNotReported: active - travelReported,
    },
    sustainability: {
      carbonFootprintKg: round3(emissionsKg),
      emissionsPerAttendeeKg: active ? round3(emissionsKg / active) : null,
      byTravelMode: travelModeBreakdown(figures.byMode),
      offsetKg: round3(offset),
      netEmissionsKg: round3(Math.max(0, emissionsKg - offset)),
      offsetCoveragePercent: percent(offset, emissionsKg),
      offsetParticipation: { count: opted, percent: percent(opted, active) },
      lowCarbonTravelPercent: percent(lowCarbon, travelReported),
      sustainabilityScore: score,
      goals: event.sustainabilityGoals,
      goalProgress: goalStatuses(
        event.sustainabilityGoals,
        { capacity: event.capacity, kept, activities: figures.activities, vendors },
        carbon,
      ),
      resources: measuredResources(figures.activities),
      certifications: {
        carbonNeutral: isCarbonNeutral({ emissionsKg: whole, offsetKg: offset }),
        lowCarbonTravel: travelReported > 0 && lowCarbon >= LOW_CARBON_CERTIFICATION_SHARE * travelReported,
        tier: scoreTier(score),
      },
    },
    footprint,
    vendors: vendorShares(vendors),
    engagement: {
      checkInRatePercent: checkInRate,
      cancellationRatePercent: cancellationRate,
      travelReportedPercent: percent(travelReported, active),
      offsetOptInPercent: percent(opted, active),
      firstRegistrationAt: figures.registrationWindow?.first ?? null,
      lastRegistrationAt: figures.registrationWindow?.last ?? null,
      averageLeadTimeDays: figures.averageLeadTimeDays === null ? null : round3(figures.averageLeadTimeDays),
    },
    financial: {
      currency: "USD",
      offsetContributionsUsd: round3(offsetUsd),
      contributors: opted,
      averageContributionUsd: opted ? round3(offsetUsd / opted) : null,
      offsetTonnes: round3(offset / 1000),
      offsetPriceUsdPerTonne: carbon.offsetPriceUsdPerTonne,
      revenue: figures.revenue.map(revenueOf),
      byTicketType: ticketTypeMoney(figures.event, figures.ticketMoney),
    },
    feedback: { available: false, reason: FEEDBACK_UNAVAILABLE_REASON, responses: 0, averageRating: null },
  };
}
