/**
 * Fuzzed calls of one operation, generated from its documented schemas: a mostly valid draft (the
 * query, path and body an operation takes, from the pools of real inputs) and a mutation of it, chosen
 * by weight. Each call names its operation and its mutation, so the suite can count what it covered.
 */
import fc from 'fast-check'
import { adminAuth, keyAuth, type Auth, type Credentials, type Who } from './fuzz-auth.ts'
import { fillPath, type Operation } from './fuzz-operations.ts'
import { edgeQueryText, edgeValue, queryValue, validObject, wrongType, type Hints } from './fuzz-schema.ts'
import { deepNesting, encodeLoosely, malformedJson, oddText, queryText, spliceText, unknownNames, wrongContentTypes } from './fuzz-values.ts'

export type Mutation =
  | 'valid'
  | 'edge-value'
  | 'wrong-type'
  | 'missing-required'
  | 'unknown-field'
  | 'duplicate-param'
  | 'array-for-scalar'
  | 'malformed-json'
  | 'content-type'
  | 'proto-keys'
  | 'encoding'
  | 'auth'
  | 'huge'

export interface FuzzRequest {
  /** The operation's key (`GET /api/v1/profile`), or `unknown` for a path or method the API does not have. */
  target: string
  kind: Mutation | 'wrong-method' | 'path-oddity' | 'unknown-path'
  who: Who
  method: string
  url: string
  headers: Record<string, string | string[]>
  payload?: string
  /** The call reaches its operation's own route (documented method and path); false for the path and method oddities. */
  exact: boolean
  /** How far the test clock moves before the call (the account endpoints' budget of one call per second). */
  advanceMs: number
}

export interface Pools {
  credentials: Credentials
  /** Real inputs by field name (see fuzz-schema.ts). */
  hints: Hints
  /** Values of a path parameter of an operation (ids the admin API may change). */
  pathValue(op: Operation, name: string): fc.Arbitrary<string>
}

