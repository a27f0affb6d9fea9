/**
 * Sends fuzzed calls through `app.inject`, judges each answer, and keeps the counts that show what a
 * run covered (statuses, codes, mutations, credentials, calls per operation) and the credits each
 * counted account was charged, for the ledger check.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { FuzzRequest } from './fuzz-requests.ts'

export interface Failure {
  index: number
  request: FuzzRequest
  status: number
  body: string
  problems: string[]
}

/** At most this many failures are kept whole; the rest are counted. */
const KEPT = 40

export class FuzzTally {
  total = 0
  failed = 0
  readonly failures: Failure[] = []
  readonly counts = new Map<string, number>()
  /** Credits charged (X-Credits-Charged) by counted account. */
  readonly charged = new Map<string, number>()

  count(key: string): number {
    return this.counts.get(key) ?? 0
  }

  private bump(key: string, by = 1): void {
    this.counts.set(key, this.count(key) + by)
  }

  note(index: number, req: FuzzRequest, res: LightMyRequestResponse | undefined, problems: string[], account: string | undefined): void {
    this.total++
    const status = res?.statusCode ?? 0
    this.bump(`status ${status}`)
    this.bump(`kind ${req.kind}`)
    this.bump(`who ${req.who}`)
    if (req.exact) {
      this.bump(`op ${req.target}`)
      this.bump(`op-status ${req.target} ${status}`)
      if (status >= 200 && status < 300) this.bump(`op-2xx ${req.target}`)
    }
    const code = res && status >= 400 ? codeOf(res.body) : undefined
    if (code) this.bump(`code ${code}`)
    const charged = Number(res?.headers['x-credits-charged'] ?? 0)
    if (account !== undefined && Number.isInteger(charged)) this.charged.set(account, (this.charged.get(account) ?? 0) + charged)
    if (problems.length > 0) {
      this.failed++
      if (this.failures.length < KEPT) this.failures.push({ index, request: req, status, body: res?.body.slice(0, 300) ?? '', problems })
    }
  }

  /** The counts whose key starts with `prefix`, as `name×count`, largest first. */
  line(prefix: string): string {
    return [...this.counts]
      .filter(([k]) => k.startsWith(`${prefix} `))
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k.slice(prefix.length + 1)}×${n}`)
      .join(', ')
  }

  /** Every count, one line per category, and each operation's calls by status. */
  summary(): string {
    const ops = [...this.counts].filter(([k]) => k.startsWith('op ')).map(([k, n]) => [k.slice(3), n] as const)
    const statuses = (op: string) => this.line(`op-status ${op}`)
    return [
      ...['status', 'code', 'kind', 'who'].map((p) => `${p}: ${this.line(p)}`),
      ...ops.sort((a, b) => a[0].localeCompare(b[0])).map(([op, n]) => `${op}: ${n} calls (${statuses(op)})`),
    ].join('\n')
  }
}

function codeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code
    return typeof code === 'string' ? code : undefined
  } catch {
    return undefined
  }
}

export interface RunOptions {
  app: FastifyInstance
  /** Moves the test clock (the account endpoints' budget of one call per second). */
  advance(ms: number): void
  check(req: FuzzRequest, res: LightMyRequestResponse): string[]
  /** The counted account a call's key belongs to, if any. */
  accountOf(req: FuzzRequest): string | undefined
  tally: FuzzTally
  /** Calls in flight at once. */
  concurrency: number
}

/** Sends `requests` (numbered from `first`), `concurrency` at a time, and notes each answer. */
export async function runRequests(requests: readonly FuzzRequest[], first: number, o: RunOptions): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const i = next++
      const req = requests[i] as FuzzRequest
      if (req.advanceMs > 0) o.advance(req.advanceMs)
      let res: LightMyRequestResponse | undefined
      let problems: string[]
      try {
        res = await answered(o.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload === undefined ? {} : { payload: req.payload }) }))
        problems = res ? o.check(req, res) : [`no answer within ${DEADLINE_MS / 1000} s`]
      } catch (e) {
        problems = [`the call could not be made: ${e instanceof Error ? e.message : String(e)}`]
      }
      o.tally.note(first + i, req, res, problems, o.accountOf(req))
    }
  }
  await Promise.all(Array.from({ length: o.concurrency }, worker))
}

/** Long enough for any call on a loaded machine; a call still unanswered then has hung, and the run goes on without it. */
const DEADLINE_MS = 20_000

async function answered(call: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, DEADLINE_MS, undefined)
  })
  try {
    return await Promise.race([call, late])
  } finally {
    clearTimeout(timer)
  }
}

/** A failure as a line a reader can replay: the call and what came back. */
export function describeFailure(f: Failure): string {
  const payload = f.request.payload === undefined ? '' : ` body ${JSON.stringify(f.request.payload.slice(0, 200))}${f.request.payload.length > 200 ? `… (${f.request.payload.length} chars)` : ''}`
  const url = f.request.url.length > 300 ? `${f.request.url.slice(0, 300)}… (${f.request.url.length} chars)` : f.request.url
  return (
    `#${f.index} [${f.request.target} / ${f.request.kind} / ${f.request.who}] ${f.request.method} ${url}` +
    ` headers ${JSON.stringify(shortHeaders(f.request.headers))}${payload}\n    → ${f.status} ${f.body}\n    ✗ ${f.problems.join('\n    ✗ ')}`
  )
}

/** Long header values (keys, tokens) cut short: the call's `who` says which credential it was. */
function shortHeaders(headers: FuzzRequest['headers']): FuzzRequest['headers'] {
  const out: FuzzRequest['headers'] = {}
  for (const [k, v] of Object.entries(headers)) {
    const text = (s: string) => (s.length > 40 ? `${s.slice(0, 12)}…(${s.length} chars)` : s)
    out[k] = Array.isArray(v) ? v.map(text) : text(v)
  }
  return out
}
