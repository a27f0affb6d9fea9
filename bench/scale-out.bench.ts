/**
 * Nodes on PostgreSQL + Redis against one node on the embedded SQLite store, measured in one run: the
 * same synthetic network in both stores, the same metered call (GET /api/v1/profile rotating over
 * members, a custom plan that never meets 402 or 429), wrk with one thread. The cases, measured in
 * turn (the order alternating) BENCH_ROUNDS times; medians, and each round's figure:
 *  - sqlite: one embedded node, 50 connections;
 *  - postgres+redis: one node on PostgreSQL + Redis, 50 connections;
 *  - postgres+redis x3: three such nodes driven together by three wrk processes of 17 connections
 *    each, an account per node (shared database, shared Redis); the sum of the three;
 *  - x3, one account: the same, all three calling for one account, so the nodes coordinate on every
 *    call (one rate budget in Redis, one balance in PostgreSQL);
 *  - x3, own databases: three nodes driven as the x3 case, each on a database of its own (copies of the
 *    seeded one, on the same PostgreSQL server) and a Redis database of its own (the two numbered
 *    after PRONET_BENCH_REDIS_URL's, the first node keeping that one): the same processes
 *    and the same work, but no table, row or key in common. Its ratio to the x3 case is what sharing
 *    the data costs the nodes (their coordination); its ratio to one node, what splitting the load
 *    over three processes, each with batches of its own, costs on this machine.
 *  - sqlite x3, nothing shared: three embedded nodes, each on a copy of the store, driven as the x3
 *    case. Nothing is coordinated between them, so its ratio to one embedded node is what splitting
 *    the same load over three processes costs on this machine alone: the yardstick for the x3 case.
 *  - one postgres node at a third: the first node alone with the 17 connections each node of the x3
 *    case has. A node answers a call only once its batch commits, so its rate follows the calls it
 *    has in hand; this is what one node serves at the x3 case's load per node.
 *  - x3, 50 connections each: the x3 nodes, each driven as the one node is (three wrk processes of
 *    50 connections): what three nodes serve when each has the load one node had.
 *  - sqlite refused, postgres+redis refused: one node of each, 50 connections, with the key of an
 *    account limited to 10 calls a second, so nearly every call is a free 429 whose usage line is
 *    still recorded: what a client far past its rate limit costs a node, beside what a billed call does.
 *    These two are measured in rounds of their own, after all the others.
 *  - sqlite keyed, postgres+redis keyed: one node of each, 50 connections, every call with an
 *    Idempotency-Key of its own, so each claims its key and keeps its answer: what a client that
 *    sends the header on every call costs, beside the same calls without it. Measured last, in rounds
 *    of their own: every answer kept is a row of the store.
 *  - sqlite, postgres+redis and postgres+redis x3 again at BENCH_SATURATION_CONNECTIONS (default 256;
 *    0 skips them), in rounds of their own after the first cases. A node on PostgreSQL answers a call
 *    only once its batch has committed, so with 50 connections it spends part of each batch waiting
 *    for the database; with enough connections every process has work queued, and the ratios say what
 *    each arrangement serves at most on this machine rather than at this client's concurrency.
 * Every call is metered in full: rate budget (memory | Redis), hold and settle with the usage line
 * committed before the response (SQLite group commit | PostgreSQL batches).
 *
 * Before that, the time to seed the `small` network (BENCH_SEED_SMALL=0 skips it) into a fresh
 * PostgreSQL database and into a fresh SQLite file.
 *
 * Needs wrk, PostgreSQL (PRONET_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres,
 * where a database of its own is created and dropped) and Redis (PRONET_BENCH_REDIS_URL).
 *
 *   npm run bench:scale-out
 *   BENCH_SECONDS=8 BENCH_ROUNDS=3 BENCH_PROFILES=300 npm run bench:scale-out
 *   BENCH_CPU_PROF=<dir>: every node runs with --cpu-prof; its profile is written there when the bench stops it
 *
 * Beside the rates, each case's processor time per call is read from /proc (Linux): the nodes', and
 * PostgreSQL's and Redis's processes on this machine; the rest of the machine's busy time (wrk, the
 * kernel); and the machine's busy share, which says whether the case saturated the machine.
 * For the cases on PostgreSQL, the time PostgreSQL spent in each of the ledger's functions per call
 * of it (track_functions, set on the bench's database when the bench's role may): a batch calls each
 * about once, so it says where a batch's time goes inside the database.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { loadConfig } from '../src/config/config.ts'
import { createContainer } from '../src/container.ts'
import { seedSynthetic } from '../src/seed.ts'
import { runWrk, runWrkAsync, startScriptNodeFlags, startServerProcess, wrkFigures } from './bench-helpers.ts'
import { measure, processesNamed, type CpuAccount } from './cpu-accounts.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const SEED_SMALL = process.env.BENCH_SEED_SMALL !== '0'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PROFILES = Number(process.env.BENCH_PROFILES ?? 300)
const CONNECTIONS = 50
/** Connections of the saturated cases (0: they are skipped). */
const SATURATION_CONNECTIONS = Number(process.env.BENCH_SATURATION_CONNECTIONS ?? 256)
/** A folder: every node runs with --cpu-prof and writes its profile there when it stops. */
const CPU_PROF = process.env.BENCH_CPU_PROF
const ADMIN_URL = process.env.PRONET_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.PRONET_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const ADMIN = 'scale-out-bench'
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')
/** The project's root (this file runs from dist/bench/): its package.json says how `npm start` runs Node. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

interface Node {
  name: string
  child: ChildProcess
  port: number
  key: string
  accountId: string
}

/** A key of a new account on the node at `port`. */
async function newAccount(port: number, rpsLimit: number): Promise<{ key: string; accountId: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', plan: 'custom', creditsLimit: 1_000_000_000, rpsLimit }),
  })
  const created = (await res.json()) as { account: { id: string }; apiKey: { key: string } }
  return { key: created.apiKey.key, accountId: created.account.id }
}

