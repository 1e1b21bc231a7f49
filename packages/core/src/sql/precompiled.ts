import {
  type Compilable,
  type CompiledQuery,
  type Expression,
  type Kysely,
  type OperationNode,
  type QueryResult,
  ValueNode,
} from "kysely";
import type { Database } from "./database.ts";

/**
 * The placeholder of a named parameter in a query built for {@link precompile}: it compiles to a
 * bound parameter whose value is itself, which the runner replaces by the value of its name.
 */
class Placeholder<T> implements Expression<T> {
  constructor(readonly name: string) {}

  /** Carries the type only, as kysely's own expressions do. */
  get expressionType(): T | undefined {
    return undefined;
  }

  toOperationNode(): OperationNode {
    return ValueNode.create(this);
  }
}

/**
 * The named parameters `P` of a precompiled statement, as its builder receives them:
 * `param("id")` stands for the value of `id`, typed `P["id"]` in the query.
 */
export type Param<P> = <K extends keyof P & string>(name: K) => Expression<P[K]>;

/** A precompiled statement: runs with the values of its parameters, on `conn` (a transaction) or the instance it was compiled for. */
export type Precompiled<P, R> = (values: P, conn?: Kysely<Database>) => Promise<QueryResult<R>>;

/** A {@link Param} for each of `columns`, named after it: the values of a precompiled insert of those columns. */
export function params<P, C extends keyof P & string>(
  param: Param<P>,
  columns: readonly C[],
): { [K in C]: Expression<P[K]> } {
  const values: Partial<Record<C, Expression<P[C]>>> = {};
  for (const column of columns) values[column] = param(column);
  return values as { [K in C]: Expression<P[K]> };
}

/**
 * Compiles a kysely query once and returns a runner that executes it with new parameter values,
 * skipping kysely's per-call query building and compiling on the hot path. The SQL is kysely's,
 * for the dialect of `db`. The parameters are declared by the type of the builder's `param`
 * (`(conn, param: Param<{ id: string }>) => ...`), the row type is the query's; any value not
 * given through `param` stays as compiled.
 *
 * @example
 * const eventById = precompile(db, (conn, param: Param<{ id: string }>) => conn.selectFrom("events").selectAll().where("id", "=", param("id")));
 * const { rows } = await eventById({ id });
 */
export function precompile<R, P = Record<never, never>>(
  db: Kysely<Database>,
  build: (conn: Kysely<Database>, param: Param<P>) => Compilable<R>,
): Precompiled<P, R> {
  const param = <K extends keyof P & string>(name: K): Expression<P[K]> => new Placeholder<P[K]>(name);
  const compiled = build(db, param).compile();
  // Each bound value: the name of a parameter, or a value compiled in.
  const slots: Array<{ name: keyof P } | { value: unknown }> = compiled.parameters.map((value) =>
    value instanceof Placeholder ? { name: value.name as keyof P } : { value },
  );
  return (values, conn = db) => {
    const parameters = slots.map((slot) => ("name" in slot ? values[slot.name] : slot.value));
    const query: CompiledQuery<R> = { sql: compiled.sql, parameters, query: compiled.query, queryId: compiled.queryId };
    return conn.executeQuery(query);
  };
}
