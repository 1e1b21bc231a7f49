/**
 * The entry `key` names among `record`'s own: `undefined` for no key, an unknown one, or a name
 * every object inherits ("constructor", "toString", "__proto__"), which a form field, a query or
 * a reason sent to a page must never reach.
 */
export function ownEntry<V>(record: Readonly<Record<string, V>>, key: string | null | undefined): V | undefined {
  return typeof key === "string" && Object.hasOwn(record, key) ? record[key] : undefined;
}
