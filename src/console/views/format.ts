/** How the console writes numbers, money and instants: fixed formats, independent of the host's locale. */
export const num = (n: number): string => n.toLocaleString('en-US')

export const money = (cents: number): string => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`

/** An instant as `2026-12-04 18:55 UTC`. */
export const when = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** A day as `2026-12-04`. */
export const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** `1 credit`, `2 credits`. */
export const count = (n: number, one: string, many: string): string => `${num(n)} ${n === 1 ? one : many}`
