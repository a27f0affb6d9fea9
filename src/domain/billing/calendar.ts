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

/** The last instant an operator may name: 9999-12-31T23:59:59.999Z (ISO 8601's four-digit years). */
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * The latest the test clock may be set to: a year before MAX_INSTANT_MS, so that what the rules work
 * out from "now" (a pack's expiry 12 months on, the next renewal) is still an instant an operator may
 * name and the API renders in ISO 8601's four-digit years (a clock at 9999-12-31 would show renewal
 * dates as "+010000-01-31T…").
 */
export const MAX_CLOCK_MS = Date.UTC(9998, 11, 31, 23, 59, 59, 999)

/** What parseInstant reads, in words, for the refusals of the admin API and the CLI. */
export const INSTANT_FORMS = 'an ISO 8601 instant with its zone (2027-01-31T09:30:00Z), a day (2027-01-31), or epoch milliseconds, up to the year 9999'

const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

/**
 * An operator's instant: ISO 8601 with a zone (`2027-01-31T09:30:00Z`, `…+01:00`), a bare day
 * (midnight UTC), or epoch milliseconds in digits. Undefined for anything else, for a day or time
 * that does not exist (Date.parse rolls 30 February over into March; a pack's expiry would follow),
 * and for instants past MAX_INSTANT_MS.
 */
export function parseInstant(text: string): number | undefined {
  let ms: number | undefined
  if (/^\d{1,16}$/.test(text)) ms = Number(text)
  else {
    const m = ISO_INSTANT.exec(text)
    if (!m) return undefined
    const day = parseDay(m[1] as string)
    if (day === undefined) return undefined
    const [hh, mm, ss] = [m[2], m[3], m[4]].map((x) => Number(x ?? 0)) as [number, number, number]
    if (hh > 23 || mm > 59 || ss > 59) return undefined
    const zone = m[6]
    const offset = zone === undefined || zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)))
    if (Math.abs(offset) > 18 * 60 || Number(zone?.slice(4, 6) ?? 0) > 59) return undefined
    ms = day + ((hh * 60 + mm - offset) * 60 + ss) * 1000 + Math.floor(Number(m[5] ?? 0) * 1000)
  }
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_INSTANT_MS ? ms : undefined
}
