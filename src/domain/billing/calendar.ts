/**
 * Calendar arithmetic in UTC for billing periods and pack expiry. "N calendar months after" keeps the
 * time of day and clamps the day to the target month's length (31 Jan + 1 month = 28/29 Feb;
 * 29 Feb 2028 + 12 months = 28 Feb 2029), the same as PostgreSQL's `+ interval 'N months'`.
 */
export const DAY_MS = 86_400_000

const daysInMonth = (year: number, month0: number): number => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate()

/** The instant `months` calendar months after `ms`, day clamped to the target month. */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms)
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months
  const year = Math.floor(total / 12)
  const month0 = total - year * 12
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month0))
  return Date.UTC(year, month0, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds())
}

/** The first monthly anniversary of `anchor` (anchor + k months, k ≥ 1) strictly after `after`. */
export function nextAnniversary(anchor: number, after: number): number {
  const a = new Date(anchor)
  const b = new Date(after)
  // Start one month before the calendar estimate and walk forward: clamping never skips a month.
  let k = Math.max(1, (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() - 1)
  while (addMonths(anchor, k) <= after) k++
  while (k > 1 && addMonths(anchor, k - 1) > after) k--
  return addMonths(anchor, k)
}

/** `YYYY-MM-DD` of the UTC day containing `ms`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** Midnight UTC of a valid `YYYY-MM-DD`, or undefined when the text is not a real calendar date. */
export function parseDay(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined
  const ms = Date.parse(`${text}T00:00:00.000Z`)
  return Number.isFinite(ms) && utcDay(ms) === text ? ms : undefined
}

export const iso = (ms: number): string => new Date(ms).toISOString()
