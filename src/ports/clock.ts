/** Time source; domain code never calls Date.now() directly. */
export interface Clock {
  /** Current time in Unix milliseconds. */
  now(): number
}
