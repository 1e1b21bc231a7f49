import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely";

const MARK = "\u0000param:";

/** A named parameter of a query built for {@link precompile}. */
export function param(name: string): string {
  return `${MARK}${name}`;
}

/**
 * Compiles a kysely query once and returns a runner that executes it with new parameter
 * values, skipping kysely's per-call query building and compiling on the hot path. The SQL is
 * still kysely's, for the dialect of `db`; values given as {@link param} placeholders are
 * filled in by name, any other value stays as compiled.
 */
export function precompile<R, P extends string>(db: Kysely<any>, build: (db: Kysely<any>) => Compilable<R>) {
  const compiled = build(db).compile();
  const slots: Array<{ name: P } | { value: unknown }> = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(MARK) ? { name: value.slice(MARK.length) as P } : { value },
  );
  return (values: Record<P, unknown>): Promise<QueryResult<R>> =>
    db.executeQuery<R>(CompiledQuery.raw(compiled.sql, slots.map((slot) => ("name" in slot ? values[slot.name] : slot.value))));
}
