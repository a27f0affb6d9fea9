/**
 * Idempotency-Key claims on PostgreSQL, shared by every node. A call claims its key with a row
 * (state 'running') that its node renews while the call runs, so the claim of a node that died lapses
 * (`leaseMs` after its last renewal, in the requests' clock, like a hold) and the key can be taken
 * over. The answer replaces the claim in the settle's own transaction (keepAnswersSql, used by the
 * batching and the recovery), so a debit that committed has its answer and one that did not has none;
 * a settle in doubt whose debit is given back loses its answer in the same transaction
 * (pg-ledger-in-doubt.ts), unless the answer was already repeated to the client: `replayed` is set in
 * the statement that reads it for a repeat, under the row's lock.
 *
 * Claims and releases go to the database in batches (pg-write-queue.ts), so a client that sends a key
 * with every call costs it a share of one transaction per batch, not one transaction per call.
 */
import { isUtf8 } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import { KEY_LEASE_MS, KEY_RETENTION_MS, type AnswerToKeep, type KeyClaim, type KeyState, type KeyUse } from '../../ports/ledger.ts'
import type { PgPool } from './database.ts'
import { isPgUnavailable } from './pg-errors.ts'
import { inline } from './pg-ledger-statements.ts'
import { failure, type PgLedgerLogger } from './pg-ledger-transactions.ts'
import { createWriteQueue } from './pg-write-queue.ts'

/** Period of the renewal of this node's claims (real time). */
export const KEY_RENEW_MS = 10_000
/** Rounds of claim-then-read a claim makes when rows come and go under it, before it says "running". */
const CLAIM_ROUNDS = 5

/** Answers kept under their keys (migration 017), each body in the encoding named beside it. */
const KEEP_ANSWERS =
  'SELECT pronet_keep_answers($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[])'

/** The claims and releases of a batch, in order (migration 016): a row per claim. */
const KEY_OPS =
  'SELECT o_n, o_outcome, o_status, o_headers, o_body FROM pronet_key_ops($1::int[]::boolean[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7, $8)'

/**
 * The order in which every transaction locks rows of idempotency_keys, claims and kept answers alike:
 * by account, then key. Two transactions that lock rows in one order never wait on each other.
 */
const byAccountKey = (x: string, k: string, y: string, l: string): number => (x < y ? -1 : x > y ? 1 : k < l ? -1 : k > l ? 1 : 0)

export interface PgKeyClaimsOptions {
  pool: PgPool
  leaseMs: number
  /** Period of the renewal, real ms (0: never). */
  renewMs: number
  logger?: PgLedgerLogger | undefined
  /** Claims and releases in one batch at most. */
  maxBatch?: number
}

export interface PgKeyClaims {
  claim(use: KeyUse): Promise<KeyState>
  release(claim: KeyClaim): Promise<void>
  /** The claim's call has settled with its answer kept: nothing more to renew. */
  settled(claim: KeyClaim): void
  stop(): void
  running(): Promise<unknown> | undefined
}

/** An answer to keep under its key, and the call whose answer it is. */
export interface KeptByCall {
  accountId: string
  keep: AnswerToKeep
  requestId: string
}

/**
 * How kept answers' bodies are written into statements. As text where the database's encodings are
 * UTF-8: the server reads every character of a literal, and a JSON answer's own text is a quarter
 * shorter than its base64 and needs no decoding. Else, and for a body that is not valid UTF-8 or holds
 * a NUL (which a text value cannot), in base64.
 */
export interface AnswerBodies {
  /** Whether a body may be sent as text: false until the database's encodings are known. */
  readonly text: boolean
  /**
   * While `text` is not decided: a promise that settles once the database has been asked (the first
   * call asks, so a node that keeps no answer never does). Undefined once decided.
   */
  deciding(): Promise<void> | undefined
}

/**
 * The pool's database's encodings, read once: `text` once both the server's and the connections'
 * are UTF-8. `forced` decides without asking (tests of either form).
 */
export function answerBodies(pool: PgPool, forced?: 'text' | 'base64'): AnswerBodies {
  if (forced) return { text: forced === 'text', deciding: () => undefined }
  let reading: Promise<void> | undefined
  let decided = false
  const bodies = {
    text: false,
    deciding(): Promise<void> | undefined {
      if (decided) return undefined
      reading ??= pool
        .query<{ server: string; client: string }>("SELECT current_setting('server_encoding') AS server, current_setting('client_encoding') AS client")
        .then(
          ({ rows: [row] }) => {
            bodies.text = row?.server === 'UTF8' && row.client === 'UTF8'
            decided = true
          },
          // Unknown (the database out of reach): base64 meanwhile, which is always exact, and the
          // next answer kept asks again.
          () => {
            reading = undefined
          },
        )
      return reading
    },
  }
  return bodies
}

/** A body's text and its encoding's name, as pronet_keep_answers reads them. */
function bodyText(body: Buffer, bodies: AnswerBodies): [string, 'utf8' | 'base64'] {
  return bodies.text && !body.includes(0) && isUtf8(body) ? [body.toString('utf8'), 'utf8'] : [body.toString('base64'), 'base64']
}

/**
 * The statement that keeps answers under their keys, replacing the claims, for the settles' own
 * transaction, in the order claims lock keys (byAccountKey).
 */
