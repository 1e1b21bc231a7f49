import { ServiceError } from "../errors.ts";

/**
 * What an erasure writes in place of the personal data it removes from stored copies
 * (`eraseAttendee`, `deleteEvent`).
 */
export interface Erasure {
  /** The time of the erasure: the `erasedAt` of the payloads it redacts. */
  now: string;
  /** The answer that replaces a stored Idempotency-Key response that held the data (`ERASED_ANSWER`). */
  replay: { status: number; body: string };
}

/**
 * What a stored answer that held a registration's personal data becomes when the registration
 * is erased (or its event deleted): a replay answers `404 NOT_FOUND`, as a read of it would,
 * and the key stays used, so the retry does not register anyone again.
 */
export const ERASED_ANSWER: { readonly status: number; readonly body: string } = {
  status: 404,
  body: JSON.stringify(
    new ServiceError("NOT_FOUND", {
      message: "The registration this request answered with has been erased.",
      details: { erased: true },
    }).toJSON(),
  ),
};

/**
 * What a stored answer that held a deleted vendor's contact data becomes: a replay answers `404
 * NOT_FOUND`, as a read of the vendor would, and the key stays used.
 */
export const VENDOR_ERASED_ANSWER: { readonly status: number; readonly body: string } = {
  status: 404,
  body: JSON.stringify(
    new ServiceError("NOT_FOUND", {
      message: "The vendor this request answered with has been deleted.",
      details: { erased: true },
    }).toJSON(),
  ),
};
