import { type Compilable, CompiledQuery, type Kysely, type QueryResult, SelectQueryNode } from "kysely";
import { directRead } from "./dialect.ts";

const MARK = "\u0000param:";

/** A named parameter of a query built for {@link precompile}. */
export function param(name: string): string {
  return `${MARK}${name}`;
}

/** A {@link param} for each of `columns`, named after it: the values of a precompiled insert of those columns. */
export function params<C extends string>(columns: readonly C[]): Record<C, string> {
  return Object.fromEntries(columns.map((column) => [column, param(column)])) as Record<C, string>;
}

/**
 * Compiles a kysely query once and returns a runner that executes it with new parameter
 * values, skipping kysely's per-call query building and compiling on the hot path. The SQL is
 * still kysely's, for the dialect of `db`; values given as {@link param} placeholders are
 * filled in by name, any other value stays as compiled. The runner executes on `conn` when
 * given (a transaction of `db`), else on `db`; there, on a `createSqliteDialect` instance, it
 * reads straight from the connection when no transaction is open there.
 */
export function precompile<R, P extends string>(db: Kysely<any>, build: (db: Kysely<any>) => Compilable<R>) {
  const compiled = build(db).compile();
  const slots: Array<{ name: P } | { value: unknown }> = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(MARK) ? { name: value.slice(MARK.length) as P } : { value },
  );
  // Only a select may skip the executor: a write must hold kysely's connection lock.
  const direct = SelectQueryNode.is(compiled.query) ? directRead(db, compiled.sql) : undefined;
  return (values: Record<P, unknown>, conn: Kysely<any> = db): Promise<QueryResult<R>> => {
    const parameters = slots.map((slot) => ("name" in slot ? values[slot.name] : slot.value));
    if (direct && conn === db) {
      try {
        const rows = direct(parameters) as R[] | undefined;
        if (rows) return Promise.resolve({ rows });
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return conn.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
  };
}
