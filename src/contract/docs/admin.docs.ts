/**
 * The admin API as /openapi.json describes it to the operator (Authorization: Bearer
 * PRONET_ADMIN_TOKEN), with example calls. The ids are those of the example answers.
 */
import * as answers from '../examples/admin.examples.ts'
import type { OperationDoc } from './operation-doc.ts'

const ACCOUNT = 'acc_nAk9NebuqoAp'
const NO_ACCOUNT = { NOT_FOUND: { error: "No account 'acc_nobody'.", code: 'NOT_FOUND' } } as const
const NO_WEBHOOK = { NOT_FOUND: { error: "No webhook 'wh_nobody' on account 'acc_nAk9NebuqoAp'.", code: 'NOT_FOUND' } } as const
const NO_ORDER = { NOT_FOUND: { error: 'No order "ord_nobody".', code: 'NOT_FOUND' } } as const
/** What a 404 is on an operation that names no record: a path that is not quite this one. */
const NO_PATH = (path: string) => ({ NOT_FOUND: { error: `No endpoint GET ${path}.`, code: 'NOT_FOUND' } }) as const
const OPTIONAL_BODY = 'Every field is optional, the body may be left out, and a field sent as `null` reads as omitted.'

export const ADMIN_DOCS = {
  getMetrics: {
    description: [
      'This node’s metrics in the Prometheus text format: calls by route and status, credits billed, refusals, the caches, the billing ledger’s commits and the process.',
      'The same text is served at `/metrics`, the path Prometheus scrapes by default, with the same token.',
    ].join('\n\n'),
    request: {},
    response: { status: 200, body: answers.getMetrics },
    errors: NO_PATH('/admin/v1/metric'),
  },
  createAccount: {
    description: [
      'Creates an account and its first API key. A new account is on the free plan (1,000 credits a month, 5 calls a second) unless given another: `custom` takes a `creditsLimit` and an `rpsLimit`, and `none` leaves it to credit packs.',
      `${OPTIONAL_BODY} The key’s secret is shown only in this answer.`,
    ].join('\n\n'),
    request: { body: { name: 'Acme Analytics', plan: 'custom', creditsLimit: 100000, rpsLimit: 10 } },
    response: { status: 201, body: answers.createAccount },
    errors: NO_PATH('/admin/v1/account'),
  },
  searchAccounts: {
    description: 'Finds accounts by id, a part of the name, the start of a key, or a console user’s email, newest first; an empty query lists the newest.',
    request: { query: { query: 'acme', limit: 10 } },
    response: { status: 200, body: answers.searchAccounts },
    errors: NO_PATH('/admin/v1/account'),
  },
  getAccount: {
    description: 'An account, its subscription (as the customer sees it at `GET /api/v1/subscription`) and its keys, revoked ones included.',
    request: { params: { id: ACCOUNT } },
    response: { status: 200, body: answers.getAccount },
    errors: NO_ACCOUNT,
  },
  createKey: {
    description: [
      'Creates another API key for the account; its other keys stay valid. The secret is shown only in this answer.',
      'A key may carry spend controls. `monthlyCreditLimit` is the most its calls may be billed in a calendar month (UTC): a call that would pass it is refused with 402 `QUOTA_EXHAUSTED`, free, whose `details` give `keyCreditsRemaining` and `keyCreditLimit`. `endpoints` lists the endpoints it may call, as the paths after `/api/v1/`; any other is refused with 403 `FORBIDDEN`, free.',
      'Every field is optional and the body may be left out: a key without them has no limit but the account’s balance and may call every endpoint.',
    ].join('\n\n'),
    request: { params: { id: ACCOUNT }, body: { name: 'nightly enrichment', monthlyCreditLimit: 5000, endpoints: ['profile', 'company'] } },
    response: { status: 201, body: answers.createKey },
    errors: NO_ACCOUNT,
  },
  updateKey: {
    description: [
      'Changes a live key’s name, monthly credit limit or endpoints; the fields left out keep their values, and `null` removes a limit (`"endpoints": null` allows every endpoint again). It takes effect on every node at once.',
      'A limit lowered below what the key was billed this month refuses its calls until the month ends; it never takes back what was billed.',
    ].join('\n\n'),
    request: { params: { id: ACCOUNT, keyId: 'key_Nk4iDPIeK4mN' }, body: { monthlyCreditLimit: 8000, endpoints: null } },
    response: { status: 200, body: answers.updateKey },
    errors: { NOT_FOUND: { error: "No live key 'key_nobody' on account 'acc_nAk9NebuqoAp'.", code: 'NOT_FOUND' } },
  },
  revokeKey: {
    description: 'Revokes a key: calls with it are refused with 401 `INVALID_API_KEY` on every node within a second. Answers 204 without a body.',
    request: { params: { id: ACCOUNT, keyId: 'key_Nk4iDPIeK4mN' } },
    response: { status: 204 },
    errors: { NOT_FOUND: { error: "No live key 'key_nobody' on account 'acc_nAk9NebuqoAp'.", code: 'NOT_FOUND' } },
  },
  suspendAccount: {
    description: 'Suspends an account: calls with its keys are refused with 403 `FORBIDDEN`, free, on every node within a second, until it is resumed. Its balance and keys are kept.',
    request: { params: { id: ACCOUNT } },
    response: { status: 200, body: answers.suspendAccount },
    errors: NO_ACCOUNT,
  },
  resumeAccount: {
    description: 'Resumes a suspended account: its keys work again.',
    request: { params: { id: ACCOUNT } },
    response: { status: 200, body: answers.resumeAccount },
    errors: NO_ACCOUNT,
  },
  setSubscription: {
    description: [
      'Changes the account’s plan, its status, its limits (`creditsLimit` and `rpsLimit`, on the `custom` plan only), its renewal date or whether it ends at the end of the period.',
      `${OPTIONAL_BODY} Answers the subscription as the customer sees it.`,
    ].join('\n\n'),
    request: { params: { id: ACCOUNT }, body: { plan: 'custom', creditsLimit: 200000, rpsLimit: 20 } },
    response: { status: 200, body: answers.setSubscription },
    errors: NO_ACCOUNT,
  },
  addPack: {
    description: 'Adds a credit pack to the account, as if bought at `purchasedAt` (default now, at most 12 months ago): it expires 12 calendar months after it, and is priced from the pack price tiers. A pack never raises the rate limit.',
    request: { params: { id: ACCOUNT }, body: { credits: 50000 } },
    response: { status: 201, body: answers.addPack },
    errors: {
      ...NO_ACCOUNT,
      INVALID_PARAMETER: { error: "Invalid parameter 'credits': must be >= 1.", code: 'INVALID_PARAMETER', details: { parameter: 'credits' } },
    },
  },
  quotePack: {
    description: 'The price of a credit pack of this many credits, from the pack price tiers (each tier’s price applies to the credits within it). Packs hold 50,000 to 50,000,000 credits, in steps of 50,000 up to 1,000,000 and of 250,000 above.',
    request: { query: { credits: 200000 } },
    response: { status: 200, body: answers.quotePack },
    errors: NO_PATH('/admin/v1/packs/quotes'),
  },
  listOrders: {
    description: 'Credit pack orders of every account, newest first, or only those in one status. Orders paid by bank transfer (`manual`) wait as `pending` until they are approved or rejected here.',
    request: { query: { status: 'pending', limit: 10 } },
    response: { status: 200, body: answers.listOrders },
    errors: NO_PATH('/admin/v1/order'),
  },
  approveOrder: {
    description: 'Approves a manual order once its payment has arrived: its pack is granted, once however often the order is approved. The call takes no fields, and the body may be left out.',
    request: { params: { id: 'ord_hqiW3JTpY7rfY2Fh' } },
    response: { status: 200, body: answers.approveOrder },
    errors: NO_ORDER,
  },
  rejectOrder: {
    description: 'Rejects a manual order: nothing is granted. The `note` says why, for the order’s history; the body may be left out.',
    request: { params: { id: 'ord_HlkfZ5tBA4kSFpRI' }, body: { note: 'No payment arrived within 30 days.' } },
    response: { status: 200, body: answers.rejectOrder },
    errors: NO_ORDER,
  },
  createWebhook: {
    description: [
      'Adds a webhook endpoint to the account: the events listed are POSTed to `url` as JSON `{id, type, createdAt, account, data}`. Events: `credits.low` (the balance fell below the threshold set with `PUT …/alerts`), `credits.exhausted` (it reached 0), `pack.expiring` (7 days before a pack with credits left expires), `pack.expired`, `subscription.renewed`, `subscription.changed`, `order.paid`.',
      'Each delivery carries `Pronet-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the endpoint’s `secret`, shown only in this answer. A delivery is at least once: one that does not get a 2xx within 10 seconds is tried again with growing waits for a day, so a receiver deduplicates by the event’s `id`.',
      'The address must be https on the public internet. An account has at most 10 endpoints.',
    ].join('\n\n'),
    request: { params: { id: ACCOUNT }, body: { url: 'https://hooks.example.com/pronet', events: ['credits.low', 'order.paid'] } },
    response: { status: 201, body: answers.createWebhook },
    errors: {
      ...NO_ACCOUNT,
      INVALID_PARAMETER: { error: "Invalid parameter 'url': must be an https address.", code: 'INVALID_PARAMETER', details: { parameter: 'url' } },
    },
  },
  listWebhooks: {
    description: 'The account’s webhook endpoints, oldest first, without their secrets.',
    request: { params: { id: ACCOUNT } },
    response: { status: 200, body: answers.listWebhooks },
    errors: NO_ACCOUNT,
  },
  updateWebhook: {
    description: 'Changes an endpoint’s address, its events, or whether it is enabled; the fields left out keep their values. While an endpoint is disabled nothing is sent to it: its deliveries wait, and go once it is enabled again.',
    request: { params: { id: ACCOUNT, whId: 'wh_QmJ1dVx0bG9v' }, body: { events: ['credits.low', 'credits.exhausted', 'order.paid'] } },
    response: { status: 200, body: answers.updateWebhook },
    errors: NO_WEBHOOK,
  },
  deleteWebhook: {
    description: 'Deletes an endpoint and its deliveries: nothing more is sent to it. Answers 204 without a body.',
    request: { params: { id: ACCOUNT, whId: 'wh_QmJ1dVx0bG9v' } },
    response: { status: 204 },
    errors: NO_WEBHOOK,
  },
  listWebhookDeliveries: {
    description: 'The endpoint’s deliveries, newest first, each with every attempt: when, the receiver’s status, and why it failed. A pending delivery says when it is tried next; a failed one was given up a day after its event.',
    request: { params: { id: ACCOUNT, whId: 'wh_QmJ1dVx0bG9v' }, query: { limit: 20 } },
    response: { status: 200, body: answers.listWebhookDeliveries },
    errors: NO_WEBHOOK,
  },
  testWebhook: {
    description: 'Sends a `webhook.test` event to the endpoint now, signed as every delivery is, and answers its delivery after the first attempt. The call takes no fields, and the body may be left out. An endpoint takes one test event every 10 seconds: another within them is refused with 429 and `Retry-After`.',
    request: { params: { id: ACCOUNT, whId: 'wh_QmJ1dVx0bG9v' } },
    response: { status: 200, body: answers.testWebhook },
    errors: {
      ...NO_WEBHOOK,
      RATE_LIMITED: { error: 'A test event was sent to this endpoint moments ago; send another in 7 s.', code: 'RATE_LIMITED' },
    },
  },
  getAlerts: {
    description: 'The balance below which `credits.low` is sent to the account’s webhooks (`null`: never).',
    request: { params: { id: ACCOUNT } },
    response: { status: 200, body: answers.getAlerts },
    errors: NO_ACCOUNT,
  },
  setAlerts: {
    description: 'Sets the balance below which `credits.low` is sent; `null` turns it off. It is sent once each time the balance falls below the threshold, and again only after the balance has been at or above it.',
    request: { params: { id: ACCOUNT }, body: { lowCredits: 5000 } },
    response: { status: 200, body: answers.setAlerts },
    errors: NO_ACCOUNT,
  },
  getUpstreamStatus: {
    description: [
      'On a service serving live data: the upstream data source’s own subscription (or why it could not be read), this service’s request budget with it, where this node’s answers came from (`hitRatio`: the share answered without an upstream call) and its upstream calls by endpoint and outcome, and the answers kept in the store.',
      'The figures of `node` count since this node started.',
    ].join('\n\n'),
    request: {},
    response: { status: 200, body: answers.getUpstreamStatus },
  },
  getClock: {
    description: 'The test clock the service runs on (`PRONET_TEST_CLOCK=1`), for trying renewals and pack expiries without waiting for them.',
    request: {},
    response: { status: 200, body: answers.getClock },
    errors: NO_PATH('/admin/v1/clocks'),
  },
  setClock: {
    description: 'Sets the test clock (`PRONET_TEST_CLOCK=1`); time keeps running from there. It goes up to the end of the year 9998.',
    request: { body: { now: '2027-01-01T00:00:00Z' } },
    response: { status: 200, body: answers.setClock },
    errors: NO_PATH('/admin/v1/clocks'),
  },
} as const satisfies Record<string, OperationDoc>

/** An admin operation's description, for its route's schema. */
export function adminDescription(operationId: string): { description?: string } {
  const about = (ADMIN_DOCS as Readonly<Record<string, OperationDoc>>)[operationId]
  return about ? { description: about.description } : {}
}
