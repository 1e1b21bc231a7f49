import { type Kysely, sql } from "kysely";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";

/** What every part of the SQL storage shares: the database, its dialect, and how a write runs. */
export interface SqlContext {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** Runs `fn` in a write transaction of the dialect (the write lock on SQLite; row locks taken inside it on PostgreSQL). */
  write<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** The travel emission factors the kept figures are computed with. */
  factors: EmissionFactorSet;
  /** Whether the set was given (`migrate()` then brings the stored figures to it). */
  factorsGiven: boolean;
  /** The storage's clock (the times it records on its own). */
  now(): Date;
}

/** `%text%` for a case-insensitive LIKE, with LIKE's wildcards escaped. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The right-hand side of a LIKE that uses our escape character. */
export function likePattern(text: string) {
  return sql`${containsPattern(text)} escape '\\'`;
}
