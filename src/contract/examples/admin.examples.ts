/**
 * Example answers of the admin API, as /openapi.json shows them: real answers (an account made,
 * looked up, changed and topped up; two pack orders settled), with the keys' secrets replaced by
 * placeholders. Typed by the contract and checked against its schemas by the tests.
 */
import type { Static } from 'typebox'
import type { AlertsSchema, DeliveryListSchema, DeliverySchema, NewWebhookSchema, WebhookListSchema, WebhookSchema } from '../webhooks.schemas.ts'
import type { AccountShownSchema, AccountViewSchema, KeyViewSchema, NewAccountSchema, NewKeySchema, PackAddedSchema, QuoteSchema } from '../admin.schemas.ts'
import type { SubscriptionSchema } from '../resources.schemas.ts'
import type { OrderSchema } from '../../payments/order-view.ts'

export const createAccount: Static<typeof NewAccountSchema> = {
  account: {
    id: 'acc_nAk9NebuqoAp',
    name: 'Acme Analytics',
    createdAt: '2026-11-02T09:00:22.000Z',
    suspended: false,
    suspendedAt: null,
  },
  apiKey: {
    id: 'key_KEQqU7bo9_Ly',
    key: 'pk_EXAMPLEexampleEXAMPLEexample000',
    prefix: 'pk_EXAMPLE',
  },
}

export const searchAccounts: { accounts: Static<typeof AccountViewSchema>[] } = {
  accounts: [
    {
      id: 'acc_nAk9NebuqoAp',
      name: 'Acme Analytics',
      createdAt: '2026-11-02T09:00:22.000Z',
      suspended: false,
      suspendedAt: null,
    },
    {
      id: 'acc_RX8rN6Pnmt6M',
      name: 'Acme Research',
      createdAt: '2026-11-02T09:00:16.000Z',
      suspended: false,
      suspendedAt: null,
    },
  ],
}

export const getAccount: Static<typeof AccountShownSchema> = {
  account: {
    id: 'acc_nAk9NebuqoAp',
    name: 'Acme Analytics',
    createdAt: '2026-11-02T09:00:22.000Z',
    suspended: false,
    suspendedAt: null,
  },
  subscription: {
    plan: 'custom',
    active: true,
    status: 'active',
    creditsRemaining: 100000,
    subscriptionCreditsRemaining: 100000,
    paygCreditsRemaining: 0,
    paygExpiresAt: null,
    creditsLimit: 100000,
    creditsUsed: 0,
    renewalDate: '2026-12-02T09:00:22.000Z',
    rpsLimit: 10,
    cancelAtPeriodEnd: false,
  },
  keys: [
    {
      id: 'key_KEQqU7bo9_Ly',
      prefix: 'pk_xAxlStP',
      name: 'production crawler',
      createdAt: '2026-11-02T09:00:22.000Z',
      revokedAt: null,
      lastUsedAt: '2026-12-02T08:59:51.000Z',
      monthlyCreditLimit: 20000,
      endpoints: ['profile', 'search/posts'],
      creditsThisMonth: 1240,
    },
  ],
}

export const createKey: Static<typeof NewKeySchema> = {
  id: 'key_Nk4iDPIeK4mN',
  key: 'pk_EXAMPLEexampleEXAMPLEexample001',
  prefix: 'pk_EXAMPLE',
  name: 'nightly enrichment',
  createdAt: '2026-11-02T09:00:24.000Z',
  revokedAt: null,
  lastUsedAt: null,
  monthlyCreditLimit: 5000,
  endpoints: ['profile', 'company'],
  creditsThisMonth: 0,
}

export const updateKey: Static<typeof KeyViewSchema> = {
  id: 'key_Nk4iDPIeK4mN',
  prefix: 'pk_EXAMPLE',
  name: 'nightly enrichment',
  createdAt: '2026-11-02T09:00:24.000Z',
  revokedAt: null,
  lastUsedAt: '2026-12-02T08:58:10.000Z',
  monthlyCreditLimit: 8000,
  endpoints: null,
  creditsThisMonth: 4210,
}