async function startNode(name: string, env: Record<string, string>, key?: { key: string; accountId: string }): Promise<Node> {
  // Every node runs with the Node flags `npm start` gives the server, as operators run it.
  const flags = [...startScriptNodeFlags(ROOT), ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`, `--cpu-prof-name=${name.replace(/\W+/g, '-')}.cpuprofile`] : [])]
  const { child, port } = await startServerProcess(MAIN, { PORT: '0', HOST: '127.0.0.1', PRONET_SEED: 'none', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env }, flags).catch(
    (e: Error) => {
      throw new Error(`${name}: ${e.message}`)
    },
  )
  return { name, child, port, ...(key ?? (await newAccount(port, 100_000))) }
}

/** What a case's run served: its rate and the responses counted. */
interface Served {
  rps: number
  responses: number
}

function checked(out: string): Served {
  const { rps, responses, non2xx } = wrkFigures(out)
  if (non2xx > 0) throw new Error(`${non2xx} responses were not 200:\n${out}`)
  return { rps, responses }
}

function wrk(port: number, paths: string[], key: string, keyed = false, connections = CONNECTIONS): Served {
  return checked(runWrk({ url: `http://127.0.0.1:${port}`, paths, headers: { 'x-api-key': key }, seconds: SECONDS, connections, keyed }))
}

/** A run with the key of an account limited to 10 calls a second: all but a few calls are refused. */
function wrkRefused(port: number, paths: string[], key: string): Served {
  const out = runWrk({ url: `http://127.0.0.1:${port}`, paths, headers: { 'x-api-key': key }, seconds: SECONDS, connections: CONNECTIONS })
  const { rps, responses, non2xx } = wrkFigures(out)
  if (responses - non2xx > SECONDS * 10 + 10) throw new Error(`${responses - non2xx} calls were not refused:\n${out}`)
  return { rps, responses }
}

/** The nodes driven together, `connections` shared between them; the sum of their rates. */
async function wrkTogether(group: Node[], paths: string[], connections = CONNECTIONS): Promise<Served> {
  const each = Math.round(connections / group.length)
  const outs = await Promise.all(
    group.map((n) => runWrkAsync({ url: `http://127.0.0.1:${n.port}`, paths, headers: { 'x-api-key': n.key }, seconds: SECONDS, connections: each })),
  )
  return outs.map(checked).reduce((sum, x) => ({ rps: sum.rps + x.rps, responses: sum.responses + x.responses }), { rps: 0, responses: 0 })
}

/** A case's processor time per call (µs) by part, and the machine's busy share. */
interface CpuPerCall {
  busy: number
  nodes: number
  postgres: number
  redis: number
  rest: number
}

/** Calls and total ms of each of the ledger's functions in this database, as PostgreSQL last recorded them. */
type FunctionTimes = Map<string, { calls: number; ms: number }>

/** The functions' figures summed over the databases `clients` are connected to. */
async function functionTimes(clients: readonly pg.Client[]): Promise<FunctionTimes> {
  const sum: FunctionTimes = new Map()
  for (const sql of clients) {
    const r = await sql.query<{ funcname: string; calls: string; total_time: number }>(
      `SELECT funcname, calls, total_time FROM pg_stat_user_functions WHERE funcname LIKE 'pronet\\_%'`,
    )
    for (const x of r.rows) {
      const t = sum.get(x.funcname) ?? { calls: 0, ms: 0 }
      sum.set(x.funcname, { calls: t.calls + Number(x.calls), ms: t.ms + x.total_time })
    }
  }
  return sum
}

/** Adds what each function did between two readings to `into`. */
function addTimes(into: FunctionTimes, before: FunctionTimes, after: FunctionTimes): void {
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, ms: 0 }
    const sum = into.get(name) ?? { calls: 0, ms: 0 }
    into.set(name, { calls: sum.calls + a.calls - b.calls, ms: sum.ms + a.ms - b.ms })
  }
}

