/**
 * The PostgreSQL ledger's Idempotency-Key claims and releases go to the database in batches: many
 * calls' claims in one transaction, each answered as it would be alone (claimed, running, mismatch),
 * and a batch the server refuses goes again one claim at a time, so only the claim that cannot be
 * written fails. Two nodes' batches lock keys in one order, so they never deadlock.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { KeyClaim, KeyState, KeyUse, Ledger } from '../../src/ports/ledger.ts'
import { createTestDatabase, insertAccount, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)

describe.skipIf(!up)('PostgreSQL ledger: Idempotency-Key claims in batches', () => {
  let db: { url: string; drop(): Promise<void> }
  let pool: PgPool
  let ledger: Ledger
  /** A second node's pool and ledger on the same database. */
  let otherPool: PgPool
  let other: Ledger
  /** The queries sent through either pool that claim a key or release one. */
  let keyQueries = 0

  /** A pool of its own on the test database, its key queries counted. */
  function countedPool(): PgPool {
    const p = openPostgres(db.url, { max: 4 })
    const query = p.query.bind(p) as (...args: unknown[]) => Promise<unknown>
    ;(p as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && /pronet_key_ops/.test(args[0])) keyQueries++
      return query(...args)
    }
    return p
  }
  const newLedger = (p: PgPool) => createPgLedger(p, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, now: () => T0 })

  beforeAll(async () => {
    db = await createTestDatabase('pronet_key_batches')
    pool = countedPool()
    await migratePostgres(pool)
    ledger = newLedger(pool)
    otherPool = countedPool()
    other = newLedger(otherPool)
  })
  afterAll(async () => {
    await ledger?.close()
    await other?.close()
    await pool?.end()
    await otherPool?.end()
    await db?.drop()
  })

  const use = (accountId: string, key: string, fingerprint = `fp-${key}`): KeyUse => ({ accountId, key, fingerprint, at: T0 })
  const rows = async (accountId: string) =>
    (await pool.query<{ idem_key: string; state: string }>('SELECT idem_key, state FROM idempotency_keys WHERE account_id = $1 ORDER BY idem_key', [accountId])).rows

  it('300 claims of two accounts made at once go in a few transactions, each claimed', async () => {
    const ids = [await insertAccount(pool, T0), await insertAccount(pool, T0)]
    const uses = Array.from({ length: 300 }, (_, i) => use(ids[i % 2]!, `k-${String(i).padStart(3, '0')}`))
    const before = keyQueries
    const states = await Promise.all(uses.map((u) => ledger.claimKey(u)))
    expect(keyQueries - before).toBeLessThanOrEqual(3)
    expect(states.map((s) => s.state)).toEqual(uses.map(() => 'claimed'))
    const claims = states.map((s) => (s as Extract<KeyState, { state: 'claimed' }>).claim)
    expect(new Set(claims.map((c) => c.token)).size).toBe(300)
    for (const [i, c] of claims.entries()) expect(c).toMatchObject(uses[i]!)
    for (const id of ids) expect((await rows(id)).map((r) => `${r.idem_key} ${r.state}`)).toEqual(uses.filter((u) => u.accountId === id).map((u) => `${u.key} running`))

    // Released together, in as few transactions: each key is free again.
    const released = keyQueries
    await Promise.all(claims.map((c) => ledger.releaseKey(c)))
    expect(keyQueries - released).toBeLessThanOrEqual(3)
    for (const id of ids) expect(await rows(id)).toEqual([])
  })

  it('claims of one key in one batch: the first takes it, a repeat finds it running, another request is refused', async () => {
    const id = await insertAccount(pool, T0)
    const before = keyQueries
    const states = await Promise.all([ledger.claimKey(use(id, 'same')), ledger.claimKey(use(id, 'same')), ledger.claimKey(use(id, 'same', 'another request'))])
    expect(keyQueries - before).toBe(1)
    expect(states.map((s) => s.state)).toEqual(['claimed', 'running', 'mismatch'])
    // A claim released in the batch that claims the key again lets the claim after it take the key.
    const first = (states[0] as { claim: KeyClaim }).claim
    const [, again] = await Promise.all([ledger.releaseKey(first), ledger.claimKey(use(id, 'same'))])
    expect(again.state).toBe('claimed')
    expect((again as { claim: KeyClaim }).claim.token).not.toBe(first.token)
  })

  it('a claim that cannot be written fails alone: the others of its batch are claimed', async () => {
    const id = await insertAccount(pool, T0)
    // A row the server refuses (here by a trigger of this test's database) rolls the whole batch back.
    await pool.query(`CREATE FUNCTION refuse_key() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.idem_key = 'refused' THEN RAISE EXCEPTION 'refused' USING ERRCODE = '22023'; END IF; RETURN NEW; END $$`)
    await pool.query('CREATE TRIGGER refuse_key BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_key()')
    const before = keyQueries
    const settled = await Promise.allSettled([ledger.claimKey(use(id, 'a')), ledger.claimKey(use(id, 'refused')), ledger.claimKey(use(id, 'c'))])
    // The batch, then each claim alone.
    expect(keyQueries - before).toBe(4)
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: '22023' }) })
    expect([settled[0], settled[2]].map((s) => s.status === 'fulfilled' && s.value.state)).toEqual(['claimed', 'claimed'])
    expect(await rows(id)).toEqual([
      { idem_key: 'a', state: 'running' },
      { idem_key: 'c', state: 'running' },
    ])
  })

  it('two nodes claiming the same keys at once, in opposite orders, never wait on each other: each key is claimed once', async () => {
    const id = await insertAccount(pool, T0)
    const keys = Array.from({ length: 200 }, (_, i) => `n-${String(i).padStart(3, '0')}`)
    const reversed = [...keys].reverse()
    // Each pool connected already, so the two batches run at the same time.
    await Promise.all([pool.query('SELECT 1'), otherPool.query('SELECT 1')])
    const before = keyQueries
    const [mine, theirs] = await Promise.all([Promise.all(keys.map((k) => ledger.claimKey(use(id, k)))), Promise.all(reversed.map((k) => other.claimKey(use(id, k))))])
    // Batches that locked keys in opposite orders would deadlock, and each would go again one claim at a time.
    expect(keyQueries - before).toBeLessThanOrEqual(6)
    const theirsByKey = new Map(reversed.map((k, i) => [k, theirs[i]!.state]))
    expect(keys.map((k, i) => [mine[i]!.state, theirsByKey.get(k)].sort().join(' '))).toEqual(keys.map(() => 'claimed running'))
  })
})
