import type { ErrorCode } from "@event-service/core";

/** A failure the service did not answer: the network failed, or the answer was not the service's error body. */
export type ClientErrorCode = ErrorCode | "NETWORK_ERROR" | "UNEXPECTED_RESPONSE";

/**
 * The one error every failed call throws: the service's error body (`code`, `message`,
 * `field`, `details`) and the HTTP status; `status` 0 when no answer came.
 *
 * @example
 * try {
 *   await client.attendees.register(input);
 * } catch (error) {
 *   if (EventServiceError.is(error) && error.code === "EVENT_FULL") showWaitlist();
 *   else throw error;
 * }
 */
export class EventServiceError extends Error {
  override readonly name = "EventServiceError";
  readonly status: number;
  readonly code: ClientErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** `Retry-After` of the answer in seconds, when it carried one (429, 503, 409 IDEMPOTENCY_KEY_IN_USE). */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    code: ClientErrorCode;
    message: string;
    field?: string | undefined;
    details?: Record<string, unknown> | undefined;
    retryAfter?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }

  /** True for any `EventServiceError`, also one from another copy of this package (checked by name, not `instanceof`). */
  static is(value: unknown): value is EventServiceError {
    return value instanceof Error && value.name === "EventServiceError";
  }
}
