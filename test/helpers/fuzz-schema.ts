/**
 * Values from the contract's own JSON Schemas (as /openapi.json serves them): ones a field accepts,
 * drawn mostly from the fuzzer's pools of real inputs (`hints`, by field name) so that calls reach
 * the stores, and ones at or past its edges. Only the keywords the contract uses are read.
 */
import fc from 'fast-check'
import { anyJson, hugeText, numbersAround, numericText, oddText, stringsAround } from './fuzz-values.ts'

export interface JsonSchema {
  type?: string
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  default?: unknown
}

/** Pools of real inputs by field name (`companies[]` for the items of `companies`). */
export type Hints = Readonly<Record<string, fc.Arbitrary<unknown>>>

const isNull = (s: JsonSchema) => s.type === 'null'

/** The schema's branches that are not `null` (an optional field documented as nullable). */
const branches = (s: JsonSchema): JsonSchema[] => (s.anyOf ? s.anyOf.flatMap((b) => branches(b)).filter((b) => !isNull(b)) : [s])

/** The type a scalar schema names (the first branch's for a union). */
export function typeOf(s: JsonSchema): string | undefined {
  const [first] = branches(s)
  if (!first) return undefined
  if (first.enum || first.const !== undefined) return 'enum'
  return first.type
}

/** A value the field accepts, from its pool when there is one. */
export function validValue(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const hint = hints[name]
  const plain = fromSchema(schema, name, hints)
  const value = hint ? fc.oneof({ weight: 9, arbitrary: hint }, { weight: 1, arbitrary: plain }) : plain
  // A nullable field sent as null reads as omitted: valid, now and then.
  return schema.anyOf?.some(isNull) ? fc.oneof({ weight: 19, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) : value
}

function fromSchema(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const options = branches(schema)
  if (options.length > 1) return fc.oneof(...options.map((b) => fromSchema(b, name, hints)))
  const s = options[0] ?? {}
  if (s.enum) return fc.constantFrom(...s.enum)
  if (s.const !== undefined) return fc.constant(s.const)
  switch (s.type) {
    case 'string':
      return fc.string({ unit: 'grapheme-ascii', minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 30, 30)) })
    case 'integer': {
      const min = s.minimum ?? -1_000
      const max = s.maximum ?? min + 500
      return fc.oneof({ weight: 5, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) })
    }
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'array': {
      const items = validValue(s.items ?? {}, `${name}[]`, hints)
      const minLength = s.minItems ?? 0
      const maxLength = s.maxItems ?? 10
      return fc.oneof(
        { weight: 9, arbitrary: fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(maxLength, 5)) }) },
        { weight: 1, arbitrary: fc.array(items, { minLength: maxLength, maxLength }) },
      )
    }
    case 'object':
      return validObject(s, hints)
    default:
      return anyJson
  }
}

/**
 * An object with every required field and a few of the optional ones (each one time in three): the
 * more optional fields a call sets, the likelier one of them refuses it, and valid calls should mostly
 * get through.
 */
export function validObject(schema: JsonSchema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? [])
  const fields = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, s]) => {
      const value = validValue(s, name, hints)
      return [name, required.has(name) ? value : fc.oneof({ weight: 2, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: value })]
    }),
  )
  return fc.record(fields).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT)))
}

const ABSENT = Symbol('absent')

/** A JSON value the field must refuse, or one at the very edge of what it takes. */
export function edgeValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const options = branches(schema)
  const s = options[0] ?? {}
  const wrong = wrongType(schema)
  if (s.enum) {
    const words = s.enum.map(String)
    return fc.oneof(
      fc.constantFrom(...words.map((w) => w.toUpperCase()), ...words.map((w) => ` ${w}`), ...words.map((w) => `${w}\u0000`)),
      oddText,
      wrong,
    )
  }
  switch (s.type) {
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: stringsAround(s.minLength, s.maxLength) }, { weight: 4, arbitrary: oddText }, { weight: 1, arbitrary: hugeText(20_000) }, { weight: 2, arbitrary: wrong })
    case 'integer':
    case 'number':
      return fc.oneof({ weight: 5, arbitrary: numbersAround(s.minimum, s.maximum) }, { weight: 2, arbitrary: numericText }, { weight: 2, arbitrary: wrong })
    case 'boolean':
      return fc.oneof(fc.constantFrom('true', 'false', 1, 0, 'yes', 'TRUE'), wrong)
    case 'array': {
      const item = s.items ? edgeValue(s.items) : anyJson
      const max = s.maxItems ?? 10
      return fc.oneof(
        fc.constant([]),
        fc.array(fc.constantFrom('1035', 'x'), { minLength: max + 1, maxLength: max + 3 }),
        fc.array(item, { minLength: 1, maxLength: 4 }),
        fc.array(fc.constant(null), { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(fc.constant('x'), { maxLength: 2 }), { minLength: 1, maxLength: 2 }),
        wrong,
      )
    }
    default:
      return fc.oneof(wrong, anyJson)
  }
}

/** A JSON value of a type the field does not take. */
export function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = typeOf(schema)
  const candidates: unknown[] = [true, false, 42, -1, 1.5, 'text', '', [], ['x'], [1, 2], {}, { value: 1 }]
  const nullable = schema.anyOf?.some(isNull) ?? false
  const keep = candidates.filter((v) => {
    const kind = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v
    if (type === 'integer' || type === 'number') return kind !== 'number'
    if (type === 'enum') return kind !== 'string'
    return kind !== type
  })
  return fc.constantFrom(...keep, ...(nullable ? [] : [null]))
}

/** How a query parameter of this schema is written when valid (query values are text). */
export function queryValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Query text the parameter must refuse, or that sits at its edge. */
export function edgeQueryText(schema: JsonSchema): fc.Arbitrary<string> {
  const type = typeOf(schema)
  const s = branches(schema)[0] ?? {}
  if (type === 'integer' || type === 'number') {
    return fc.oneof({ weight: 3, arbitrary: numbersAround(s.minimum, s.maximum).map(String) }, { weight: 3, arbitrary: numericText }, { weight: 1, arbitrary: oddText })
  }
  if (type === 'boolean') return fc.oneof(fc.constantFrom('1', '0', 'yes', 'TRUE', 'False', '', 'null'), oddText)
  return fc.oneof({ weight: 3, arbitrary: stringsAround(s.minLength, s.maxLength) }, { weight: 5, arbitrary: oddText }, { weight: 1, arbitrary: hugeText(100_000) })
}