export function keepAnswersSql(kept: readonly KeptByCall[], bodies: AnswerBodies): string {
  const rows = [...kept].sort((a, b) => byAccountKey(a.accountId, a.keep.claim.key, b.accountId, b.keep.claim.key))
  const column = <T extends string | number>(f: (k: KeptByCall) => T): T[] => rows.map(f)
  const texts = rows.map((k) => bodyText(k.keep.answer.body, bodies))
  return inline(KEEP_ANSWERS, [
    column((k) => k.accountId),
    column((k) => k.keep.claim.key),
    column((k) => k.keep.claim.fingerprint),
    column((k) => k.keep.claim.token),
    column((k) => k.keep.claim.at),
    column((k) => k.requestId),
    column((k) => k.keep.answer.status),
    column((k) => JSON.stringify(k.keep.answer.headers)),
    texts.map(([text]) => text),
    texts.map(([, encoding]) => encoding),
  ])
}

interface Claiming {
  kind: 'claim'
  use: KeyUse
  token: string
  /** Batches it has been through. */
  rounds: number
  resolve(state: KeyState): void
  reject(e: unknown): void
}

interface Releasing {
  kind: 'release'
  claim: KeyClaim
  resolve(): void
  reject(e: unknown): void
}

type KeyOp = Claiming | Releasing

interface KeyOpRow {
  o_n: number
  o_outcome: 'claimed' | 'answered' | 'running' | 'mismatch' | 'again'
  o_status: number | null
  o_headers: string | null
  o_body: Buffer | null
}

const keyOf = (op: KeyOp): [string, string] => (op.kind === 'claim' ? [op.use.accountId, op.use.key] : [op.claim.accountId, op.claim.key])

/** An operation's row of pronet_key_ops' arrays: release, account, key, fingerprint, token, at. */
const opFields = (op: KeyOp): (string | number)[] =>
  op.kind === 'claim' ? [0, op.use.accountId, op.use.key, op.use.fingerprint, op.token, op.use.at] : [1, op.claim.accountId, op.claim.key, '', op.claim.token, 0]

/** A stable sort with it keeps the operations on one key in the order they came. */
const byKey = (a: KeyOp, b: KeyOp): number => byAccountKey(...keyOf(a), ...keyOf(b))

interface LiveClaim {
  accountId: string
  key: string
  at: number
  /** Date.now() when it was claimed. */
  granted: number
}

export function createPgKeyClaims({ pool, leaseMs, renewMs, logger, maxBatch = 1_000 }: PgKeyClaimsOptions): PgKeyClaims {
  /** This node's claims whose call is still running, by token. */
  const live = new Map<string, LiveClaim>()
  const prefix = randomBytes(6).toString('base64url')
  let n = 0
  let renewing: Promise<unknown> | undefined

  /** A claim's outcome as the database gave it: undefined when the row went between its statements (ask again). */
  function claimed({ use, token }: Claiming, row: KeyOpRow): KeyState | undefined {
    switch (row.o_outcome) {
      case 'claimed':
        live.set(token, { accountId: use.accountId, key: use.key, at: use.at, granted: Date.now() })
        return { state: 'claimed', claim: { ...use, token } }
      case 'answered':
        return { state: 'answered', answer: { status: row.o_status as number, headers: JSON.parse(row.o_headers as string) as Record<string, string>, body: row.o_body as Buffer } }
      case 'mismatch':
        return { state: 'mismatch' }
      case 'running':
        return { state: 'running' }
      default:
        return undefined
    }
  }

  /**
   * One statement, one implicit transaction, for the whole batch (pronet_key_ops, migration 016), its
   * rows locked in the order of byAccountKey. A batch the server refuses goes again one operation
   * at a time, so only what cannot be done fails; the database out of reach fails each operation, as
   * it would have failed alone.
   */
  async function write(batch: KeyOp[]): Promise<void> {
    const ops = batch.length === 1 ? batch : [...batch].sort(byKey)
    const rows = ops.map(opFields)
    const columns = (rows[0] ?? []).map((_, c) => rows.map((r) => r[c]!) as string[] | number[])
    const sql = inline(KEY_OPS, [...columns, leaseMs, KEY_RETENTION_MS])
    let found: KeyOpRow[]
    try {
      found = (await pool.query<KeyOpRow>(sql)).rows
    } catch (e) {
      if (ops.length === 1 || isPgUnavailable(e)) for (const op of ops) op.reject(e)
      else for (const op of ops) void write([op])
      return
    }
    const outcomes = new Map(found.map((r) => [r.o_n, r]))
    ops.forEach((op, i) => {
      if (op.kind === 'release') return op.resolve()
      try {
        const row = outcomes.get(i + 1)
        if (!row) throw new Error(`no outcome for the claim of key ${i + 1} of a batch`)
        const state = claimed(op, row)
        if (state) op.resolve(state)
        // Rows kept coming and going under the key: another call is busy with it.
        else if (++op.rounds >= CLAIM_ROUNDS) op.resolve({ state: 'running' })
        else queue.push(op)
      } catch (e) {
        op.reject(e)
      }
    })
  }
  const queue = createWriteQueue<KeyOp>(maxBatch, write)

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
    claim(use) {
      const token = `${prefix}-${(n++).toString(36)}`
      return new Promise((resolve, reject) => queue.push({ kind: 'claim', use, token, rounds: 0, resolve, reject }))
    },

    release(claim) {
      live.delete(claim.token)
      return new Promise((resolve, reject) => queue.push({ kind: 'release', claim, resolve, reject }))
    },

    settled(claim) {
      live.delete(claim.token)
    },

    stop: () => clearInterval(renewTimer),
    running: () => renewing,
  }
}
