/** A stored Idempotency-Key and, once the first request finished, its response. */
export interface IdempotencyRecord {
  accountId: string;
  key: string;
  requestHash: string;
  state: "running" | "done";
  response: { status: number; body: string } | null;
  createdAt: string;
  expiresAt: string;
}

/**
 * Idempotency-Keys: claimed by a request, completed with its answer, released when it failed
 * unexpectedly.
 * Each method is atomic (see `Storage`).
 */
export interface IdempotencyStore {
  /**
   * Claims an Idempotency-Key for a request, atomically. Returns `null` when this call now holds
   * the key (it was unused, expired, or a claim older than `staleBefore` was abandoned), else the
   * record that holds it.
   */
  claimIdempotencyKey(claim: {
    accountId: string;
    key: string;
    requestHash: string;
    now: string;
    expiresAt: string;
    staleBefore: string;
  }): Promise<IdempotencyRecord | null>;
  /** Stores the response of a claimed key; later claims get it back. */
  completeIdempotencyKey(accountId: string, key: string, response: { status: number; body: string }): Promise<void>;
  /** Gives a claimed key up (its request failed unexpectedly) so that a retry runs again. */
  releaseIdempotencyKey(accountId: string, key: string): Promise<void>;
}
