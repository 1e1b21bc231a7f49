/** One page of a list and the total across all pages. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** The state of a record before and after a change. */
export interface Change<T> {
  before: T;
  after: T;
}
