/**
 * What every answer to a fuzzed call must be, whatever was sent: no 5xx; an error in the envelope
 * `{error, code, details?}` with the catalogue's status for its code, one its operation documents,
 * and no stack, path or driver text; a request id; on the API's paths the credits charged, and none
 * for a refusal; success bodies that match their schemas. A few mutations also have a known answer
 * (a refused credential is a 401, an unknown path a 404, a body that is not JSON a 400).
 */
import type { LightMyRequestResponse } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { VALID_WHO } from './fuzz-auth.ts'
import type { Operation } from './fuzz-operations.ts'
import { splitUrl } from './fuzz-paths.ts'
import type { FuzzRequest } from './fuzz-requests.ts'

export interface CheckContext {
  /** The error catalogue: each code's one status. */
  errorStatus: Readonly<Record<string, number>>
  operations: ReadonlyMap<string, Operation>
  /** The success schema of each data and account operation, by key. */
  successSchemas: ReadonlyMap<string, TSchema>
}

/** What an answer's body must not hold: stack frames, source paths, framework and driver internals. */
const LEAKS: [RegExp, string][] = [
  [/\n\s+at \S/, 'a stack frame'],
  [/\bat [\w.<>]+ \(/, 'a stack frame'],
  [/\.(ts|js|mjs|cjs):\d+/, 'a source location'],
  [/\/work\/|node_modules|\/src\/[\w/.-]+\.(ts|js)\b/, 'a file path'],
  [/\b(TypeError|RangeError|ReferenceError|SyntaxError|AssertionError)\b/, 'a JavaScript error name'],
  [/\bFST_ERR|FastifyError|\bERR_[A-Z_]{4,}/, 'a framework error code'],
  [/SQLITE_|better-sqlite3|\bpg_|syntax error at or near|violates .* constraint|\bECONNREFUSED\b|\bredis\b/i, 'store or driver text'],
]

/** The 404 codes of a record that does not exist: the one refusal that bills. */
const RECORD_NOT_FOUND = new Set(['PROFILE_NOT_FOUND', 'COMPANY_NOT_FOUND', 'POST_NOT_FOUND'])

const compiled = new Map<TSchema, ReturnType<typeof Compile>>()
function schemaProblems(schema: TSchema, value: unknown): string[] {
  let check = compiled.get(schema)
  if (!check) compiled.set(schema, (check = Compile(schema)))
  if (check.Check(value)) return []
  return check
    .Errors(value)
    .slice(0, 3)
    .map((e) => `body does not match its schema at '${e.instancePath}': ${e.message}`)
}

function parsed(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    return { ok: false }
  }
}

/** Every problem with the answer `res` to `req`; empty when it is as it must be. */
export function checkResponse(req: FuzzRequest, res: LightMyRequestResponse, ctx: CheckContext): string[] {
  const problems: string[] = []
  const status = res.statusCode
  const op = req.exact ? ctx.operations.get(req.target) : undefined
  const [path] = splitUrl(req.url)
  if (status >= 500) problems.push(`status ${status}`)
  if (typeof res.headers['x-request-id'] !== 'string' || res.headers['x-request-id'] === '') problems.push('no X-Request-Id')

  let code: string | undefined
  // A HEAD answer's body is left out on the wire by Node; app.inject hands it over, and it is judged as any other.
  if (status >= 400) {
    const env = envelopeProblems(res, ctx)
    problems.push(...env.problems)
    code = env.code
  }

  const charged = res.headers['x-credits-charged']
  if (path.startsWith('/api/')) {
    if (typeof charged !== 'string' || !/^\d+$/.test(charged)) problems.push(`X-Credits-Charged is ${JSON.stringify(charged)}`)
    else if (Number(charged) > 0 && !(status === 200 || (status === 404 && code !== undefined && RECORD_NOT_FOUND.has(code)))) {
      problems.push(`a ${status} ${code ?? ''} charged ${charged} credits`)
    }
  }

  if (op) {
    const documented = op.responses.get(status)
    if (!documented) problems.push(`status ${status} is not documented for ${op.key}`)
    else if (code !== undefined && documented.length > 0 && !documented.includes(code)) problems.push(`code ${code} is not documented for ${status} of ${op.key}`)
    if (status >= 200 && status < 300) problems.push(...successProblems(op, res, ctx))
  }
  problems.push(...knownAnswerProblems(req, op, status, code))
  return problems
}