export const suspendAccount: Static<typeof AccountViewSchema> = {
  id: 'acc_nAk9NebuqoAp',
  name: 'Acme Analytics',
  createdAt: '2026-11-02T09:00:22.000Z',
  suspended: true,
  suspendedAt: '2026-11-02T09:00:27.000Z',
}

export const resumeAccount: Static<typeof AccountViewSchema> = {
  id: 'acc_nAk9NebuqoAp',
  name: 'Acme Analytics',
  createdAt: '2026-11-02T09:00:22.000Z',
  suspended: false,
  suspendedAt: null,
}

export const setSubscription: Static<typeof SubscriptionSchema> = {
  plan: 'custom',
  active: true,
  status: 'active',
  creditsRemaining: 200000,
  subscriptionCreditsRemaining: 200000,
  paygCreditsRemaining: 0,
  paygExpiresAt: null,
  creditsLimit: 200000,
  creditsUsed: 0,
  renewalDate: '2026-12-02T09:00:22.000Z',
  rpsLimit: 20,
  cancelAtPeriodEnd: false,
}

export const addPack: Static<typeof PackAddedSchema> = {
  id: 'lot_u-B85vMMRRHy',
  credits: 50000,
  purchasedAt: '2026-11-02T09:00:30.000Z',
  expiresAt: '2027-11-02T09:00:30.000Z',
  price: 75,
}

export const quotePack: Static<typeof QuoteSchema> = {
  credits: 200000,
  price: 270,
}

export const listOrders: { orders: Static<typeof OrderSchema>[] } = {
  orders: [
    {
      id: 'ord_HlkfZ5tBA4kSFpRI',
      accountId: 'acc_nAk9NebuqoAp',
      userId: null,
      credits: 50000,
      price: 75,
      currency: 'usd',
      provider: 'manual',
      status: 'pending',
      test: false,
      providerRef: null,
      lotId: null,
      createdAt: '2026-11-02T09:00:31.000Z',
      updatedAt: '2026-11-02T09:00:31.000Z',
      paidAt: null,
    },
    {
      id: 'ord_hqiW3JTpY7rfY2Fh',
      accountId: 'acc_nAk9NebuqoAp',
      userId: null,
      credits: 100000,
      price: 150,
      currency: 'usd',
      provider: 'manual',
      status: 'pending',
      test: false,
      providerRef: null,
      lotId: null,
      createdAt: '2026-11-02T09:00:31.000Z',
      updatedAt: '2026-11-02T09:00:31.000Z',
      paidAt: null,
    },
  ],
}

export const approveOrder: Static<typeof OrderSchema> = {
  id: 'ord_hqiW3JTpY7rfY2Fh',
  accountId: 'acc_nAk9NebuqoAp',
  userId: null,
  credits: 100000,
  price: 150,
  currency: 'usd',
  provider: 'manual',
  status: 'paid',
  test: false,
  providerRef: null,
  lotId: 'lot_ord_hqiW3JTpY7rfY2Fh',
  createdAt: '2026-11-02T09:00:31.000Z',
  updatedAt: '2026-11-02T09:00:33.000Z',
  paidAt: '2026-11-02T09:00:33.000Z',
}

export const rejectOrder: Static<typeof OrderSchema> = {
  id: 'ord_HlkfZ5tBA4kSFpRI',
  accountId: 'acc_nAk9NebuqoAp',
  userId: null,
  credits: 50000,
  price: 75,
  currency: 'usd',
  provider: 'manual',
  status: 'rejected',
  test: false,
  providerRef: null,
  lotId: null,
  createdAt: '2026-11-02T09:00:31.000Z',
  updatedAt: '2026-11-02T09:00:34.000Z',
  paidAt: null,
}

/** The start of a scrape: the metrics are Prometheus text, not JSON. */
export const getMetrics = `# HELP pronet_http_requests_total HTTP calls answered, by route pattern (unknown for a path no route matches), method and status
# TYPE pronet_http_requests_total counter
pronet_http_requests_total{route="/api/v1/profile",method="GET",status="200"} 2
pronet_http_requests_total{route="/api/v1/posts",method="GET",status="200"} 3
pronet_http_requests_total{route="/api/v1/post/comments",method="GET",status="200"} 4
`