/** The parts of a call before it is written out: query entries and path values as they stand in the URL, a JSON body. */
export interface Draft {
  query: [string, string | undefined][]
  path: Record<string, string>
  body: { json: unknown } | { raw: string } | undefined
  contentType: string | undefined
  auth: Auth
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON']

export function draftOf(op: Operation, pools: Pools, invalidAuth = false): fc.Arbitrary<Draft> {
  const query = validObject({ properties: Object.fromEntries(op.query.map((p) => [p.name, p.schema])), required: op.query.filter((p) => p.required).map((p) => p.name) }, pools.hints)
  const path = fc.record(Object.fromEntries(op.params.map((p) => [p.name, pools.pathValue(op, p.name).map(encodeLoosely)])))
  const body = op.body
    ? op.bodyRequired
      ? validObject(op.body, pools.hints).map((json) => ({ json }))
      : fc.option(validObject(op.body, pools.hints).map((json) => ({ json })), { nil: undefined, freq: 4 })
    : fc.constant(undefined)
  const auth = op.security === 'admin' ? adminAuth(pools.credentials, invalidAuth) : keyAuth(pools.credentials, invalidAuth)
  return fc.record({ query, path, body, auth, contentType: fc.constantFrom(...JSON_TYPES) }).map((d) => ({
    query: Object.entries(d.query).map(([k, v]) => [k, encodeLoosely(queryValue(v))] as [string, string]),
    path: d.path as Record<string, string>,
    body: d.body as Draft['body'],
    contentType: d.body === undefined ? undefined : d.contentType,
    auth: d.auth,
  }))
}

/** The call a draft of `op` makes: by default with the operation's own method, reaching its route. */
export function render(op: Operation, d: Draft, how: { kind: FuzzRequest['kind']; advanceMs?: number; method?: string; exact?: boolean }): FuzzRequest {
  const { kind, advanceMs = 0, method = op.method, exact = true } = how
  const path = fillPath(op.path, d.path)
  const qs = d.query.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&')
  const payload = d.body === undefined ? undefined : 'raw' in d.body ? d.body.raw : JSON.stringify(d.body.json)
  const headers: Record<string, string | string[]> = { ...d.auth.headers }
  if (d.contentType !== undefined) headers['content-type'] = d.contentType
  return { target: op.key, kind, who: d.auth.who, method, url: qs === '' ? path : `${path}?${qs}`, headers, exact, advanceMs, ...(payload === undefined ? {} : { payload }) }
}

const bodyObject = (d: Draft): Record<string, unknown> | undefined =>
  d.body && 'json' in d.body && d.body.json !== null && typeof d.body.json === 'object' && !Array.isArray(d.body.json)
    ? (d.body.json as Record<string, unknown>)
    : undefined

/** A field of the operation to change: a query parameter, a path parameter or a body field. */
type Field = { at: 'query' | 'path' | 'body'; name: string; schema: Operation['query'][number]['schema']; required: boolean }

function fieldsOf(op: Operation): Field[] {
  return [
    ...op.query.map((p) => ({ at: 'query' as const, name: p.name, schema: p.schema, required: p.required })),
    ...op.params.map((p) => ({ at: 'path' as const, name: p.name, schema: p.schema, required: true })),
    ...Object.entries(op.body?.properties ?? {}).map(([name, schema]) => ({ at: 'body' as const, name, schema, required: op.body?.required?.includes(name) ?? false })),
  ]
}

/** `d` with one field set to `value` (query and path text as they stand in the URL, body JSON). */
function setField(d: Draft, f: Field, value: unknown): Draft {
  if (f.at === 'query') return { ...d, query: [...d.query.filter(([k]) => k !== f.name), [f.name, value as string]] }
  if (f.at === 'path') return { ...d, path: { ...d.path, [f.name]: value as string } }
  return { ...d, body: { json: { ...(bodyObject(d) ?? {}), [f.name]: value } }, contentType: d.contentType ?? 'application/json' }
}

/** The mutations of an operation's draft, each with its weight. */
export function requestsOf(op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const fields = fieldsOf(op)
  const advance = op.family === 'account' ? fc.constantFrom(0, 1_000, 1_000, 1_000) : fc.constant(0)
  const draft = draftOf(op, pools)
  const field = fields.length > 0 ? fc.constantFrom(...fields) : undefined
  const out = (kind: Mutation, arb: fc.Arbitrary<Draft>) => fc.tuple(arb, advance).map(([d, advanceMs]) => render(op, d, { kind, advanceMs }))
  const withField = (f: (d: Draft, field: Field) => fc.Arbitrary<Draft>) =>
    field ? fc.tuple(draft, field).chain(([d, fl]) => f(d, fl)) : draft
  const kinds: { weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }[] = [
    { weight: 40, arbitrary: out('valid', draft) },
    {
      weight: 14,
      arbitrary: out(
        'edge-value',
        withField((d, f) => (f.at === 'body' ? edgeValue(f.schema) : f.at === 'path' ? oddText.map(encodeLoosely) : edgeQueryText(f.schema).chain(queryText)).map((v) => setField(d, f, v))),
      ),
    },
    {
      weight: 6,
      arbitrary: out(
        'wrong-type',
        op.body
          ? fc.oneof(
              withField((d, f) => (f.at === 'body' ? wrongType(f.schema) : fc.constantFrom('[1]', '%7B%7D', 'true', 'null')).map((v) => setField(d, f, v))),
              fc.tuple(draft, fc.constantFrom<unknown>([], [{}], 'text', 42, null, true)).map(([d, json]) => ({ ...d, body: { json } })),
            )
          : withField((d, f) => fc.constantFrom('abc', '[1]', '%7B%22a%22%3A1%7D', 'true', 'null', '1.5').map((v) => setField(d, f, v))),
      ),
    },
    {
      weight: 4,
      arbitrary: out(
        'missing-required',
        draft.map((d) => {
          const required = fields.filter((f) => f.required && f.at !== 'path')
          if (required.length === 0) return { ...d, query: [], body: undefined, contentType: undefined }
          const names = new Set(required.map((f) => f.name))
          const body = bodyObject(d)
          return {
            ...d,
            query: d.query.filter(([k]) => !names.has(k)),
            body: body ? { json: Object.fromEntries(Object.entries(body).filter(([k]) => !names.has(k))) } : d.body,
          }
        }),
      ),
    },
    {
      weight: 4,
      arbitrary: out(
        'unknown-field',
        fc.tuple(draft, unknownNames, fc.oneof(oddText, fc.constant('1')), fc.boolean()).map(([d, name, value, inBody]) => {
          const body = bodyObject(d)
          if (inBody && (body || op.body)) return { ...d, body: { json: { ...(body ?? {}), [name]: value } }, contentType: d.contentType ?? 'application/json' }
          return { ...d, query: [...d.query, [encodeLoosely(name), encodeLoosely(value)]] }
        }),
      ),
    },
    {
      weight: 4,
      arbitrary: out(
        'duplicate-param',
        fc.tuple(draft, fc.constantFrom(...(op.query.length > 0 ? op.query.map((p) => p.name) : ['count'])), fc.boolean()).map(([d, name, same]) => {
          const body = bodyObject(d)
          const keys = Object.keys(body ?? {})
          if (body && keys.length > 0 && op.query.length === 0) {
            const key = keys[0] as string
            const raw = JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(key)}:${same ? JSON.stringify(body[key]) : '"other"'},`)
            return { ...d, body: { raw } }
          }
          const first = d.query.find(([k]) => k === name)?.[1] ?? '1'
          // The name a second time, sometimes percent-encoded: the same parameter once decoded.
          const again = same ? name : name.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
          return { ...d, query: [...d.query, [again, same ? first : '2'], [name, first]] }
        }),
      ),
    },
    {
      weight: 3,
      arbitrary: out(
        'array-for-scalar',
        withField((d, f) => {
          if (f.at === 'body') return fc.constant(setField(d, f, Array.isArray(bodyObject(d)?.[f.name]) ? 'x' : [bodyObject(d)?.[f.name] ?? 'x']))
          // A path holds no list: the nearest is the value twice, comma-separated.
          if (f.at === 'path') return fc.constantFrom('%2C', ',').map((sep) => setField(d, f, `${d.path[f.name] ?? ''}${sep}${d.path[f.name] ?? ''}`))
          const value = d.query.find(([k]) => k === f.name)?.[1] ?? '1'
          return fc.constantFrom(`${f.name}[]`, `${f.name}[0]`, `${f.name}%5B%5D`, `${f.name}.0`).map((k) => ({ ...d, query: [...d.query.filter(([n]) => n !== f.name), [k, value]] as Draft['query'] }))
        }),
      ),
    },
    {
      weight: 4,
      arbitrary: out('malformed-json', fc.tuple(draft, malformedJson).map(([d, raw]) => ({ ...d, body: { raw }, contentType: d.contentType ?? 'application/json' }))),
    },
    {
      weight: 3,
      arbitrary: out(
        'content-type',
        fc.tuple(draft, fc.oneof(wrongContentTypes.map((t) => ({ type: t as string | undefined, encoding: undefined as string | undefined })), fc.constantFrom('gzip', 'br', 'deflate, gzip').map((e) => ({ type: 'application/json', encoding: e })), fc.constant({ type: undefined, encoding: undefined }))).map(([d, { type, encoding }]) => ({
          ...d,
          body: d.body ?? { json: {} },
          contentType: type,
          auth: encoding === undefined ? d.auth : { ...d.auth, headers: { ...d.auth.headers, 'content-encoding': encoding } },
        })),
      ),
    },
    {
      weight: 3,
      arbitrary: out(
        'proto-keys',
        fc.tuple(draft, fc.constantFrom('"__proto__": {"polluted": 1}', '"constructor": {"prototype": {"polluted": 1}}', '"__proto__": null', '"constructor": 1', '"prototype": {}'), fc.constantFrom('__proto__=1', '__proto__%5Bpolluted%5D=1', 'constructor%5Bprototype%5D%5Bpolluted%5D=1', 'constructor=x', 'hasOwnProperty=1', 'toString=x'), fc.boolean()).map(([d, member, param, inBody]) => {
          if (inBody && op.body) {
            const rest = JSON.stringify(bodyObject(d) ?? {}).slice(1)
            return { ...d, body: { raw: `{${member}${rest === '}' ? '}' : `,${rest}`}` }, contentType: d.contentType ?? 'application/json' }
          }
          const [k, v] = param.split('=') as [string, string]
          return { ...d, query: [[k, v], ...d.query] }
        }),
      ),
    },
    {
      weight: 3,
      arbitrary: out(
        'encoding',
        withField((d, f) =>
          f.at === 'body'
            ? fc.constant(d)
            : f.at === 'path'
              ? fc.tuple(fc.constantFrom('%', '%zz', '%00', '%2F', '%2e%2e', '..', '%ED%A0%80', '%C0%AF'), fc.nat()).map(([e, at]) => setField(d, f, spliceText(d.path[f.name] ?? '', e, at)))
              : fc.constant(d.query.find(([k]) => k === f.name)?.[1] ?? '').chain((v) => queryText(safeDecode(v))).map((v) => setField(d, f, v)),
        ),
      ),
    },
    { weight: 5, arbitrary: out('auth', draftOf(op, pools, true)) },
    {
      weight: 1,
      arbitrary: out(
        'huge',
        // A body past the 1 MiB limit or near it, a long query, or a value nested thousands deep.
        fc.tuple(draft, fc.constantFrom('body', 'query', 'nesting'), fc.integer({ min: 1_000, max: 1_100_000 }), deepNesting).map(([d, how, size, nested]) => {
          const withBody = (raw: string): Draft => ({ ...d, body: { raw }, contentType: d.contentType ?? 'application/json' })
          const field = Object.keys(op.body?.properties ?? {})[0] ?? 'x'
          if (how === 'nesting') return withBody(`{${JSON.stringify(field)}: ${nested}}`)
          if (how === 'body' || op.query.length === 0) return withBody(JSON.stringify({ ...(bodyObject(d) ?? {}), [field]: 'x'.repeat(size) }))
          return { ...d, query: [...d.query.filter(([k]) => k !== op.query[0]?.name), [op.query[0]?.name ?? 'x', 'y'.repeat(Math.min(size, 200_000))]] }
        }),
      ),
    },
  ]
  return fc.oneof(...kinds)
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
