import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { FactorSets } from "../carbon/factor-sets.ts";
import type { Page } from "../storage/common.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";

/** What every part of the SQL storage shares: the database, its dialect, and how a write runs. */
export interface SqlContext {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** Runs `fn` in a write transaction of the dialect (the write lock on SQLite; row locks taken inside it on PostgreSQL). */
  write<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** The factor sets, one per year, that price each event's kept figures (by its start's year). */
  factorSets: FactorSets;
  /** Whether the sets were given (`migrate()` then brings the stored figures to them). */
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

/**
 * One page of a list: the rows of `base` that `ordered` selects and sorts, page `query.page` of
 * `query.limit` rows, and how many rows `base` has in all, both read at once. `ordered` must end
 * its order on a unique column, so that pages neither overlap nor skip a row.
 */
export async function readPage<DB, TB extends keyof DB, O, Row>(
  base: SelectQueryBuilder<DB, TB, O>,
  query: { page: number; limit: number },
  ordered: (base: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, Row>,
): Promise<Page<Row>> {
  const [count, items] = await Promise.all([
    // Over a generic builder the compiler cannot resolve the selection's type far enough to name `n`.
    base.select(sql<number>`count(*)`.as("n")).$castTo<{ n: number }>().executeTakeFirstOrThrow(),
    ordered(base)
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ]);
  return { items, total: Number(count.n) };
}
