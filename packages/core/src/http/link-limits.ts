/** The default budgets of the links a person holds: requests through one link per minute and process. */

/** Requests through one link allowed per minute and process, by default. */
export const DEFAULT_LINK_LIMIT_PER_MINUTE = 120;
/**
 * Requests through one door's check-in link allowed per minute and process, by default: 20 a
 * second, so a link shared by a whole gate's phones, or a door sending back an hour's queue of
 * offline scans, is not refused, while a leaked link reaches a small share of what a process serves.
 */
export const DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE = 1_200;
