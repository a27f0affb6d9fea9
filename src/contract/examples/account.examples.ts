/**
 * Example answers of the account operations (usage and subscription), as /openapi.json shows them:
 * real answers for an account that made three calls. Typed by the contract and checked against its
 * schemas by the tests.
 */
import type { Static } from 'typebox'
import type { SubscriptionSchema, UsageReportSchema } from '../resources.schemas.ts'

export const getUsage: Static<typeof UsageReportSchema> = {
  from: '2026-11-01',
  to: '2026-11-02',
  creditsRemaining: 99997,
  subscriptionCreditsRemaining: 99997,
  paygCreditsRemaining: 0,
  requests: 3,
  billableRequests: 3,
  creditsUsed: 3,
  endpoints: [
    {
      endpoint: '/api/v1/profile',
      requests: 2,
      billableRequests: 2,
      creditsUsed: 2,
      statusCodes: {
        '200': 1,
        '404': 1,
      },
    },
    {
      endpoint: '/api/v1/posts',
      requests: 1,
      billableRequests: 1,
      creditsUsed: 1,
      statusCodes: {
        '200': 1,
      },
    },
  ],
  days: [
    {
      date: '2026-11-01',
      requests: 0,
      billableRequests: 0,
      creditsUsed: 0,
    },
    {
      date: '2026-11-02',
      requests: 3,
      billableRequests: 3,
      creditsUsed: 3,
    },
  ],
}

export const getSubscription: Static<typeof SubscriptionSchema> = {
  plan: 'custom',
  active: true,
  status: 'active',
  creditsRemaining: 99997,
  subscriptionCreditsRemaining: 99997,
  paygCreditsRemaining: 0,
  paygExpiresAt: null,
  creditsLimit: 100000,
  creditsUsed: 3,
  renewalDate: '2026-12-02T09:00:16.000Z',
  rpsLimit: 10,
  cancelAtPeriodEnd: false,
}
