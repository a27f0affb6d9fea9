/**
 * A stress test of the node's memory of holds (turn()): two nodes, two batches of one account in flight
 * on each, while the database refuses writes now and then. Triggers added for this test only make the
 * settles' INSERT into settled_requests fail at random (one statement in eight) with a
 * serialization failure (the run is retried), refuse the rows of some request ids (the batch runs
 * again alone, request by request), and sleep a little in every write of a node's row, so a batch's
 * COMMIT is slow while the next batch of the account waits for the lock. If a batch ever decided
 * with a memory that missed holds another batch had granted, more would be held than the balance
 * and an admitted call would be refused at its settle ('insufficient'); nothing else changes the
 * balance here.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Ledger, SettleResult } from '../../src/ports/ledger.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 2, 10, 12)
const newLotId = () => `lot_${randomBytes(6).toString('hex')}`
const CREDITS = 400
const CALLS = 900

describe.skipIf(!up)('PostgreSQL ledger: overlapping batches under injected write failures', () => {
  let db: { url: string; drop(): Promise<void> }
  let direct: PgPool
  let pools: PgPool[] = []
  let nodes: Ledger[] = []

  beforeAll(async () => {
    db = await createTestDatabase('pronet_ledger_turn')
    direct = openPostgres(db.url, { max: 4 })
    await migratePostgres(direct)
    await direct.query(`
      CREATE FUNCTION injected_settled_refusal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.request_id LIKE '%-bad' THEN RAISE EXCEPTION 'refused for the test' USING ERRCODE = '23514'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER injected_settled_refusal BEFORE INSERT ON settled_requests FOR EACH ROW EXECUTE FUNCTION injected_settled_refusal();
      CREATE FUNCTION injected_serialization() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF random() < 0.12 THEN RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER injected_serialization BEFORE INSERT ON settled_requests FOR EACH STATEMENT EXECUTE FUNCTION injected_serialization();
      CREATE FUNCTION injected_slow_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(random() * 0.008); RETURN NEW; END $$;
      CREATE TRIGGER injected_slow_row BEFORE INSERT OR UPDATE ON node_holds FOR EACH ROW EXECUTE FUNCTION injected_slow_row();
    `)
    pools = [openPostgres(db.url, { max: 10 }), openPostgres(db.url, { max: 10 })]
    nodes = pools.map((pool) => createPgLedger(pool, { newLotId, attempts: 3 }))
  })
  afterAll(async () => {
    for (const n of nodes) await n.close()
    for (const p of pools) await p.end()
    await direct?.end()
    await db?.drop()
  })

  it('no admitted call is refused at its settle; every debit is one settle; nothing stays held', async () => {
    const id = `acc_${randomBytes(6).toString('hex')}`
    const other = `acc_${randomBytes(6).toString('hex')}`
    for (const a of [id, other]) {
      await direct.query(
        `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
         VALUES ($1, 't', $2, NULL, 'custom', 'active', $3, 10, $2)`,
        [a, T0, CREDITS],
      )
    }
    const outcome = { refusedHold: 0, failedHold: 0, billed: 0, failedSettle: 0, insufficient: 0 }
    const billed = new Map<string, number>()
    await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const node = nodes[i % 2] as Ledger
        // Two accounts, so that batches carry both and a refusal of one account's row sends the batch account by account.
        const account = i % 5 === 0 ? other : id
        const price = 1 + (i % 3)
        await new Promise((r) => setTimeout(r, i % 17))
        let held
        try {
          held = await node.hold(account, price, T0 + i)
        } catch {
          outcome.failedHold++
          return
        }
        if (!held.ok) {
          outcome.refusedHold++
          return
        }
        await new Promise((r) => setTimeout(r, i % 7))
        const requestId = `t-${i}${i % 23 === 0 ? '-bad' : ''}`
        let settled: SettleResult
        try {
          settled = await node.settle(held.hold, { accountId: account, at: T0 + i, endpoint: '/api/v1/profile', status: 200, credits: price, requestId })
        } catch {
          outcome.failedSettle++
          return
        }
        if (!settled.ok) outcome.insufficient++
        else {
          outcome.billed++
          billed.set(requestId, settled.charged)
        }
      }),
    )
    expect(outcome.insufficient).toBe(0)
    const debits = (
      await direct.query<{ request_id: string; n: number; credits: number }>(
        `SELECT request_id, count(*)::int AS n, (-sum(delta))::int AS credits FROM ledger_entries WHERE kind = 'debit' AND account_id = ANY($1::text[]) GROUP BY request_id`,
        [[id, other]],
      )
    ).rows
    expect(new Map(debits.map((d) => [d.request_id, d.credits]))).toEqual(billed)
    for (const a of [id, other]) {
      const lots = (await direct.query<{ remaining: number; sum: string }>(
        `SELECT l.remaining, (SELECT sum(e.delta) FROM ledger_entries e WHERE e.lot_id = l.id) AS sum FROM credit_lots l WHERE l.account_id = $1`,
        [a],
      )).rows
      for (const l of lots) {
        expect(l.remaining).toBeGreaterThanOrEqual(0)
        expect(Number(l.sum)).toBe(l.remaining)
      }
    }
    // Every node's row comes back to what its memory holds: nothing, now that every call has settled.
    const held = async () => Number((await direct.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds')).rows[0]?.n)
    for (const end = Date.now() + 10_000; (await held()) !== 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50))
    expect(await held()).toBe(0)
  }, 120_000)
})
