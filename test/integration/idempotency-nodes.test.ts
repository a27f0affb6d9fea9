/**
 * Idempotency-Key across nodes: two apps in this process on one PostgreSQL database and one Redis,
 * as two nodes would be. A repeat reaching the other node while the first call still runs waits for
 * it there (asking the store again) and gets its answer, billed once; a key claimed by a node that
 * died is taken over once the claim's lease has lapsed, and the call runs.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { openPostgres } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import { KEY_LEASE_MS } from '../../src/ports/ledger.ts'
import { searchGate } from '../helpers/search-index-spy.ts'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'

const available = (await postgresAvailable()) && (await redisAvailable())
const NOW = Date.UTC(2026, 10, 22, 12)
const SEARCH = JSON.stringify({ query: 'hiring' })

describe.skipIf(!available)('Idempotency-Key on two nodes sharing one store', () => {
  let db: { url: string; drop(): Promise<void> }
  const clock = createManualClock(NOW)
  const nodes: { c: Container; app: FastifyInstance }[] = []
  /** Holds a search at its index while a repeat is sent (on node A). */
  const gate = searchGate()
  let accountId: string
  let apiKey: string

  beforeAll(async () => {
    db = await createTestDatabase('pronet_keys_nodes')
    for (const name of ['a', 'b']) {
      const config = loadConfig({
        PRONET_SEED: 'none',
        LOG_LEVEL: 'silent',
        PRONET_SECRET: 'test-secret',
        PRONET_DATA_DIR: '/nonexistent-test-dir',
        DATABASE_URL: db.url,
        REDIS_URL,
      })
      const c = await createContainer(config, { clock, ...(name === 'a' ? { wrapSearchIndex: gate.wrap } : {}) })
      nodes.push({ c, app: await buildApp(c) })
    }
    const first = nodes[0]!.c
    await first.writer.write(fixtureRecords())
    const created = await first.accounts.create({ name: 'two nodes', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    accountId = created.account.id
    apiKey = created.apiKey.key
  }, 60_000)

  afterAll(async () => {
    for (const n of nodes) {
      await n.app.close()
      await n.c.close()
    }
    await db?.drop()
  })

  const search = (node: number, key: string) =>
    nodes[node]!.app.inject({
      method: 'POST',
      url: '/api/v1/search/posts',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': key },
      payload: SEARCH,
    })

  const debits = async () => (await nodes[0]!.c.ledger.entries(accountId)).filter((e) => e.kind === 'debit')

  it('a repeat on the other node waits for the first call and gets its answer, billed once', async () => {
    const key = `nodes-${randomBytes(4).toString('hex')}`
    const entered = gate.arm()
    const first = search(0, key)
    await entered
    let repeated = false
    const second = search(1, key).finally(() => (repeated = true))
    // The repeat asks the store, finds the key running, and waits: a few of its looks go by.
    await new Promise((r) => setTimeout(r, 300))
    expect(repeated).toBe(false)
    gate.open()
    const [one, two] = await Promise.all([first, second])
    expect(one.statusCode, one.body).toBe(200)
    expect(one.headers['x-credits-charged']).toBe('1')
    expect(two.statusCode).toBe(200)
    expect(two.headers['idempotent-replayed']).toBe('true')
    expect(two.headers['x-credits-charged']).toBe('0')
    expect(two.rawPayload.equals(one.rawPayload)).toBe(true)
    expect((await debits()).map((d) => d.requestId)).toEqual([one.headers['x-request-id']])
  })

  it('a key held by a node that died is taken over once its lease has lapsed', async () => {
    const key = `orphan-${randomBytes(4).toString('hex')}`
    const before = (await debits()).length
    // A node claims the key for this very request, then dies without settling.
    const pool = openPostgres(db.url, { max: 1 })
    const dead = createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, keyRenewMs: 0 })
    const probe = await search(1, `probe-${key}`)
    expect(probe.statusCode).toBe(200)
    const row = (await pool.query<{ fingerprint: string }>('SELECT fingerprint FROM idempotency_keys WHERE idem_key = $1', [`probe-${key}`])).rows[0]
    const claimed = await dead.claimKey({ accountId, key, fingerprint: row!.fingerprint, at: clock.now() })
    expect(claimed.state).toBe('claimed')
    await dead.close()
    await pool.end()
    let answered = false
    const call = search(1, key).finally(() => (answered = true))
    await new Promise((r) => setTimeout(r, 300))
    expect(answered).toBe(false)
    clock.advance(KEY_LEASE_MS + 1)
    const res = await call
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['x-credits-charged']).toBe('1')
    expect(res.headers['idempotent-replayed']).toBeUndefined()
    // Billed for the probe and this call: one debit each.
    expect((await debits()).length).toBe(before + 2)
  })
})
