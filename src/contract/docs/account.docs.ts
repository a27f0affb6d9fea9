/** The account operations (usage and subscription) as /openapi.json describes them, with example calls. */
import * as answers from '../examples/account.examples.ts'
import type { OperationDoc } from './operation-doc.ts'

const FREE =
  'Free: it costs no credits, takes nothing from the plan’s per-second budget and answers at a zero balance too; it has a budget of its own, one call per second per account.'

export const ACCOUNT_DOCS = {
  getUsage: {
    description: [
      'The balance now, and the calls and credits of a range of UTC days (`from` and `to`, both included; by default from the first day of the current month to today): per endpoint, busiest first, with the count of each status, and per day, idle days included.',
      `${FREE} Its own calls are not counted in the report.`,
    ].join('\n\n'),
    request: { query: { from: '2026-11-01', to: '2026-11-02' } },
    response: { status: 200, body: answers.getUsage },
    errors: {
      INVALID_PARAMETER: { error: "Invalid parameter 'from': 'yesterday' is not a date in YYYY-MM-DD form.", code: 'INVALID_PARAMETER', details: { parameter: 'from' } },
      RATE_LIMITED: { error: 'The usage endpoint answers once per second per account; retry after the Retry-After delay.', code: 'RATE_LIMITED' },
    },
  },
  getSubscription: {
    description: [
      'The plan and its status, the balance (the plan’s allowance for the current period, then pack credits), the rate limit and the renewal date.',
      FREE,
    ].join('\n\n'),
    request: {},
    response: { status: 200, body: answers.getSubscription },
    errors: {
      RATE_LIMITED: { error: 'The subscription endpoint answers once per second per account; retry after the Retry-After delay.', code: 'RATE_LIMITED' },
    },
  },
} as const satisfies Record<string, OperationDoc>
