/**
 * A batch of settles in one round trip. When this node's last batch of an account left it the
 * account's state (pg-ledger-local-holds.ts) and nothing but settles waits, the node decides the
 * debits from that state before it takes the lock, and sends BEGIN, the locks, a guard per account
 * and every write with COMMIT together. Under the lock the guard compares the account's plan, period
 * and every lot (remaining, start, expiry) with the state decided from: unchanged, the decisions are
 * the ones the database would have led to, and the account is locked only while the server runs the
 * statements. Changed (another node billed the account meanwhile), the guard fails the transaction,
 * nothing is written, and the batch goes the two-round-trip way, reading the state under the lock.
 */
import type pg from 'pg'
import { renewalDue, type BillingState } from '../../domain/billing/billing-rules.ts'
import { batchSql } from './pg-ledger-batch-sql.ts'
import { decideFrom, type GroupRun, type Outcome } from './pg-ledger-batching.ts'
import type { LocalView } from './pg-ledger-local-holds.ts'
import { inline } from './pg-ledger-statements.ts'
import { LOCK_ACCOUNTS } from './pg-ledger-transactions.ts'

/** The guard's SQLSTATE (pronet_expect_state, migration 015). */
export const GUARD_FAILED = 'PN001'

const GUARD = 'SELECT pronet_expect_state($1, $2, $3::bigint, $4, $5, $6, $7::text[], $8::int[], $9::bigint[], $10::bigint[])'

/** The guard of one account: the database still holds `state`. */
export function guardSql(state: BillingState): string {
  const s = state.subscription
  return inline(GUARD, [
    state.accountId,
    s.plan,
    s.renewalAt,
    s.anchorAt,
    s.creditsLimit,
    s.cancelAtPeriodEnd ? 1 : 0,
    state.lots.map((l) => l.id),
    state.lots.map((l) => l.remaining),
    state.lots.map((l) => l.startsAt),
    state.lots.map((l) => l.expiresAt),
  ])
}

/** Whether a group can be decided from `view` and go in one round trip: settles only, no renewal due. */
export function guardable(run: GroupRun, view: LocalView | undefined): view is LocalView {
  if (!view || run.progress.check) return false
  for (const r of run.requests) if (r.kind !== 'settle' || renewalDue(view.state, r.hold.at)) return false
  return true
}

/**
 * The groups' transaction in one round trip, decided from `views` (by account). Outcomes by group, in
 * the order of `runs`; undefined when a guard failed: rolled back, nothing written, nothing applied.
 */
export async function guardedTransaction(c: pg.PoolClient, runs: readonly GroupRun[], views: ReadonlyMap<string, LocalView>): Promise<Outcome[][] | undefined> {
  const decided = runs.map((run) => {
    const view = views.get(run.accountId) as LocalView
    return { view, decision: decideFrom(run, structuredClone(view.state), view.others, true) }
  })
  const ids = runs.map((r) => r.accountId).sort()
  const statements = [
    'BEGIN',
    inline(LOCK_ACCOUNTS, [ids]),
    ...decided.map((d) => guardSql(d.view.state)),
    ...batchSql(decided.map((d) => d.decision.writes), (runs[0] as GroupRun).rules.bodies),
    'COMMIT',
  ]
  for (const run of runs) run.progress.commitSent = true
  try {
    await c.query(statements.join(';\n'))
  } catch (e) {
    if ((e as { code?: unknown }).code !== GUARD_FAILED) throw e
    // Nothing was written: the transaction ended at the guard.
    await c.query('ROLLBACK')
    for (const run of runs) run.progress.commitSent = false
    return undefined
  }
  for (const d of decided) d.decision.applied()
  return decided.map((d) => d.decision.outcomes)
}
