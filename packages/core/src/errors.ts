/**
 * The one error class of Event Service and the table of every error code it can answer with.
 *
 * Every failure that reaches a caller is a `ServiceError`; anything else is turned into
 * `INTERNAL_ERROR` at the HTTP boundary, with its cause kept for the log only.
 */

/** Every error code, with its HTTP status and the message used when none is given. */
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, message: "The request is invalid." },
  EVENT_FULL: { status: 400, message: "The event has no capacity left." },
  INVALID_URL: { status: 400, message: "The URL must use HTTPS." },
  INVALID_EVENT_TYPE: { status: 400, message: "Unknown event type." },
  INVALID_DATE_RANGE: { status: 400, message: "Invalid or unsupported date range." },
  INSUFFICIENT_DATA: { status: 400, message: "Not enough data for the analysis." },
  INVALID_SIGNATURE: { status: 400, message: "The notification's signature does not verify." },
  UNAUTHORIZED: { status: 401, message: "Missing or invalid API key." },
  FORBIDDEN: { status: 403, message: "The API key lacks the scope this request needs." },
  NOT_FOUND: { status: 404, message: "Resource not found." },
  DUPLICATE_REGISTRATION: { status: 409, message: "This email is already registered for the event." },
  DUPLICATE_WEBHOOK: { status: 409, message: "A webhook with this URL already exists." },
  VENDOR_IN_USE: { status: 409, message: "The vendor has an active booking." },
  DUPLICATE_BOOKING: { status: 409, message: "The vendor is already booked for this event." },
  ALREADY_CHECKED_IN: { status: 409, message: "This registration is already checked in." },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: "A request with this Idempotency-Key is still running." },
  REQUEST_TIMEOUT: { status: 408, message: "The request did not arrive in time." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body exceeds 1 MiB." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The request body must be JSON (Content-Type: application/json)." },
  INVALID_STATE_TRANSITION: { status: 422, message: "This status change is not allowed." },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: "This Idempotency-Key was used with a different request." },
  RATE_LIMIT_EXCEEDED: { status: 429, message: "Too many requests." },
  REQUEST_HEADERS_TOO_LARGE: { status: 431, message: "The request's header block (or request line) is too large." },
  INTERNAL_ERROR: { status: 500, message: "An unexpected error occurred." },
  SERVICE_UNAVAILABLE: { status: 503, message: "The service is temporarily unavailable." },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the upper-case error codes of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Options of a {@link ServiceError} beyond its code. */
export interface ServiceErrorOptions {
  /** Human-readable message; defaults to the code's message. */
  message?: string;
  /** The request field at fault, when exactly one is. */
  field?: string;
  /** Structured context safe to show the caller. */
  details?: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** The underlying error; logged, never sent. */
  cause?: unknown;
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    field?: string;
    details?: Record<string, unknown>;
    documentation?: string;
  };
}

/**
 * The error every part of the service throws on purpose.
 *
 * Checked with {@link ServiceError.is} (by name, so it works across duplicated package copies),
 * never with `instanceof`.
 *
 * @example
 * throw new ServiceError("NOT_FOUND", { message: "Event evt_123 not found." });
 */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, options: ServiceErrorOptions = {}) {
    super(options.message ?? ERROR_CODES[code].message, { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    if (options.field !== undefined) this.field = options.field;
    if (options.details !== undefined) this.details = options.details;
    if (options.headers !== undefined) this.headers = options.headers;
  }

  /** True for any `ServiceError`, including one thrown by another copy of this package. */
  static is(value: unknown): value is ServiceError {
    return value instanceof Error && value.name === "ServiceError" && "code" in value && "status" in value;
  }

  /** Wraps anything thrown: a `ServiceError` stays itself, anything else becomes `INTERNAL_ERROR`. */
  static from(value: unknown): ServiceError {
    return ServiceError.is(value) ? value : new ServiceError("INTERNAL_ERROR", { cause: value });
  }

  /** The response body; `documentation` links to the code's entry in the API reference when given a base. */
  toJSON(documentationBase?: string): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field !== undefined && { field: this.field }),
        ...(this.details !== undefined && { details: this.details }),
        ...(documentationBase !== undefined && { documentation: `${documentationBase}#${this.code}` }),
      },
    };
  }
}
