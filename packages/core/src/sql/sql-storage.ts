import { randomBytes, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { EmissionFactorSetInput } from "../carbon/emission-factors.ts";
import { createFactorSets } from "../carbon/factor-sets.ts";
import { ServiceError } from "../errors.ts";
import type { Storage } from "../storage.ts";
import { type StoreFault, storeUnavailable, WRITE_FAULTS } from "../storage/lifecycle-store.ts";
import { createAccountStore } from "./account-sql.ts";
import { createActivityStore } from "./activity-sql.ts";
import { createAnalyticsQueries } from "./analytics-queries.ts";
import { createAnalyticsStore } from "./analytics-sql.ts";
import { createAttendeeStore } from "./attendee-sql.ts";
import type { Database } from "./database.ts";
import { createDeliveryMethods } from "./delivery-sql.ts";
import { createEmailStore } from "./email-sql.ts";
import { dialectOf } from "./dialect.ts";
import { createEventStore } from "./event-sql.ts";
import { createIdempotencyStore } from "./idempotency-sql.ts";
import { createLifecycleStore } from "./lifecycle-sql.ts";
import type { SqlContext } from "./sql-context.ts";
import { createThresholdStore } from "./threshold-sql.ts";
import { createTransactionStore } from "./transaction-sql.ts";
import { createVendorStore } from "./vendor-sql.ts";
import { createPaymentStore } from "./payment-sql.ts";
import { createTicketLinkStore } from "./ticket-link-sql.ts";
import { createCheckInLinkStore } from "./check-in-link-sql.ts";
import { createWebhookStore } from "./webhook-sql.ts";

/** Options of {@link createSqlStorage}. */
export interface SqlStorageOptions {
  /** A kysely instance on SQLite (`SqliteDialect`) or PostgreSQL (`PostgresDialect`). The storage does not own its driver's settings. */
  db: Kysely<Database>;
  /**
   * The emission factor sets of the kept figures (an event's `carbonFootprint`, analytics), one
   * per year: each event is priced by the set of its start's year, else the latest earlier one,
   * else the earliest (`createFactorSets`); none given (or `[]`): the bundled
   * `DEFAULT_EMISSION_FACTORS` (2023) alone, which a list may include. Given, `migrate()` prices
   * again the events whose set changed; left out, `migrate()` leaves the figures as they are (a
   * tool that writes no registration, such as the CLI's `keys` commands, must not reprice them
   * under a server that uses its own sets). Every process that writes registrations on one
   * database must use the same sets. Two sets of one year throw.
   */
  emissionFactors?: EmissionFactorSetInput | readonly EmissionFactorSetInput[];
  /** The clock of the times the storage records on its own (when `migrate()` recomputed the kept figures). Default: the system clock. */
  now?: () => Date;
}

/**
 * The storage on SQL through kysely: SQLite or PostgreSQL, with the same code. Each concern is
 * its own module (`account-sql.ts`, `event-sql.ts`, `attendee-sql.ts`, `transaction-sql.ts`, ...)
 * over one shared context; all dialect differences are in `sql/dialect.ts`.
 *
 * @example
 * const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) }) });
 * await storage.migrate();
 */
export function createSqlStorage(options: SqlStorageOptions): Storage {
  const { db } = options;
  const dialect = dialectOf(db);
  const given = options.emissionFactors;
  const factorSets = createFactorSets(given === undefined ? [] : Array.isArray(given) ? given : [given]);
  const ctx: SqlContext = {
    db,
    dialect,
    write: (fn) => dialect.writeTransaction(db, fn),
    factorSets,
    factorsGiven: options.emissionFactors !== undefined,
    now: options.now ?? (() => new Date()),
  };
  const storage: Storage = {
    ...createLifecycleStore(ctx),
    ...createTransactionStore(ctx, (conn, account, eventId) =>
      createAnalyticsQueries(conn, dialect, factorSets).eventAnalyticsFigures(account, eventId),
    ),
    ...createAccountStore(ctx),
    ...createIdempotencyStore(ctx),
    ...createEventStore(ctx),
    ...createAttendeeStore(ctx),
    ...createWebhookStore(ctx),
    ...createThresholdStore(ctx),
    ...createDeliveryMethods(db, dialect, ctx.write),
    ...createAnalyticsStore(ctx),
    ...createActivityStore(ctx),
    ...createVendorStore(ctx),
    ...createPaymentStore(ctx),
    ...createEmailStore(db, dialect, ctx.write),
    ...createTicketLinkStore(ctx),
    ...createCheckInLinkStore(ctx),
  };
  storage.emissionFactors = factorSets.latest;
  storage.factorSets = factorSets;
  // A real write that leaves nothing behind, and as large as a burst of writes: a full disk
  // still takes a write of a page or two (SQLite's log reuses its file's space), not the
  // requests' writes. Made only while a write fault is remembered.
  const probeWrite = () =>
    ctx.write(async (trx) => {
      const probe = { account_id: "health_probe", key: randomUUID() };
      await trx
        .insertInto("idempotency_keys")
        .values({
          ...probe,
          request_hash: "",
          state: "probe",
          response_body: probePayload(),
          created_at: "",
          expires_at: "",
        })
        .execute();
      await trx
        .deleteFrom("idempotency_keys")
        .where("account_id", "=", probe.account_id)
        .where("key", "=", probe.key)
        .execute();
    });
  return withAvailability(storage, (error) => dialect.storeFault(error), probeWrite);
}

/**
 * Turns errors that mean "the store cannot serve now" into `503 SERVICE_UNAVAILABLE` (with the
 * fault in `details.fault`), on every method. Remembers a write that failed for one of the
 * {@link WRITE_FAULTS}: `ping()` then makes `probeWrite`, not a read, until one succeeds, since
 * a disk that is full or a server that turned read-only still answers reads.
 */
function withAvailability(
  storage: Storage,
  storeFault: (error: unknown) => StoreFault | null,
  probeWrite: () => Promise<unknown>,
): Storage {
  let writeFault: StoreFault | undefined;
  const ping = storage.ping;
  storage.ping = async () => {
    if (writeFault === undefined) return ping();
    await probeWrite();
    writeFault = undefined;
  };
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(storage) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    if (typeof method !== "function") {
      wrapped[name] = method;
      continue;
    }
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (error) {
        const fault = ServiceError.is(error) ? null : storeFault(error);
        if (fault === null) throw error;
        if (WRITE_FAULTS.includes(fault)) writeFault = fault;
        throw storeUnavailable(fault, error);
      }
    };
  }
  return wrapped as unknown as Storage;
}

/** The size of the health probe's write: some 64 pages, incompressible (PostgreSQL compresses large text). */
const PROBE_BYTES = 256 * 1024;
let payload: string | undefined;
const probePayload = () => (payload ??= randomBytes((PROBE_BYTES * 3) / 4).toString("base64"));