/** A live-source node's view of its upstream, an hour into its run. */
export const getUpstreamStatus = {
  mode: 'upstream',
  subscription: {
    plan: 'custom',
    active: true,
    status: 'active',
    creditsRemaining: 97640,
    subscriptionCreditsRemaining: 97640,
    paygCreditsRemaining: 0,
    paygExpiresAt: null,
    creditsLimit: 100000,
    creditsUsed: 2360,
    renewalDate: '2026-12-01T00:00:00.000Z',
    rpsLimit: 20,
    cancelAtPeriodEnd: false,
  },
  budget: { rps: 20, sentLastSecond: 3, waiting: 0, pausedForMs: 0 },
  node: {
    calls: { profile: { ok: 41, not_found: 2 }, posts: { ok: 17 } },
    creditsSpent: 60,
    answers: { cache: 240, upstream: 60, stale: 0 },
    hitRatio: 0.8,
    coalesced: { node: 4, cluster: 1 },
  },
  kept: { profile: 43, posts: 17 },
}

export const getClock = { now: '2026-11-02T09:00:00.000Z' }

export const setClock = { now: '2027-01-01T00:00:00.000Z' }

const WEBHOOK = {
  id: 'wh_QmJ1dVx0bG9v',
  url: 'https://hooks.example.com/pronet',
  events: ['credits.low', 'order.paid'],
  enabled: true,
  createdAt: '2026-11-02T09:00:30.000Z',
}

export const createWebhook: Static<typeof NewWebhookSchema> = { ...WEBHOOK, events: ['credits.low', 'order.paid'], secret: 'whsec_EXAMPLEexampleEXAMPLEexample01' }

export const listWebhooks: Static<typeof WebhookListSchema> = { webhooks: [{ ...WEBHOOK, events: ['credits.low', 'order.paid'] }] }

export const updateWebhook: Static<typeof WebhookSchema> = { ...WEBHOOK, events: ['credits.low', 'credits.exhausted', 'order.paid'] }

export const listWebhookDeliveries: Static<typeof DeliveryListSchema> = {
  deliveries: [
    {
      id: 'evt_3f9a1c0d2b7e4a5f6c8d9e0f.wh_QmJ1dVx0bG9v',
      eventId: 'evt_3f9a1c0d2b7e4a5f6c8d9e0f',
      event: 'credits.low',
      state: 'pending',
      createdAt: '2026-12-02T08:00:05.000Z',
      nextAttemptAt: '2026-12-02T08:02:36.000Z',
      attempts: [
        { at: '2026-12-02T08:00:06.000Z', status: 503, error: 'The receiver answered 503.', durationMs: 84 },
        { at: '2026-12-02T08:00:36.000Z', status: null, error: 'No answer within 10 s.', durationMs: 10002 },
      ],
    },
    {
      id: 'evt_0c1d2e3f4a5b6c7d8e9f0a1b.wh_QmJ1dVx0bG9v',
      eventId: 'evt_0c1d2e3f4a5b6c7d8e9f0a1b',
      event: 'order.paid',
      state: 'delivered',
      createdAt: '2026-11-28T14:12:40.000Z',
      nextAttemptAt: null,
      attempts: [{ at: '2026-11-28T14:12:41.000Z', status: 200, error: null, durationMs: 112 }],
    },
  ],
}

export const testWebhook: Static<typeof DeliverySchema> = {
  id: 'evt_77aa01b2c3d4e5f60718293a.wh_QmJ1dVx0bG9v',
  eventId: 'evt_77aa01b2c3d4e5f60718293a',
  event: 'webhook.test',
  state: 'delivered',
  createdAt: '2026-12-02T09:00:00.000Z',
  nextAttemptAt: null,
  attempts: [{ at: '2026-12-02T09:00:00.000Z', status: 204, error: null, durationMs: 95 }],
}

export const getAlerts: Static<typeof AlertsSchema> = { lowCredits: 5000 }

export const setAlerts: Static<typeof AlertsSchema> = { lowCredits: 5000 }
