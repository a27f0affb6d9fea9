/**
 * The load and the kill cycles of the crash tests, whatever store the server runs on: callers that each
 * send a call with an Idempotency-Key of its own, a SIGKILL of the server mid-flight, the restart, and
 * every call the kill cut off sent again with its key until answered. What the client saw is kept
 * (received answers, calls by key, figures per cycle) for the checks on the store (crash-checks.ts).
 */
import { expect } from 'vitest'
import type { ServerProcess } from './server-process.ts'

export interface Received {
  cycle: number
  /** The call's Idempotency-Key. */
  key: string
  status: number
  requestId: string | null
  charged: string | null
  /** A repeat of the answer kept for the key (Idempotent-Replayed: true). */
  replayed: boolean
  /** false when the headers came but the body was cut by the kill. */
  complete: boolean
  body: string
}

/** One call and its key, from its first send to the answer it finally got. */
export interface Keyed {
  key: string
  path: string
  /** The complete answer it got, first send or retry. */
  answered: Received | undefined
}

export interface Cycle {
  index: number
  /** Random prefix of the process's request ids (`<prefix>-<counter>`). */
  prefix: string | undefined
  started: number
  received: number
  failed: number
  /** Requests sent whose response headers had not arrived when SIGKILL was sent. */
  awaitingAtKill: number
  loadMs: number
  unseenDebits: number
  truncatedBodies: number
  /** Time from the kill's exit to the restarted server's first answer. */
  restartMs: number
}

export const prefixOf = (requestId: string): string => requestId.slice(0, requestId.lastIndexOf('-'))

export interface CrashLoadOptions {
  /** The server now running (it changes at every restart). */
  server: () => ServerProcess
  apiKey: string
  /** Members the calls look up; about 2 in 3 calls name one, the rest name nobody. */
  slugs: readonly string[]
  /** The metered endpoint called, with `profileUrlOrUrn`. */
  endpoint: string
  /** Concurrent calling loops. */
  workers: number
  creditsLimit: number
}

export type CrashLoad = ReturnType<typeof createCrashLoad>

interface Counters {
  awaiting: number
  failed: number
  truncated: number
}

