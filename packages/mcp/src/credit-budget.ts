/**
 * A session's credit budget (PRONET_MCP_MAX_CREDITS). A call reserves the most it may cost before it
 * is sent, and settles at what the API says it charged, so calls running at once cannot together
 * pass the budget. Refusals name what was asked and what is left.
 */

export interface BudgetState {
  /** Credits the API charged this session. */
  spent: number
  /** Credits reserved by calls still running. */
  reserved: number
  /** The session's budget; null: none. */
  limit: number | null
}

export type Reservation =
  | { ok: true; settle(charged: number): void }
  | { ok: false; state: BudgetState }

export interface CreditBudget {
  /** Reserves `credits` for a call, or refuses when they would pass the budget. */
  reserve(credits: number): Reservation
  state(): BudgetState
}

export function createCreditBudget(limit: number | null): CreditBudget {
  let spent = 0
  let reserved = 0
  const state = (): BudgetState => ({ spent, reserved, limit })
  return {
    reserve(credits) {
      if (limit !== null && credits > 0 && spent + reserved + credits > limit) return { ok: false, state: state() }
      reserved += credits
      let settled = false
      return {
        ok: true,
        settle(charged) {
          if (settled) return
          settled = true
          reserved -= credits
          spent += charged
        },
      }
    },
    state,
  }
}

/** "3 of 100 credits spent" for the tool results. */
export function budgetText(s: BudgetState): string {
  return s.limit === null
    ? `${s.spent} credit${s.spent === 1 ? '' : 's'} spent this session (no session budget)`
    : `${s.spent} of this session's ${s.limit} credits spent`
}
