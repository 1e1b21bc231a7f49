/**
 * @event-service/core/internal: what the bundled server (`@event-service/server`) needs of core
 * beyond the public API, to read and check its configuration at startup and to load what only
 * some requests need when first used. Internal: not covered by semver, it changes with the
 * server; embedders use the root export.
 */
export { createFactorSets } from "./carbon/factor-sets.ts";
export { DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE } from "./http/auth-failure-limit.ts";
export { compileTrustProxy } from "./http/client-address.ts";
export { parseCorsOrigins } from "./http/cors.ts";
export { DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE } from "./http/link-limits.ts";
export { DEFAULT_RETRY_DELAYS_MS } from "./rules/delivery-status.ts";
export { onFirstUse } from "./_internal/on-first-use.ts";