/** Creates an account through the admin API of `server`: its id and API key. */
export async function createAccount(server: ServerProcess, adminToken: string, creditsLimit: number): Promise<{ accountId: string; apiKey: string }> {
  const res = await fetch(`${server.baseUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'crash', plan: 'custom', creditsLimit, rpsLimit: 100_000 }),
  })
  const json = (await res.json()) as { account: { id: string }; apiKey: { key: string } }
  expect(res.status, JSON.stringify(json)).toBe(201)
  return { accountId: json.account.id, apiKey: json.apiKey.key }
}

export function createCrashLoad(opts: CrashLoadOptions) {
  const { server, apiKey, slugs, endpoint, workers, creditsLimit } = opts
  const received: Received[] = []
  const cycles: Cycle[] = []
  const keyed = new Map<string, Keyed>()
  let keySeq = 0
  /** Calls sent again with their key after a restart. */
  let retries = 0
  /** Balance checks made (GET /api/v1/subscription): recorded in the usage too, free. */
  let subscriptionChecks = 0

  /** One GET of the endpoint with the call's key; records the response when its headers came back. */
  async function call(cycle: number, c: Keyed, counters: Counters): Promise<void> {
    counters.awaiting++
    let res: Response
    try {
      res = await fetch(`${server().baseUrl}${c.path}`, {
        headers: { 'x-api-key': apiKey, 'idempotency-key': c.key },
        signal: AbortSignal.timeout(20_000),
      })
    } catch {
      counters.awaiting--
      counters.failed++
      return
    }
    counters.awaiting--
    // The headers are sent only after the settle committed, so this response counts as received.
    const r: Received = {
      cycle,
      key: c.key,
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      charged: res.headers.get('x-credits-charged'),
      replayed: res.headers.get('idempotent-replayed') === 'true',
      complete: false,
      body: '',
    }
    received.push(r)
    try {
      r.body = await res.text()
      r.complete = true
      c.answered ??= r
    } catch {
      counters.truncated++
    }
  }

  function randomPath(): string {
    // About 2 in 3 calls find a member (200), the rest miss (404, billed 1 credit too).
    if (Math.random() < 0.67) return `${endpoint}?profileUrlOrUrn=${slugs[Math.floor(Math.random() * slugs.length)]}`
    return `${endpoint}?profileUrlOrUrn=nobody-${Math.random().toString(36).slice(2, 10)}`
  }

  /** A new call, with a key of its own. */
  function newCall(): Keyed {
    const c: Keyed = { key: `crash-${++keySeq}`, path: randomPath(), answered: undefined }
    keyed.set(c.key, c)
    return c
  }

  /**
   * Load from the loops; after a random 300–1500 ms, and once `beforeKill` (if any) has resolved, the
   * server is SIGKILLed mid-flight.
   */
  async function loadAndKill(index: number, beforeKill?: () => Promise<void>): Promise<Cycle> {
    const counters: Counters = { awaiting: 0, failed: 0, truncated: 0 }
    const before = received.length
    // One answered call before the storm: the process serves and its request-id prefix is known.
    let started = 0
    for (let attempt = 0; attempt < 5 && received.length === before; attempt++) {
      started++
      await call(index, newCall(), counters)
    }
    expect(received.length, `no response from the server in cycle ${index}`).toBe(before + 1)
    let stop = false
    const t0 = performance.now()
    const loops = Array.from({ length: workers }, async () => {
      while (!stop) {
        started++
        await call(index, newCall(), counters)
      }
    })
    await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1200)))
    await beforeKill?.()
    stop = true
    const awaitingAtKill = counters.awaiting
    const exit = await server().kill()
    const loadMs = performance.now() - t0
    expect(exit.signal).toBe('SIGKILL')
    await Promise.all(loops)
    const mine = received.slice(before)
    const cycle: Cycle = {
      index,
      prefix: mine[0]?.requestId ? prefixOf(mine[0].requestId) : undefined,
      started,
      received: mine.length,
      failed: counters.failed,
      awaitingAtKill,
      loadMs: Math.round(loadMs),
      unseenDebits: 0,
      truncatedBodies: counters.truncated,
      restartMs: 0,
    }
    cycles.push(cycle)
    return cycle
  }

  /** After a restart: every call a kill cut off is sent again with its key until it is answered. */
  async function retryCutOff(cycle: number): Promise<void> {
    const cut = [...keyed.values()].filter((c) => !c.answered)
    const counters: Counters = { awaiting: 0, failed: 0, truncated: 0 }
    await Promise.all(
      cut.map(async (c) => {
        for (let attempt = 0; attempt < 5 && !c.answered; attempt++) {
          retries++
          await call(cycle, c, counters)
        }
        expect(c.answered, `call ${c.key} was not answered after the restart`).toBeDefined()
      }),
    )
  }

  /** After a restart: the server answers and reports the balance the store holds (`remaining`). */
  async function verifyServes(remaining: () => Promise<number>): Promise<void> {
    const health = await fetch(`${server().baseUrl}/healthz`)
    expect(health.status).toBe(200)
    const held = await remaining()
    const res = await fetch(`${server().baseUrl}/api/v1/subscription`, { headers: { 'x-api-key': apiKey } })
    subscriptionChecks++
    const sub = (await res.json()) as { creditsRemaining: number; creditsUsed: number; creditsLimit: number }
    expect(res.status, JSON.stringify(sub)).toBe(200)
    expect(sub).toMatchObject({ creditsLimit, creditsRemaining: held, creditsUsed: creditsLimit - held })
  }

  return {
    server,
    endpoint,
    workers,
    creditsLimit,
    received,
    cycles,
    keyed,
    retries: () => retries,
    subscriptionChecks: () => subscriptionChecks,
    loadAndKill,
    retryCutOff,
    verifyServes,
  }
}

export interface KillCycles {
  kills: number
  /** Starts the server again on the same store after a kill (the load's `server()` is then the new one). */
  restart(): Promise<void>
  /** The zero-tolerance checks on the store, with the server dead: the credits debited on the account. */
  verify(): Promise<{ debitedCredits: number }>
  /** The account's remaining credits as the store holds them (SUM of its lots' remaining). */
  remaining(): Promise<number>
  /** Resolves when the loaded server may be killed (after the random part of the load phase). */
  beforeKill?(): Promise<void>
  /** After the restarted server reported its balance, before the cut-off calls are sent again. */
  afterRestart?(cycle: Cycle): Promise<void>
  /** Once the cut-off calls are answered, the server still running and idle. */
  afterRetries?(cycle: Cycle): Promise<void>
  /** More lines for the summary printed at the end. */
  report?(): string[]
}

/**
 * `kills` cycles of load, kill, checks, restart, balance check and retries of the cut-off calls; then
 * the last server is killed idle and the store checked once more: every call got its answer, each
 * billed once, so the credits debited are those of the answers. Prints a summary.
 */
export async function runKillCycles(load: CrashLoad, k: KillCycles): Promise<void> {
  const t0 = performance.now()
  for (let i = 0; i < k.kills; i++) {
    const cycle = await load.loadAndKill(i, k.beforeKill)
    await k.verify()
    const restartAt = performance.now()
    await k.restart()
    await load.verifyServes(k.remaining)
    cycle.restartMs = Math.round(performance.now() - restartAt)
    await k.afterRestart?.(cycle)
    await load.retryCutOff(i + 1)
    await k.afterRetries?.(cycle)
  }
  // The last restart served; stop it the hard way too and check the store once more.
  await load.server().kill()
  const { debitedCredits } = await k.verify()
  // Every call got its answer in the end, each billed once: the credits debited are those of the answers.
  const calls = [...load.keyed.values()]
  expect(calls.filter((c) => !c.answered).map((c) => c.key)).toEqual([])
  expect(debitedCredits).toBe(calls.length)

  const cycles = load.cycles
  const total = (key: keyof Cycle) => cycles.reduce((a, c) => a + (c[key] as number), 0)
  console.log(
    [
      `crash test: ${k.kills} SIGKILLs, ${load.workers} concurrent loops, ${Math.round(performance.now() - t0)} ms (after the seeded first start)`,
      ...cycles.map(
        (c) =>
          `  cycle ${c.index}: load ${c.loadMs} ms, started ${c.started}, received ${c.received} (${c.truncatedBodies} bodies cut), ` +
          `failed ${c.failed}, awaiting headers at kill ${c.awaitingAtKill}, debited without a received response ${c.unseenDebits}, ` +
          `restart ${c.restartMs} ms`,
      ),
      `  total: received ${total('received')}, debited without a received response ${total('unseenDebits')}, ` +
        `calls sent again with their key after a restart ${load.retries()}, answered from a kept answer ${load.received.filter((r) => r.replayed).length}`,
      ...(k.report?.() ?? []),
    ].join('\n'),
  )
}
