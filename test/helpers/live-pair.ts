/**
 * A pronet serving as another one's upstream, and live-source nodes in front of it, as processes: the
 * settings a live node is started with, accounts made through a node's admin API, JSON calls with the
 * key of an account, and the upstream's own usage report, which tells how many calls it received.
 */
import type { ServerProcess } from './server-process.ts'

export const LIVE_ADMIN_TOKEN = 'live-source-suite-admin-token-4f9c2a'

export interface CallOptions {
  query?: Record<string, string | number>
  body?: unknown
  headers?: Record<string, string>
}

export interface Answer {
  status: number
  headers: Headers
  text: string
  // Bodies are read field by field by the suites; their shapes are checked by the contract suites.
  json: any
}

export type Call = (method: 'GET' | 'POST', path: string, opts?: CallOptions) => Promise<Answer>

/** Calls `node`'s data API with `key`. */
export function caller(node: ServerProcess, key: string): Call {
  return async (method, path, opts = {}) => {
    const url = new URL(path, node.baseUrl)
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v))
    const res = await fetch(url, {
      method,
      headers: { 'x-api-key': key, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, text, json }
  }
}

/** An account made through `node`'s admin API, with its first key. */
export async function createAccount(node: ServerProcess, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await fetch(`${node.baseUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${LIVE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const created = (await res.json()) as { account: { id: string }; apiKey: { key: string } }
  if (res.status !== 201) throw new Error(`account not created (${res.status}): ${JSON.stringify(created)}`)
  return { id: created.account.id, key: created.apiKey.key }
}

/** The settings of a live node reading through `upstream` with `upstreamKey`, on a budget of `rps`. */
export function liveEnv(upstream: ServerProcess, upstreamKey: string, rps: number): Record<string, string> {
  return {
    PRONET_SOURCE: 'upstream',
    PRONET_UPSTREAM_URL: upstream.baseUrl,
    PRONET_UPSTREAM_KEY: upstreamKey,
    PRONET_UPSTREAM_RPS: String(rps),
    PRONET_UPSTREAM_TIMEOUT_MS: '10000',
    PRONET_ADMIN_TOKEN: LIVE_ADMIN_TOKEN,
  }
}

export interface Usage {
  requests: number
  endpoints: { endpoint: string; requests: number; statusCodes: Record<string, number> }[]
}

/** Calls to `endpoint` that the upstream answered with `status`, by its usage report. */
export const answered = (usage: Usage, endpoint: string, status: number): number =>
  usage.endpoints.find((e) => e.endpoint === endpoint)?.statusCodes[String(status)] ?? 0

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Reads the usage report of `key`'s account on `node` since yesterday (a run that crosses midnight
 * still counts every call). The report has a small rate budget of its own per account: a read waits
 * for its turn, as a well-behaved client does, rather than being refused.
 */
export function usageReader(node: ServerProcess, key: string): () => Promise<Usage> {
  let last = 0
  return async () => {
    const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    for (let attempt = 0; ; attempt++) {
      const wait = last + 1_050 - Date.now()
      if (wait > 0) await sleep(wait)
      last = Date.now()
      const res = await fetch(`${node.baseUrl}/api/v1/usage?from=${from}`, { headers: { 'x-api-key': key } })
      const body = (await res.json()) as Usage
      if (res.status === 200) return body
      if (res.status !== 429 || attempt >= 5) throw new Error(`usage report refused (${res.status}): ${JSON.stringify(body)}`)
    }
  }
}
