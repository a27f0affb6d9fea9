/**
 * A profile's experience durations depend on today (an ongoing role runs to today), so the stored
 * profile document is a template: each `totalDuration` value is a placeholder between two raw U+0001
 * characters. JSON.stringify escapes every control character in user text, so a raw U+0001 can only
 * be one of ours. Rendering is a split and a few integer operations, with no JSON parse.
 */
import { randomBytes } from 'node:crypto'
import type { Profile } from '../../contract/resources.schemas.ts'

const MARK = '\u0001'
const MARK_BYTE = 0x01

interface YearMonth {
  year: number
  month?: number | undefined
}

/** "2 yrs 3 mos": both ends counted; year-only dates count whole years. */
export function durationLabel(start: YearMonth, end: YearMonth): string {
  let months: number
  if (start.month === undefined || end.month === undefined) {
    months = Math.max(1, end.year - start.year + 1) * 12
  } else {
    months = Math.max(1, end.year * 12 + end.month - (start.year * 12 + start.month) + 1)
  }
  const years = Math.floor(months / 12)
  const rest = months % 12
  const parts: string[] = []
  if (years > 0) parts.push(`${years} yr${years > 1 ? 's' : ''}`)
  if (rest > 0) parts.push(`${rest} mo${rest > 1 ? 's' : ''}`)
  return parts.join(' ')
}

function encodeYm(ym: YearMonth | null): string {
  if (ym === null) return 'now'
  return ym.month === undefined ? String(ym.year) : `${ym.year}-${ym.month}`
}

function decodeYm(text: string, today: Date): YearMonth {
  if (text === 'now') return { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 }
  const [y, m] = text.split('-')
  return m === undefined ? { year: Number(y) } : { year: Number(y), month: Number(m) }
}

/**
 * Serialises a profile into its stored template. `totalDuration` given in the input is ignored:
 * it is always derived from the time period, so it can never disagree with it.
 */
export function profileTemplate(profile: Profile): string {
  const nonce = randomBytes(9).toString('base64url')
  const specs: string[] = []
  const experiences = profile.experiences.map((e) => {
    const { totalDuration: _ignored, ...rest } = e
    const tp = e.timePeriod
    if (tp === undefined || !('startDate' in tp)) return rest
    specs.push(`${encodeYm(tp.startDate)}/${encodeYm(tp.endDate)}`)
    // Keep the field where the contract lists it (after `ongoing`).
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(rest)) {
      out[k] = v
      if (k === 'ongoing') out.totalDuration = `${nonce}:${specs.length - 1}`
    }
    return out
  })
  let json = JSON.stringify({ ...profile, experiences })
  specs.forEach((spec, i) => {
    json = json.replace(`"${nonce}:${i}"`, `${MARK}${spec}${MARK}`)
  })
  return json
}

/**
 * A renderer that memoises labels: a label depends only on its placeholder and the current month, and
 * the same few hundred placeholders recur across profiles, so the hot path is a Map lookup per
 * experience. The memo is dropped when the month changes, so it stays small. It works on the stored
 * UTF-8 bytes: a 0x01 byte can only be U+0001 in UTF-8 (multi-byte sequences use bytes >= 0x80).
 */
export function createProfileRenderer(): { render(template: Buffer, nowMs: number): Buffer } {
  let month = ''
  let labels = new Map<string, Buffer>()
  return {
    render(template, nowMs) {
      let at = template.indexOf(MARK_BYTE)
      if (at < 0) return template
      const today = new Date(nowMs)
      const key = `${today.getUTCFullYear()}-${today.getUTCMonth()}`
      if (key !== month) {
        month = key
        labels = new Map()
      }
      const parts: Buffer[] = []
      let from = 0
      while (at >= 0) {
        const end = template.indexOf(MARK_BYTE, at + 1)
        const spec = template.toString('latin1', at + 1, end)
        let label = labels.get(spec)
        if (label === undefined) {
          const [start, stop] = spec.split('/') as [string, string]
          label = Buffer.from(JSON.stringify(durationLabel(decodeYm(start, today), decodeYm(stop, today))))
          labels.set(spec, label)
        }
        parts.push(template.subarray(from, at), label)
        from = end + 1
        at = template.indexOf(MARK_BYTE, from)
      }
      parts.push(template.subarray(from))
      return Buffer.concat(parts)
    },
  }
}

/** Renders a stored template (text or bytes) for the given instant, as text. */
export function renderProfile(template: string | Buffer, nowMs: number): string {
  return createProfileRenderer().render(Buffer.from(template), nowMs).toString()
}
