/**
 * Idempotency-Key claims on PostgreSQL, shared by every node. A call claims its key with a row
 * (state 'running') that its node renews while the call runs, so the claim of a node that died lapses
 * (`leaseMs` after its last renewal, in the requests' clock, like a hold) and the key can be taken
 * over. The answer replaces the claim in the settle's own transaction (keepAnswerSql, used by the
 * batching and the recovery), so a debit that committed has its answer and one that did not has none;
 * a settle in doubt whose debit is given back loses its answer in the same transaction
 * (pg-ledger-in-doubt.ts), unless the answer was already repeated to the client: `replayed` is set in
 * the statement that reads it for a repeat, under the row's lock.
 */
import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { KEY_LEASE_MS, KEY_RETENTION_MS, type AnswerToKeep, type KeyClaim, type KeyState, type KeyUse } from '../../ports/ledger.ts'
import type { PgPool } from './database.ts'
import { inline } from './pg-ledger-statements.ts'
import { failure, type PgLedgerLogger } from './pg-ledger-transactions.ts'

/** Period of the renewal of this node's claims (real time). */
export const KEY_RENEW_MS = 10_000
/** Rounds of claim-then-read a claim makes when rows come and go under it, before it says "running". */
const CLAIM_ROUNDS = 5

export interface PgKeyClaimsOptions {
  pool: PgPool
  leaseMs: number
  /** Period of the renewal, real ms (0: never). */
  renewMs: number
  logger?: PgLedgerLogger | undefined
}

export interface PgKeyClaims {
  claim(use: KeyUse): Promise<KeyState>
  release(claim: KeyClaim): Promise<void>
  /** The claim's call has settled with its answer kept: nothing more to renew. */
  settled(claim: KeyClaim): void
  stop(): void
  running(): Promise<unknown> | undefined
}

/** The upsert that keeps a call's answer under its key, for the settle's own transaction. */
export function keepAnswerSql(accountId: string, { claim, answer }: AnswerToKeep, requestId: string): string {
  return inline(
    `INSERT INTO idempotency_keys AS k (account_id, idem_key, fingerprint, state, token, created_at, lease_until, request_id, status, headers, body)
     VALUES ($1, $2, $3, 'done', $4, $5, $5, $6, $7, $8, decode($9, 'hex'))
     ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'done', token = EXCLUDED.token,
       created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, request_id = EXCLUDED.request_id, status = EXCLUDED.status,
       headers = EXCLUDED.headers, body = EXCLUDED.body, replayed = false, recorded_at = now()`,
    [accountId, claim.key, claim.fingerprint, claim.token, claim.at, requestId, answer.status, JSON.stringify(answer.headers), answer.body.toString('hex')],
  )
}

interface LiveClaim {
  accountId: string
  key: string
  at: number
  /** Date.now() when it was claimed. */
  granted: number
}

export function createPgKeyClaims({ pool, leaseMs, renewMs, logger }: PgKeyClaimsOptions): PgKeyClaims {
  /** This node's claims whose call is still running, by token. */
  const live = new Map<string, LiveClaim>()
  const prefix = randomBytes(6).toString('base64url')
  let n = 0
  let renewing: Promise<unknown> | undefined

  /**
   * One round trip, one implicit transaction of three statements, each seeing what the ones before
   * it did: take the key if it is free (no row, an answer past its day, a claim whose lease lapsed);
   * else take its answer for a repeat of the same request, marking it replayed; else read what holds it.
   */
  async function round(use: KeyUse, token: string): Promise<KeyState | undefined> {
    const expired = use.at - KEY_RETENTION_MS
    const sql = [
      inline(
        `INSERT INTO idempotency_keys AS k (account_id, idem_key, fingerprint, state, token, created_at, lease_until)
         VALUES ($1, $2, $3, 'running', $4, $5, $6)
         ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'running', token = EXCLUDED.token,
           created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, request_id = NULL, status = NULL, headers = NULL,
           body = NULL, replayed = false, recorded_at = now()
         WHERE k.created_at <= $7 OR (k.state = 'running' AND k.lease_until <= $5)
         RETURNING token`,
        [use.accountId, use.key, use.fingerprint, token, use.at, use.at + leaseMs, expired],
      ),
      inline(
        `UPDATE idempotency_keys SET replayed = true
         WHERE account_id = $1 AND idem_key = $2 AND state = 'done' AND fingerprint = $3 AND created_at > $4
         RETURNING status, headers, body`,
        [use.accountId, use.key, use.fingerprint, expired],
      ),
      inline('SELECT state, fingerprint FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2', [use.accountId, use.key]),
    ]
    const [taken, answered, seen] = (await pool.query(sql.join(';\n'))) as unknown as pg.QueryResult[]
    if ((taken?.rows[0] as { token?: string } | undefined)?.token === token) {
      live.set(token, { accountId: use.accountId, key: use.key, at: use.at, granted: Date.now() })
      return { state: 'claimed', claim: { ...use, token } }
    }
    const a = answered?.rows[0] as { status: number; headers: string; body: Buffer } | undefined
    if (a) return { state: 'answered', answer: { status: a.status, headers: JSON.parse(a.headers) as Record<string, string>, body: a.body } }
    const row = seen?.rows[0] as { state: string; fingerprint: string } | undefined
    if (!row) return undefined
    if (row.fingerprint !== use.fingerprint) return { state: 'mismatch' }
    return row.state === 'running' ? { state: 'running' } : undefined
  }

  const renewTimer =
    renewMs > 0
      ? setInterval(() => {
          if (live.size === 0 || renewing) return
          const now = Date.now()
          const rows: [string[], string[], string[], number[]] = [[], [], [], []]
          for (const [token, c] of live) {
            // A call that never settled nor released (it cannot: the gateway ends every claim) is let go after an hour.
            if (now - c.granted > 3_600_000) live.delete(token)
            else {
              rows[0].push(c.accountId)
              rows[1].push(c.key)
              rows[2].push(token)
              rows[3].push(c.at + (now - c.granted) + leaseMs)
            }
          }
          renewing = pool
            .query(
              `UPDATE idempotency_keys k SET lease_until = GREATEST(k.lease_until, u.lease_until)
               FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(account_id, idem_key, token, lease_until)
               WHERE k.account_id = u.account_id AND k.idem_key = u.idem_key AND k.token = u.token AND k.state = 'running'`,
              rows,
            )
            .catch((e: unknown) => logger?.warn(failure(e), "renewing this node's Idempotency-Key claims failed; will retry"))
            .finally(() => (renewing = undefined))
        }, renewMs)
      : undefined
  renewTimer?.unref()

  return {
    async claim(use) {
      const token = `${prefix}-${(n++).toString(36)}`
      for (let i = 0; i < CLAIM_ROUNDS; i++) {
        const state = await round(use, token)
        if (state) return state
      }
      // Rows kept coming and going under the key: another call is busy with it.
      return { state: 'running' }
    },

    async release(claim) {
      live.delete(claim.token)
      await pool.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND token = $3 AND state = 'running'`, [
        claim.accountId,
        claim.key,
        claim.token,
      ])
    },

    settled(claim) {
      live.delete(claim.token)
    },

    stop: () => clearInterval(renewTimer),
    running: () => renewing,
  }
}
