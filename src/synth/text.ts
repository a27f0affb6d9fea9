/** Small text helpers shared by the factories (no locale-dependent formatting: output must be stable). */

export const MONTHS_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const
export const MONTHS_LONG = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const

const FOLD: Record<string, string> = { ß: 'ss', ł: 'l', Ł: 'l', ø: 'o', Ø: 'o', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', đ: 'd', Đ: 'd', '&': 'and' }

/** Lower-case, URL-safe slug: diacritics folded, anything else becomes a single hyphen. */
export function slugify(text: string): string {
  let s = ''
  for (const ch of text.normalize('NFD')) s += FOLD[ch] ?? ch
  return s
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

export interface YearMonth {
  year: number
  month?: number
}

export function formatYm(ym: YearMonth): string {
  return ym.month === undefined ? String(ym.year) : `${MONTHS_SHORT[ym.month - 1]} ${ym.year}`
}

/** "Mar 2021 - Present", "2015 - 2017", or the end alone when the start is unknown. */
export function dateRangeText(start: YearMonth | null, end: YearMonth | null): string {
  const endText = end === null ? 'Present' : formatYm(end)
  return start === null ? endText : `${formatYm(start)} - ${endText}`
}

/** 12345 → "12,345" (fixed format, independent of the host locale). */
export function groupDigits(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Cuts text at a word boundary to at most `max` characters, adding an ellipsis when it cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`
}

/** "January 12, 2023" */
export function longDate(ms: number): string {
  const d = new Date(ms)
  return `${MONTHS_LONG[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`
}

/** Months since year 0 for a (year, month 1-12). */
export const monthIndex = (year: number, month: number): number => year * 12 + (month - 1)
export const fromMonthIndex = (index: number): { year: number; month: number } => ({
  year: Math.floor(index / 12),
  month: (index % 12) + 1,
})