function perCall(cpu: CpuAccount, responses: number): CpuPerCall {
  const us = (ms: number) => (ms * 1000) / responses
  return { busy: cpu.busy, nodes: us(cpu.groups.nodes ?? 0), postgres: us(cpu.groups.postgres ?? 0), redis: us(cpu.groups.redis ?? 0), rest: us(cpu.rest) }
}

/** The URL of database `name` on the server `adminUrl` reaches. */
const databaseUrlOf = (adminUrl: string, name: string): string => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString()

/** Seconds to seed the `small` network into a fresh store of each kind. */
async function seedSmall(adminUrl: string): Promise<{ postgres: number; sqlite: number }> {
  const name = `pronet_bench_seed_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = databaseUrlOf(adminUrl, name)
  const dir = mkdtempSync(join(tmpdir(), 'pronet-seed-small-'))
  const seconds: Record<string, number> = {}
  try {
    for (const [kind, env] of [
      ['postgres', { DATABASE_URL: url, PRONET_DATA_DIR: dir }],
      ['sqlite', { PRONET_DATA_DIR: dir }],
    ] as const) {
      const c = await createContainer(loadConfig({ ...env, PRONET_SEED: 'small', LOG_LEVEL: 'silent' }))
      const t0 = performance.now()
      await seedSynthetic(c, 'small', () => {}, { progress: false, anchorMs: Date.UTC(2026, 10, 1) })
      seconds[kind] = (performance.now() - t0) / 1000
      await c.close()
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
    rmSync(dir, { recursive: true, force: true })
  }
  return { postgres: seconds.postgres as number, sqlite: seconds.sqlite as number }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function main(): Promise<void> {
  const dbName = `pronet_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${dbName}`)
  // Before any connection: a session takes the setting when it starts. Only a superuser may set it.
  const timed = await admin.query(`ALTER DATABASE ${dbName} SET track_functions = 'pl'`).then(
    () => '',
    (e: Error) => e.message,
  )
  const databaseUrl = databaseUrlOf(ADMIN_URL, dbName)
  /** Copies of the seeded database, one for each of the nodes on databases of their own but the first. */
  const copyDbs: string[] = []
  /** Connections to the copies, for their function times. */
  const copyClients: pg.Client[] = []
  const dataDir = mkdtempSync(join(tmpdir(), 'pronet-scale-out-'))
  const nodes: Node[] = []
  /** The embedded store's copies, one for each of the embedded nodes that share nothing. */
  const copies: string[] = []
  /** The data folders given to the nodes on PostgreSQL, removed with the others at the end. */
  const pgDirs: string[] = []
  /** A connection to the bench's database, open for the whole run: it also reads the function times. */
  let sql: pg.Client | undefined
  try {
    // The same network (seed 1, same anchor) in both stores.
    const anchorMs = Date.UTC(2026, 10, 1)
    for (const env of [{ PRONET_DATA_DIR: dataDir }, { DATABASE_URL: databaseUrl, PRONET_DATA_DIR: dataDir }]) {
      const c = await createContainer(loadConfig({ ...env, PRONET_SEED: String(PROFILES), LOG_LEVEL: 'silent' }))
      const t0 = performance.now()
      await seedSynthetic(c, PROFILES, () => {}, { progress: false, anchorMs })
      process.stderr.write(`seeded ${PROFILES} profiles into ${'DATABASE_URL' in env ? 'PostgreSQL' : 'SQLite'} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
      await c.close()
    }
    // Before anything connects to the seeded database: a template may have no other sessions.
    for (const i of [2, 3]) {
      const name = `${dbName}_${i}`
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${dbName}`)
      copyDbs.push(name)
      if (timed === '') await admin.query(`ALTER DATABASE ${name} SET track_functions = 'pl'`)
    }
    sql = new pg.Client({ connectionString: databaseUrl })
    await sql.connect()
    for (const name of copyDbs) {
      const client = new pg.Client({ connectionString: databaseUrlOf(ADMIN_URL, name) })
      await client.connect()
      copyClients.push(client)
    }
    const slugs = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 200')).rows.map((r) => r.slug)
    const paths = slugs.map((s) => `/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(s)}`)

    const small = SEED_SMALL ? await seedSmall(ADMIN_URL) : undefined

    const pgEnv = (database = databaseUrl, redis = REDIS_URL) => {
      const dir = mkdtempSync(join(tmpdir(), 'pronet-scale-out-pg-'))
      pgDirs.push(dir)
      return { DATABASE_URL: database, REDIS_URL: redis, PRONET_DATA_DIR: dir }
    }
    /** REDIS_URL with its database number moved on by `offset`. */
    const redisDb = (offset: number) => {
      const u = new URL(REDIS_URL)
      u.pathname = `/${(Number(u.pathname.slice(1) || 0) + offset) % 16}`
      return u.toString()
    }
    // Copies of the seeded store for the embedded nodes that share nothing, made before any node claims it.
    for (const i of [2, 3]) {
      const dir = mkdtempSync(join(tmpdir(), `pronet-scale-out-sqlite-${i}-`))
      copies.push(dir)
      cpSync(dataDir, dir, { recursive: true })
    }
    nodes.push(await startNode('sqlite', { PRONET_DATA_DIR: dataDir }))
    const first = await startNode('postgres+redis', pgEnv())
    nodes.push(first)
    // Two more nodes on the same database, each with an account of its own.
    const others = [await startNode('postgres+redis 2', pgEnv()), await startNode('postgres+redis 3', pgEnv())]
    nodes.push(...others)
    const group = [first, ...others]
    // The same three nodes all calling with the first one's key: one account for all three.
    const sharedGroup = group.map((n) => ({ ...n, key: first.key, accountId: first.accountId }))
    // The first node, and two more on the copies and Redis databases of their own: no data in common.
    const apartGroup = [first, ...(await Promise.all(copyDbs.map((name, i) => startNode(`postgres+redis own database ${i + 2}`, pgEnv(databaseUrlOf(ADMIN_URL, name), redisDb(i + 1))))))]
    nodes.push(...apartGroup.slice(1))
    const sqliteGroup = [nodes[0]!, ...(await Promise.all(copies.map((dir, i) => startNode(`sqlite ${i + 2}`, { PRONET_DATA_DIR: dir }))))]
    // Accounts limited to 10 calls a second, for the refused cases.
    const limited = [await newAccount(nodes[0]!.port, 10), await newAccount(first.port, 10)] as const
    nodes.push(...sqliteGroup.slice(1))
    const cases: { name: string; nodes: Node[]; run: () => Promise<Served> }[] = [
      { name: 'sqlite', nodes: [nodes[0]!], run: async () => wrk(nodes[0]!.port, paths, nodes[0]!.key) },
      { name: 'postgres+redis', nodes: [first], run: async () => wrk(first.port, paths, first.key) },
      { name: 'postgres+redis x3', nodes: group, run: () => wrkTogether(group, paths) },
      { name: 'x3, one account', nodes: group, run: () => wrkTogether(sharedGroup, paths) },
      { name: 'x3, own databases', nodes: apartGroup, run: () => wrkTogether(apartGroup, paths) },
      { name: 'sqlite x3, nothing shared', nodes: sqliteGroup, run: () => wrkTogether(sqliteGroup, paths) },
      { name: 'one postgres node at a third', nodes: [first], run: async () => wrk(first.port, paths, first.key, false, Math.round(CONNECTIONS / group.length)) },
      { name: 'x3, 50 connections each', nodes: group, run: () => wrkTogether(group, paths, CONNECTIONS * group.length) },
    ]
    // Measured after every round of the cases above: each refused call leaves a row in PostgreSQL,
    // and the vacuum that follows such a run would weigh on the cases measured after it.
    const refusedCases: typeof cases = [
      { name: 'sqlite refused', nodes: [nodes[0]!], run: async () => wrkRefused(nodes[0]!.port, paths, limited[0].key) },
      { name: 'postgres+redis refused', nodes: [first], run: async () => wrkRefused(first.port, paths, limited[1].key) },
    ]
    const keyedCases: typeof cases = [
      { name: 'sqlite keyed', nodes: [nodes[0]!], run: async () => wrk(nodes[0]!.port, paths, nodes[0]!.key, true) },
      { name: 'postgres+redis keyed', nodes: [first], run: async () => wrk(first.port, paths, first.key, true) },
    ]
    const sat = SATURATION_CONNECTIONS
    const saturatedCases: typeof cases =
      sat > 0
        ? [
            { name: `sqlite -c${sat}`, nodes: [nodes[0]!], run: async () => wrk(nodes[0]!.port, paths, nodes[0]!.key, false, sat) },
            { name: `postgres+redis -c${sat}`, nodes: [first], run: async () => wrk(first.port, paths, first.key, false, sat) },
            { name: `postgres+redis x3 -c${sat}`, nodes: group, run: () => wrkTogether(group, paths, sat) },
          ]
        : []
    for (const n of nodes) wrk(n.port, paths.slice(0, 20), n.key) // warm-up: caches, JIT, pools
    const all = [...cases, ...saturatedCases, ...refusedCases, ...keyedCases]
    const rps = new Map<string, number[]>(all.map((c) => [c.name, []]))
    const cpu = new Map<string, CpuPerCall[]>(all.map((c) => [c.name, []]))
    const onPostgres = (c: (typeof all)[number]) => c.nodes.some((n) => n.name.startsWith('postgres'))
    const fnTimes = new Map<string, FunctionTimes>(timed === '' ? all.filter(onPostgres).map((c) => [c.name, new Map()]) : [])
    for (const set of [cases, saturatedCases, refusedCases, keyedCases]) {
      for (let r = 0; r < ROUNDS; r++) {
        for (const c of r % 2 === 0 ? set : [...set].reverse()) {
          // PostgreSQL's backends come and go with the pools: they are looked up as each run starts and ends.
          const groups = { nodes: c.nodes.map((n) => n.child.pid as number), postgres: () => processesNamed('postgres'), redis: () => processesNamed('redis-server') }
          const times = fnTimes.get(c.name)
          const databases = c.nodes === apartGroup ? [sql, ...copyClients] : [sql]
          const before = times && (await functionTimes(databases))
          const { result, cpu: account } = await measure(groups, c.run)
          if (times && before) addTimes(times, before, await functionTimes(databases))
          rps.get(c.name)!.push(result.rps)
          if (account && result.responses > 0) cpu.get(c.name)!.push(perCall(account, result.responses))
        }
      }
    }
    console.log(`pronet scale-out benchmark: GET /api/v1/profile metered, ${PROFILES}-profile network, wrk -t1 -c${CONNECTIONS} (x3: three of -c${Math.round(CONNECTIONS / 3)}${sat > 0 ? `; saturated cases: -c${sat}` : ''}), ${SECONDS} s × ${ROUNDS} rounds; nodes' Node flags (npm start's): ${startScriptNodeFlags(ROOT).join(' ') || 'none'}`)
    if (small) console.log(`  seeding the small network: PostgreSQL ${small.postgres.toFixed(1)} s, SQLite ${small.sqlite.toFixed(1)} s`)
    const base = median(rps.get('sqlite')!)
    const onePg = median(rps.get('postgres+redis')!)
    const ratioOf = (a: string, b: string) => median(rps.get(a)!) / median(rps.get(b)!)
    for (const [name, xs] of rps) {
      const spread = `${Math.round(Math.min(...xs)).toLocaleString('en-US')}–${Math.round(Math.max(...xs)).toLocaleString('en-US')}`
      console.log(
        `  ${name.padEnd(30)} ${xs.map((x) => Math.round(x).toLocaleString('en-US').padStart(8)).join(' ')}   median ${Math.round(median(xs)).toLocaleString('en-US').padStart(8)} req/s (spread ${spread})   ÷ sqlite ${(median(xs) / base).toFixed(2)}${(name === 'postgres+redis x3' || name.startsWith('x3') || name === 'one postgres node at a third') ? `   ÷ one postgres node ${(median(xs) / onePg).toFixed(2)}` : ''}`,
      )
    }
    if ([...cpu.values()].every((xs) => xs.length === ROUNDS)) {
      // Where the processor time went: on two CPUs the three nodes, PostgreSQL, Redis and the load
      // generators share the same processors, so a saturated machine caps every case.
      console.log('  processor time per call, µs (medians over rounds; PostgreSQL and Redis: their processes on this machine; rest: wrk, the kernel, anything else):')
      console.log(`  ${'case'.padEnd(30)} ${'machine busy'.padStart(12)} ${'nodes'.padStart(7)} ${'PostgreSQL'.padStart(11)} ${'Redis'.padStart(7)} ${'rest'.padStart(7)} ${'all'.padStart(7)}`)
      for (const [name, xs] of cpu) {
        const m = (f: (x: CpuPerCall) => number) => median(xs.map(f))
        const cell = (v: number, w: number) => v.toFixed(1).padStart(w)
        console.log(
          `  ${name.padEnd(30)} ${`${Math.round(m((x) => x.busy) * 100)}%`.padStart(12)} ${cell(m((x) => x.nodes), 7)} ${cell(m((x) => x.postgres), 11)} ${cell(m((x) => x.redis), 7)} ${cell(m((x) => x.rest), 7)} ${cell(m((x) => x.nodes + x.postgres + x.redis + x.rest), 7)}`,
        )
      }
    }
    if (timed !== '') console.log(`  PostgreSQL's time in the ledger's functions: not measured (${timed})`)
    else {
      // Each reading holds what the backends had reported by then (they report at most once a second),
      // so the calls and the time of one function always come from the same transactions.
      console.log("  PostgreSQL's time in the ledger's functions, µs per call of each, most time first (a batch calls most of them once; all rounds):")
      for (const [name, times] of fnTimes) {
        const cells = [...times].filter(([, t]) => t.calls > 0).sort((a, b) => b[1].ms - a[1].ms)
        const each = ([fn, t]: (typeof cells)[number]) => `${fn.replace(/^pronet_/, '')} ${((t.ms * 1000) / t.calls).toFixed(0)} (${t.calls.toLocaleString('en-US')} call${t.calls === 1 ? '' : 's'})`
        console.log(`  ${name.padEnd(30)} ${cells.map(each).join(', ')}`)
      }
    }
    const ratios = (a: string, b: string) => rps.get(a)!.map((x, i) => (x / rps.get(b)![i]!).toFixed(2)).join(' ')
    if (sat > 0) {
      const [s1, p1, p3] = saturatedCases.map((c) => c.name) as [string, string, string]
      console.log(
        `  at -c${sat}: postgres ÷ sqlite ${ratioOf(p1, s1).toFixed(2)} (per round ${ratios(p1, s1)}); ` +
          `x3 ÷ one postgres node ${ratioOf(p3, p1).toFixed(2)} (per round ${ratios(p3, p1)})`,
      )
    }
    console.log(
      `  per round: postgres ÷ sqlite ${ratios('postgres+redis', 'sqlite')}; x3 ÷ one postgres node ${ratios('postgres+redis x3', 'postgres+redis')}; ` +
        `x3 on one account ÷ one postgres node ${ratios('x3, one account', 'postgres+redis')}; ` +
        `x3 ÷ x3 on databases of their own ${ratios('postgres+redis x3', 'x3, own databases')}; ` +
        `x3 on databases of their own ÷ one postgres node ${ratios('x3, own databases', 'postgres+redis')}; ` +
        `three embedded nodes sharing nothing ÷ one embedded node ${ratios('sqlite x3, nothing shared', 'sqlite')}; ` +
        `x3 ÷ one postgres node at a third of the connections ${ratios('postgres+redis x3', 'one postgres node at a third')}; ` +
        `x3 with 50 connections each ÷ one postgres node ${ratios('x3, 50 connections each', 'postgres+redis')}; ` +
        `refused ÷ billed calls: sqlite ${ratios('sqlite refused', 'sqlite')}, postgres+redis ${ratios('postgres+redis refused', 'postgres+redis')}; ` +
        `keyed ÷ billed calls: sqlite ${ratios('sqlite keyed', 'sqlite')}, postgres+redis ${ratios('postgres+redis keyed', 'postgres+redis')}`,
    )
  } finally {
    await Promise.all(
      nodes.map(async (n) => {
        const exited = new Promise((r) => n.child.once('exit', r))
        n.child.kill('SIGTERM')
        // A profiled node writes its profile as it exits.
        await Promise.race([exited, new Promise((r) => setTimeout(r, CPU_PROF ? 15_000 : 500))])
      }),
    )
    await sql?.end()
    for (const client of copyClients) await client.end()
    for (const name of [dbName, ...copyDbs]) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
    for (const dir of [dataDir, ...copies, ...pgDirs]) rmSync(dir, { recursive: true, force: true })
  }
}

await main()
