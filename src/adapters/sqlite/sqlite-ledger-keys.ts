/**
 * Idempotency-Key claims on the embedded store. One process serves an embedded store (the data
 * dir's claim), so the calls running under a key are this process's own: they are held in memory,
 * and a key whose call died with its process is free again at once when the next one starts. Answers
 * are rows of idempotency_keys, written by the group commit in the same transaction as their call's
 * debit (ledger-writes.ts); a claim is let go only once that transaction is durable, so a repeat
 * waits rather than miss an answer still on its way to disk.
 */
import { randomBytes } from 'node:crypto'
import { KEY_RETENTION_MS, type AnswerToKeep, type KeyClaim, type KeyState, type KeyUse } from '../../ports/ledger.ts'
import type { SqliteDb } from './database.ts'
import type { AnswerRow } from './ledger-writes.ts'

interface StoredRow {
  fingerprint: string
  createdAt: number
  status: number
  headers: string
  body: Buffer
}

export interface SqliteKeyClaims {
  claim(use: KeyUse): KeyState
  /** Ends a claim if it is still the one named (a later claim of the key is not touched). */
  release(claim: KeyClaim): void
  /** The idempotency_keys row of an answer kept by the call `requestId`. */
  row(keep: AnswerToKeep, requestId: string): AnswerRow
}

const idOf = (accountId: string, key: string): string => `${accountId}\u0000${key}`

export function createSqliteKeyClaims(db: SqliteDb): SqliteKeyClaims {
  const selectAnswer = db.prepare(
    'SELECT fingerprint, created_at AS createdAt, status, headers, body FROM idempotency_keys WHERE account_id = ? AND idem_key = ?',
  )
  /** Calls running under a key, by account and key. */
  const running = new Map<string, { fingerprint: string; token: string }>()
  const prefix = randomBytes(6).toString('base64url')
  let n = 0

  return {
    claim(use) {
      const id = idOf(use.accountId, use.key)
      const live = running.get(id)
      if (live) return { state: live.fingerprint === use.fingerprint ? 'running' : 'mismatch' }
      const row = selectAnswer.get(use.accountId, use.key) as StoredRow | undefined
      if (row && use.at - row.createdAt < KEY_RETENTION_MS) {
        if (row.fingerprint !== use.fingerprint) return { state: 'mismatch' }
        return { state: 'answered', answer: { status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body } }
      }
      const claim: KeyClaim = { ...use, token: `${prefix}-${(n++).toString(36)}` }
      running.set(id, { fingerprint: use.fingerprint, token: claim.token })
      return { state: 'claimed', claim }
    },

    release(claim) {
      const id = idOf(claim.accountId, claim.key)
      if (running.get(id)?.token === claim.token) running.delete(id)
    },

    row({ claim, answer }, requestId) {
      return {
        key: claim.key,
        fingerprint: claim.fingerprint,
        createdAt: claim.at,
        requestId,
        status: answer.status,
        headers: JSON.stringify(answer.headers),
        body: answer.body,
      }
    },
  }
}
