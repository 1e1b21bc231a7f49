import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { type DeleteResult, paginate } from "../resources/common.ts";
import {
  type Threshold,
  ThresholdCreateInput,
  ThresholdListQuery,
  type ThresholdRecord,
  ThresholdUpdateInput,
  toApiThreshold,
} from "../resources/threshold.ts";
import type { ThresholdStore } from "../storage/threshold-store.ts";
import type { ListResult, OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";

/**
 * Operations on one account's configured thresholds (docs/api.md, Thresholds). A threshold is
 * judged at the next change that moves its metric (`service/threshold-checks.ts`), never at
 * its creation or update.
 */
export interface ThresholdOperations {
  /**
   * Throws `INVALID_REQUEST` (naming the field: a value out of its metric's range too) and
   * `NOT_FOUND` (field `eventId`) for an event the account does not have.
   */
  create(input: ThresholdCreateInput): Promise<Threshold>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Threshold>;
  /**
   * Partial update; the value's range is checked against the metric after it. A change of
   * `metric`, `comparison`, `value` or `eventId` forgets the crossing state: the threshold is
   * judged afresh at the next change of its metric. Throws as create, and `NOT_FOUND`.
   */
  update(id: string, input: ThresholdUpdateInput): Promise<Threshold>;
  /** Deletes the threshold and its crossing state. Throws `NOT_FOUND`. */
  delete(id: string): Promise<DeleteResult>;
  /** One page of the account's thresholds, newest first. Throws `INVALID_REQUEST`. */
  list(query?: Record<string, unknown>): Promise<ListResult<"thresholds", Threshold>>;
}

/** The threshold operations of one account. */
export function createThresholdOperations(storage: ThresholdStore, context: OperationContext): ThresholdOperations {
  const { accountId, clock } = context;

  return {
    async create(input) {
      const parsed = parseInput(ThresholdCreateInput, input);
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

    async get(id) {
      const threshold = await storage.getThreshold(accountId, id);
      if (!threshold) throw notFound("Threshold", id);
      return toApiThreshold(threshold);
    },

    async update(id, input) {
      const parsed = parseInput(ThresholdUpdateInput, input);
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

    async delete(id) {
      const deleted = await storage.deleteThreshold(accountId, id);
      if (!deleted) throw notFound("Threshold", id);
      return { success: true, message: `Threshold ${id} was deleted.`, deletedId: id };
    },

    async list(query = {}) {
      const parsed = parseInput(ThresholdListQuery, query, "query");
      const page = await storage.listThresholds(accountId, parsed);
      return {
        thresholds: page.items.map(toApiThreshold),
        pagination: paginate(parsed.page, parsed.limit, page.total),
      };
    },
  };
}
