/**
 * When an Idempotency-Key's stored claim still holds the key. Pure: the storage reads the claim
 * under its lock and asks here whether to answer with it or take the key over.
 */

/**
 * True while a claim holds its key: not expired at `now`, and either answered (`done`) or still
 * `running` since `staleBefore` or later. A running claim older than that was abandoned (its
 * process is presumed dead) and the key may run again.
 */
export function isClaimLive(
  claim: { state: string; createdAt: string; expiresAt: string },
  at: { now: string; staleBefore: string },
): boolean {
  return claim.expiresAt > at.now && !(claim.state === "running" && claim.createdAt < at.staleBefore);
}
