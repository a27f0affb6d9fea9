/**
 * Inputs read as written. Fastify's validator coerces types (a string "7000" becomes 7000, `true`
 * becomes 1, `null` becomes 0 or false), which turns a mistaken call into a silent, sometimes
 * destructive change; these checks run first and refuse such input with a free 400 naming the field.
 */
import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { invalidParameter } from '../domain/errors.ts'

/** Longest run of digits passed on as written: beyond it a value is read as this (any limit refuses or caps it). */
const HUGE_DIGITS = '999999999999999'

/**
 * Query parameters read as written:
 * - Each is given once. A repeated one (`count=5&count=5`) reaches the validator as a list, which
 *   would refuse as "must be string"; here it is a free 400 saying so.
 * - Integer ones are whole numbers in decimal digits. The schema validator coerces with Number(),
 *   which takes `0x10`, `1e1`, ` 10`, `Infinity` and `-Infinity` (the last two even past a minimum)
 *   and lets 1e19 reach SQLite as a float; here such text is a free 400 naming the parameter, and
 *   more digits than an offset or count can mean are read as a large safe integer.
 */
export function strictQuery(schema: TSchema | undefined): ((request: FastifyRequest) => Promise<void>) | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {}
  const names = Object.keys(properties)
  if (names.length === 0) return undefined
  const integers = names.filter((name) => properties[name]?.type === 'integer')
  return async (request) => {
    const query = request.query as Record<string, unknown>
    for (const name of names) {
      if (Array.isArray(query[name])) throw invalidParameter(name, 'is given more than once; send it once.')
    }
    for (const name of integers) {
      const raw = query[name]
      // An absent one keeps the validator's own answer; an empty one is refused as any other text.
      if (typeof raw !== 'string') continue
      if (!/^-?\d+$/.test(raw)) throw invalidParameter(name, 'must be a whole number written in decimal digits.')
      const digits = raw.replace(/^-0*|^0+(?=\d)/, '')
      if (digits.length > HUGE_DIGITS.length) query[name] = raw.startsWith('-') ? `-${HUGE_DIGITS}` : HUGE_DIGITS
    }
  }
}

const KINDS: Record<string, [(v: unknown) => boolean, string]> = {
  integer: [(v) => Number.isInteger(v), 'a whole number'],
  number: [(v) => typeof v === 'number', 'a number'],
  string: [(v) => typeof v === 'string', 'a string'],
  boolean: [(v) => typeof v === 'boolean', 'true or false'],
  array: [(v) => Array.isArray(v), 'a list'],
}

type FieldSchema = { type?: unknown; anyOf?: { type?: unknown }[] }

/** Whether a field's schema takes `null` as a value of its own (a nullable union), as removing a limit does. */
const takesNull = (field: FieldSchema | undefined): boolean => field?.anyOf?.some((t) => t.type === 'null') ?? false

/** The JSON type a field's value must have when it is not null: its own, or that of a nullable union's one other branch. */
function typeOf(field: FieldSchema | undefined): unknown {
  if (field?.type !== undefined || !takesNull(field)) return field?.type
  const others = (field?.anyOf ?? []).filter((t) => t.type !== 'null')
  return others.length === 1 ? others[0]?.type : undefined
}

/**
 * A JSON body's fields as sent: `null` reads as omitted (so it never means 0 or false: an operator's
 * `{"creditsLimit": null}` would set the allowance to 0), and a field of the wrong JSON type is refused
 * rather than coerced. What else is wrong (ranges, unknown fields, required ones) is the schema's.
 *
 * A field whose schema takes null as a value of its own (`{"monthlyCreditLimit": null}` removes a
 * key's limit) is taken out of the body too, since the validator would coerce its null to 0, and its
 * name returned: the route puts the null back (withNulls).
 */
export function strictBodyFields(schema: unknown, body: unknown): string[] {
  const nulls: string[] = []
  const properties = (schema as { properties?: Record<string, FieldSchema> } | undefined)?.properties
  if (!properties || body === null || typeof body !== 'object' || Array.isArray(body)) return nulls
  const fields = body as Record<string, unknown>
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) {
      if (takesNull(properties[name])) nulls.push(name)
      delete fields[name]
      continue
    }
    const type = typeOf(properties[name])
    const kind = typeof type === 'string' ? KINDS[type] : undefined
    if (kind && !kind[0](value)) throw invalidParameter(name, `must be ${kind[1]}.`)
  }
  return nulls
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's fields sent as null that take null as a value (see strictBodyFields). */
    nullFields?: string[]
  }
}

/** The validated body with the fields sent as null (that take null) put back. */
export function withNulls<T extends object>(request: FastifyRequest): T {
  const body = { ...((request.body ?? {}) as T) } as Record<string, unknown>
  for (const name of request.nullFields ?? []) body[name] = null
  return body as T
}
