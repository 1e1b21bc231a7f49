import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { paginate } from "../resources/common.ts";
import {
  ThresholdCreateInput,
  type ThresholdListQuery,
  type ThresholdRecord,
  type ThresholdUpdateInput,
  toApiThreshold,
} from "../resources/threshold.ts";
import type { ThresholdStore } from "../storage/threshold-store.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";

/** The threshold operations of one account. */
export function createThresholdOperations(storage: ThresholdStore, context: OperationContext) {
  const { accountId, clock } = context;

  return {
    async create(parsed: z.output<typeof ThresholdCreateInput>) {
      const at = clock().toISOString();
      const record: ThresholdRecord = {
        id: createId("threshold"),
        accountId,
        metric: parsed.metric,
        comparison: parsed.comparison,
        value: parsed.value,
        eventId: parsed.eventId ?? null,
        createdAt: at,
        updatedAt: at,
      };
      if (!(await storage.insertThreshold(record))) throw notFound("Event", record.eventId!, "eventId");
      return toApiThreshold(record);
    },

    async get(id: string) {
      const threshold = await storage.getThreshold(accountId, id);
      if (!threshold) throw notFound("Threshold", id);
      return toApiThreshold(threshold);
    },

    async update(id: string, parsed: z.output<typeof ThresholdUpdateInput>) {
      const current = await storage.getThreshold(accountId, id);
      if (!current) throw notFound("Threshold", id);
      // The merged threshold is checked as a new one would be: a value of 150 is fine for
      // total_emissions_kg, not once the metric is a percentage.
      const merged = parseInput(ThresholdCreateInput, {
        metric: parsed.metric ?? current.metric,
        comparison: parsed.comparison ?? current.comparison,
        value: parsed.value ?? current.value,
        eventId: parsed.eventId === undefined ? current.eventId : parsed.eventId,
      });
      const after: ThresholdRecord = {
        ...current,
        metric: merged.metric,
        comparison: merged.comparison,
        value: merged.value,
        eventId: merged.eventId ?? null,
        updatedAt: clock().toISOString(),
      };
      const judgedAlike =
        after.metric === current.metric &&
        after.comparison === current.comparison &&
        after.value === current.value &&
        after.eventId === current.eventId;
      const outcome = await storage.updateThreshold(after, !judgedAlike);
      if (outcome === "not-found") throw notFound("Threshold", id);
      if (outcome === "no-event") throw notFound("Event", after.eventId!, "eventId");
      return toApiThreshold(after);
    },

    async delete(id: string) {
      const deleted = await storage.deleteThreshold(accountId, id);
      if (!deleted) throw notFound("Threshold", id);
      return { success: true as const, message: `Threshold ${id} was deleted.`, deletedId: id };
    },

    async list(parsed: z.output<typeof ThresholdListQuery>) {
      const page = await storage.listThresholds(accountId, parsed);
      return {
        thresholds: page.items.map(toApiThreshold),
        pagination: paginate(parsed.page, parsed.limit, page.total),
      };
    },
  };
}
