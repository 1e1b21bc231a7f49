import type { Kysely } from "kysely";
import type { EventRecord } from "../resources/event.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { type Param, precompile } from "./precompiled.ts";
import { rowToEvent } from "./rows.ts";

/** Locks and returns the account's event (the row lock that serialises everything about its registrations), or `null`. */
export type EventLock = (conn: Kysely<Database>, accountId: string, eventId: string) => Promise<EventRecord | null>;

/** The event lock's statement on `db`, compiled once (every registration runs it), for transactions of `db`. */
export function createEventLock(db: Kysely<Database>, dialect: SqlDialect): EventLock {
  const query = precompile(db, (conn, param: Param<{ id: string; account: string }>) =>
    dialect.lockRows(conn.selectFrom("events").selectAll().where("id", "=", param("id")).where("account_id", "=", param("account"))),
  );
  return async (conn, accountId, eventId) => {
    const row = (await query({ id: eventId, account: accountId }, conn)).rows[0];
    return row ? rowToEvent(row) : null;
  };
}
