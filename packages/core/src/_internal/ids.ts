import { randomBytes, randomInt } from "node:crypto";

/** Resource id prefixes, Stripe style: the prefix tells what an id names. */
export const ID_PREFIXES = {
  account: "acct",
  apiKey: "key",
  event: "evt",
  attendee: "att",
  webhook: "wh",
  delivery: "dlv",
  activity: "act",
  threshold: "thr",
  vendor: "ven",
  booking: "vbk",
  ticketLink: "tkl",
  checkInLink: "chl",
  payment: "pay",
  email: "eml",
} as const;

/** Bytes drawn from the CSPRNG at once: one call per 4 KiB, not per id (as `randomUUID` caches its entropy). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

/** `bytes` random bytes as hex, from the pool; each byte is handed out once. */
function randomHex(bytes: number): string {
  if (taken + bytes > pool.length) {
    // A new buffer, not a refill: ids already handed out are strings, nothing reads the old one.
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const hex = pool.toString("hex", taken, taken + bytes);
  taken += bytes;
  return hex;
}

/** A new random id such as `evt_5f0c2a9d8b7e6f1a2b3c4d5e` (96 random bits). */
export function createId(kind: keyof typeof ID_PREFIXES): string {
  return `${ID_PREFIXES[kind]}_${randomHex(12)}`;
}

/** Characters of confirmation codes: no 0/O/1/I, so a code read aloud or off paper is unambiguous. */
export const CONFIRMATION_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

/** A new confirmation code such as `EVT-7KQ2-M9XH` (40 random bits). */
export function createConfirmationCode(): string {
  let chars = "";
  for (let i = 0; i < 8; i++) chars += CONFIRMATION_ALPHABET[randomInt(CONFIRMATION_ALPHABET.length)];
  return `EVT-${chars.slice(0, 4)}-${chars.slice(4)}`;
}
