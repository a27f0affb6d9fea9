/**
 * The PostgreSQL ledger writes the answers it keeps under Idempotency-Keys as their own text where that
 * is exact (a database whose encodings are UTF-8, a body that is valid UTF-8 without a NUL), and in
 * base64 otherwise; either way the answer comes back byte for byte. The form is read off the
 * statements the ledger sends.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import { answerBodies } from '../../src/adapters/postgres/pg-ledger-keys.ts'
import type { KeptAnswer, Ledger } from '../../src/ports/ledger.ts'
import { createTestDatabase, insertAccount, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)

const JSON_BODY = Buffer.from(JSON.stringify({ name: "Zoë O'Neil", city: '東京', about: 'a "quote", a \\ and a\nline 🚀' }))
const NOT_UTF8 = Buffer.from([0x7b, 0xff, 0x00, 0x7d])

/** A value as a statement carries it: a literal of its own ('x'), or an element of an array literal ("x"). */
const written = (value: string): RegExp => new RegExp(`(['"])${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\1`)

describe.skipIf(!up)('PostgreSQL ledger: the bodies of kept answers', () => {
  const dbs: { url: string; drop(): Promise<void> }[] = []
  const pools: PgPool[] = []
  const ledgers: Ledger[] = []
  /** The pronet_keep_answers statements sent through the pools' clients. */
  const sent: string[] = []

  /** A migrated database (of `encoding`, else the cluster's) and a pool on it whose clients' statements are recorded. */
  async function database(encoding?: 'SQL_ASCII'): Promise<PgPool> {
    const db = await createTestDatabase('pronet_answer_bodies', encoding ? { encoding } : {})
    dbs.push(db)
    const pool = openPostgres(db.url, { max: 4 })
    pools.push(pool)
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown
      ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].includes('pronet_keep_answers(')) sent.push(args[0])
        return query(...args)
      }
    })
    await migratePostgres(pool)
    return pool
  }

  function ledgerOn(pool: PgPool, answerBodies?: 'text' | 'base64'): Ledger {
    const ledger = createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, now: () => T0, ...(answerBodies ? { answerBodies } : {}) })
    ledgers.push(ledger)
    return ledger
  }

  /** Keeps each body under a key of its own (a free settle) and claims the key again: the answer repeated exactly. The statements that kept them. */
  async function keepAndRepeat(ledger: Ledger, accountId: string, bodies: Buffer[]): Promise<{ statements: string[] }> {
    const from = sent.length
    for (const [n, body] of bodies.entries()) {
      const key = `k-${n}-${randomBytes(3).toString('hex')}`
      const found = await ledger.claimKey({ accountId, key, fingerprint: 'fp', at: T0 })
      if (found.state !== 'claimed') throw new Error(`not claimed: ${found.state}`)
      const answer: KeptAnswer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body }
      expect(await ledger.settle(null, { accountId, at: T0, endpoint: '/api/v1/profile', status: 200, credits: 0, requestId: `r-${key}` }, { claim: found.claim, answer })).toEqual({
        ok: true,
        charged: 0,
      })
      expect(await ledger.claimKey({ accountId, key, fingerprint: 'fp', at: T0 + 1 })).toEqual({ state: 'answered', answer })
    }
    return { statements: sent.slice(from) }
  }

  afterAll(async () => {
    for (const l of ledgers) await l.close()
    for (const p of pools) await p.end()
    for (const db of dbs) await db.drop()
  })

  it('on a UTF-8 database, JSON goes as its own text and other bytes in base64; both come back exact', async () => {
    const pool = await database()
    const bodies = answerBodies(pool)
    expect(bodies.text).toBe(false)
    await bodies.deciding()
    expect(bodies.text).toBe(true)
    expect(bodies.deciding()).toBeUndefined()

    const ledger = ledgerOn(pool)
    const { statements } = await keepAndRepeat(ledger, await insertAccount(pool, T0), [JSON_BODY, NOT_UTF8])
    expect(statements).toHaveLength(2)
    expect(statements[0]).toMatch(written('utf8'))
    expect(statements[0]).toContain('Zoë O\'\'Neil')
    expect(statements[1]).toMatch(written('base64'))
    expect(statements[1]).toMatch(written(NOT_UTF8.toString('base64')))
  })

  it('told to, writes every body in base64, and it still comes back exact', async () => {
    const pool = await database()
    const ledger = ledgerOn(pool, 'base64')
    const { statements } = await keepAndRepeat(ledger, await insertAccount(pool, T0), [JSON_BODY, NOT_UTF8])
    expect(statements).toHaveLength(2)
    for (const s of statements) {
      expect(s).toMatch(written('base64'))
      expect(s).not.toMatch(written('utf8'))
    }
    expect(statements[0]).toMatch(written(JSON_BODY.toString('base64')))
  })

  it('on a database that is not UTF-8, every body goes in base64 and comes back exact', async () => {
    const pool = await database('SQL_ASCII')
    const bodies = answerBodies(pool)
    await bodies.deciding()
    expect(bodies.text).toBe(false)
    expect(bodies.deciding()).toBeUndefined()

    // The ledger's first settle that keeps an answer waits until it has read the encodings.
    const ledger = ledgerOn(pool)
    const { statements } = await keepAndRepeat(ledger, await insertAccount(pool, T0), [JSON_BODY, NOT_UTF8])
    expect(statements).toHaveLength(2)
    for (const s of statements) expect(s).not.toMatch(written('utf8'))
  })
})