function envelopeProblems(res: LightMyRequestResponse, ctx: CheckContext): { problems: string[]; code?: string } {
  const problems: string[] = []
  if (!/^application\/json\b/.test(String(res.headers['content-type']))) problems.push(`error answered as ${String(res.headers['content-type'])}`)
  const body = parsed(res.body)
  if (!body.ok || body.value === null || typeof body.value !== 'object' || Array.isArray(body.value)) {
    return { problems: [...problems, `error body is not a JSON object: ${res.body.slice(0, 120)}`] }
  }
  const envelope = body.value as Record<string, unknown>
  const extra = Object.keys(envelope).filter((k) => k !== 'error' && k !== 'code' && k !== 'details')
  if (extra.length > 0) problems.push(`envelope has other fields: ${extra.join(', ')}`)
  if (typeof envelope.error !== 'string' || envelope.error === '') problems.push('envelope without an error text')
  const details = envelope.details
  if (details !== undefined && (details === null || typeof details !== 'object' || Array.isArray(details))) problems.push('envelope details is not an object')
  // Read as sent and as decoded: a stack's line breaks are escapes in the JSON text.
  const text = `${res.body}\n${String(envelope.error)}\n${JSON.stringify(details ?? {})}`
  for (const [pattern, what] of LEAKS) if (pattern.test(text)) problems.push(`error body shows ${what}: ${res.body.slice(0, 200)}`)
  const code = envelope.code
  if (typeof code !== 'string') return { problems: [...problems, 'envelope without a code'] }
  const expected = ctx.errorStatus[code]
  if (expected === undefined) problems.push(`code ${code} is not in the catalogue`)
  else if (expected !== res.statusCode) problems.push(`code ${code} came with ${res.statusCode}; the catalogue says ${expected}`)
  return { problems, code }
}

function successProblems(op: Operation, res: LightMyRequestResponse, ctx: CheckContext): string[] {
  const schema = ctx.successSchemas.get(op.key)
  if (res.statusCode === 204) return res.body === '' ? [] : ['a 204 with a body']
  const isJson = /^application\/json\b/.test(String(res.headers['content-type']))
  if (!schema && !isJson) return []
  if (!isJson) return [`success answered as ${String(res.headers['content-type'])}`]
  const body = parsed(res.body)
  if (!body.ok) return [`success body is not JSON: ${res.body.slice(0, 120)}`]
  if (!schema) return []
  const problems = schemaProblems(schema, body.value)
  // A batch's entries carry their own errors: each with the catalogue's status for its code.
  const results = (body.value as { results?: { error?: { code: string; status: number } }[] }).results
  for (const entry of Array.isArray(results) ? results : []) {
    const e = entry.error
    if (e && ctx.errorStatus[e.code] !== e.status) problems.push(`batch entry ${e.code} with status ${e.status}`)
    if (e && e.status >= 500 && e.code !== 'RATE_LIMITED') problems.push(`batch entry failed with ${e.status} ${e.code}`)
  }
  return problems
}

/** The mutations whose answer is known whatever else the call holds. */
function knownAnswerProblems(req: FuzzRequest, op: Operation | undefined, status: number, code: string | undefined): string[] {
  const answered = `${status} ${code ?? ''}`.trim()
  const expect = (ok: boolean, what: string) => (ok ? [] : [`${what}, answered ${answered}`])
  const [path] = splitUrl(req.url)
  const notFound = status === 404 && code === 'NOT_FOUND'
  // A path the router cannot read (a broken escape, a parameter over its length) is an unknown path,
  // whoever asks and whatever the body: for such a path, 404 NOT_FOUND is the other right answer.
  const unroutable = notFound && !readable(path)
  // Wrong credentials from one address past a limit are answered 429 RATE_LIMITED instead of 401 for a while.
  const throttled = status === 429 && code === 'RATE_LIMITED'
  if (req.kind === 'auth' && req.exact) {
    if (req.who === 'none' || req.who === 'bearer') return expect(unroutable || (status === 401 && code === 'UNAUTHENTICATED'), 'a call without X-API-Key must be 401 UNAUTHENTICATED')
    if (req.who === 'revoked' || req.who === 'doubled') return expect(unroutable || throttled || (status === 401 && code === 'INVALID_API_KEY'), 'a revoked or repeated key must be 401 INVALID_API_KEY')
    return expect(unroutable || throttled || (status === 401 && (code === 'UNAUTHENTICATED' || code === 'INVALID_API_KEY')), 'a wrong credential must be 401')
  }
  if (req.kind === 'unknown-path') {
    const admin = path === '/admin' || path.startsWith('/admin/')
    if (admin && req.who !== 'admin') return expect(unroutable || throttled || (status === 401 && code === 'UNAUTHENTICATED'), 'an admin path without the token must be 401 UNAUTHENTICATED')
    return expect(notFound, 'an unknown path must be 404 NOT_FOUND')
  }
  if (req.kind === 'malformed-json' && op?.body && (req.who === 'main' || req.who === 'small' || req.who === 'admin') && (req.payload ?? '').trim() !== '') {
    return expect(unroutable || (status === 400 && code === 'INVALID_PARAMETER'), 'a body that is not JSON must be 400 INVALID_PARAMETER')
  }
  if (!VALID_WHO.has(req.who) && req.exact && status < 400) return [`a call with a refused credential (${req.who}) answered ${status}`]
  return []
}

/** Fastify's limit on a path parameter's length. */
const MAX_PARAM_LENGTH = 100

/**
 * Whether the router reads the path as written: its escapes decode, no segment is over a parameter's
 * length (such a segment may fill a parameter), and none is a dot segment (which URL parsing resolves,
 * leaving another path).
 */
function readable(path: string): boolean {
  try {
    return decodeURIComponent(path)
      .split('/')
      .every((segment) => segment.length <= MAX_PARAM_LENGTH && segment !== '.' && segment !== '..')
  } catch {
    return false
  }
}
