import { ServiceError } from "../errors.ts";

/** A status machine: for each status, the statuses it may move to (staying put is always allowed). */
export type TransitionTable<S extends string> = Readonly<Record<S, readonly S[]>>;

/** True when `table` lets a `from` move to `to` (including staying where it is). */
export function isTransitionAllowed<S extends string>(table: TransitionTable<S>, from: S, to: S): boolean {
  return from === to || table[from].includes(to);
}

/** Throws `INVALID_STATE_TRANSITION` (field `status`) unless `table` lets `from` move to `to`. */
export function assertTransition<S extends string>(table: TransitionTable<S>, noun: string, from: S, to: S): void {
  if (isTransitionAllowed(table, from, to)) return;
  const allowed = table[from];
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message:
      `${noun} cannot go from ${from} to ${to}` +
      (allowed.length ? ` (allowed: ${allowed.join(", ")}).` : ` (${from} is final).`),
    field: "status",
    details: { from, to, allowed: [...allowed] },
  });
}
