/**
 * A hold counts from when it is granted, not from when its request arrived. A call that waited
 * before its hold (an Idempotency-Key repeat waits up to two minutes for the first call, and the
 * gateway holds at the call's arrival instant) must keep its credits for a whole lifetime on every
 * other node: were its node's row dated from the arrival, the others would take it for the row of a
 * dead node, grant more than the balance, and an admitted call would be refused at its settle.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 2, 10, 12)
const newLotId = () => `lot_${randomBytes(6).toString('hex')}`

describe.skipIf(!up)('PostgreSQL ledger: the row of a hold granted after its request waited', () => {
  let db: { url: string; drop(): Promise<void> }
  let pools: PgPool[] = []
  let nodes: Ledger[] = []

  beforeAll(async () => {
    db = await createTestDatabase('pronet_ledger_lapse')
    pools = [openPostgres(db.url, { max: 4 }), openPostgres(db.url, { max: 4 })]
    await migratePostgres(pools[0] as PgPool)
    // Default ttl (30 s) and renewal (10 s): both nodes are alive throughout.
    // Both nodes' requests' clock reads a minute after T0: node A's call arrived at T0 and waited.
    nodes = pools.map((pool) => createPgLedger(pool, { newLotId, now: () => T0 + 60_000 }))
  })
  afterAll(async () => {
    for (const n of nodes) await n.close()
    for (const p of pools) await p.end()
    await db?.drop()
  })

  it('a live node holding the whole balance keeps it for the other nodes, even if its request arrived a minute earlier', async () => {
    const id = `acc_${randomBytes(6).toString('hex')}`
    await (pools[0] as PgPool).query(
      `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
       VALUES ($1, 't', $2, NULL, 'custom', 'active', 10, 10, $2)`,
      [id, T0],
    )
    const [a, b] = nodes as [Ledger, Ledger]
    // Node A: a call that arrived at T0 and waited 60 s (its key's first call) before it held: now is T0 + 60 s.
    const slow = await a.hold(id, 10, T0)
    expect(slow.ok).toBe(true)
    const row = await (pools[0] as PgPool).query<{ credits: string; expires_at: string }>('SELECT credits, expires_at FROM node_holds WHERE account_id = $1', [id])
    // Node B: a call arriving now. A holds every credit and is alive: B must refuse.
    const fresh = await b.hold(id, 1, T0 + 60_000)
    const after = await (pools[0] as PgPool).query<{ credits: string }>('SELECT credits FROM node_holds WHERE account_id = $1 AND credits > 0', [id])
    // What follows when B was admitted: B settles first, then A's call, which held every credit, is settled.
    let settledA: unknown
    if (fresh.ok && slow.ok) {
      await b.settle(fresh.hold, { accountId: id, at: T0 + 60_000, endpoint: '/api/v1/profile', status: 200, credits: 1, requestId: `r-${randomBytes(4).toString('hex')}` })
      settledA = await a.settle(slow.hold, { accountId: id, at: T0, endpoint: '/api/v1/profile', status: 200, credits: 10, requestId: `r-${randomBytes(4).toString('hex')}` })
    }
    expect(fresh).toMatchObject({ ok: false, held: 10 })
    expect(after.rows).toEqual([{ credits: '10' }])
  })
})
