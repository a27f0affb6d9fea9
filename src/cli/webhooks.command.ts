/**
 * `pronet webhooks list|create|update|delete|deliveries|test` and `pronet alerts show|set`: an
 * account's webhook endpoints, their deliveries, a test delivery, and the balance below which
 * credits.low is sent. With --json each prints what the admin API answers for the same call (a delete,
 * which the admin API answers 204 without a body, prints `{"deleted": id}`, as `keys revoke` prints
 * `{"revoked": id}`). Values are checked by the webhooks service, so a bad one is refused as the admin
 * API refuses it (exit 1, INVALID_PARAMETER naming the field); `none` is the CLI's word for the API's
 * null.
 *
 * Only the commands run here: the background work of webhooks (finding events, sending what is due)
 * runs on serving nodes alone (src/serve.ts), never in the CLI's container.
 */
import { InvalidArgumentError, Option, type Command } from 'commander'
import { WEBHOOK_EVENTS } from '../ports/webhook-store.ts'
import { DELIVERY_LIST_LIMIT, type deliveryView, type webhookView } from '../webhooks/webhooks.service.ts'
import { intIn, type CliHelpers } from './billing.command.ts'
import { inCliWords, type CliWording } from './cli-words.ts'

type WebhookView = ReturnType<typeof webhookView>
type DeliveryView = ReturnType<typeof deliveryView>

/** An option's value that is another option (`--url --json`) is the value left out. */
function valueArg(value: string): string {
  if (value.startsWith('--')) throw new InvalidArgumentError(`a value is missing: '${value}' is an option.`)
  return value
}

/** `--events`: names comma-separated; the service checks each (an unknown one is refused naming the field). */
function eventsArg(value: string): string[] {
  valueArg(value)
  return value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
}

/**
 * `alerts set`'s threshold: `none` (no alert), else a number of credits. Anything but digits is
 * handed on as NaN, for the service to refuse with the admin API's words (range included).
 */
function thresholdArg(value: string): number | null {
  if (value === 'none') return null
  return /^\d+$/.test(value) ? Number(value) : Number.NaN
}

/** An endpoint's and the threshold's refusals in the CLI's words. */
const ENDPOINT_WORDING: CliWording = { url: { name: '--url', phrases: [] }, events: { name: '--events', phrases: [] } }
const ALERT_WORDING: CliWording = { lowCredits: { name: '<credits>', phrases: [[', or null for no alert.', ', or none for no alert.']] } }

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`

/** An endpoint's settings for a person: where, which events, and whether it is sent to. */
export function webhookLines(w: WebhookView): string[] {
  return [`url: ${w.url}`, `events: ${w.events.join(', ')}`, w.enabled ? 'enabled: yes' : 'enabled: no (its deliveries wait until it is enabled)']
}

/** A delivery for a person: when, the event, its id and state, then each attempt indented; `enabled`: whether its endpoint is. */
export function deliveryLines(d: DeliveryView, enabled = true): string[] {
  const next = !enabled ? ', waits until the endpoint is enabled' : d.nextAttemptAt === null ? '' : `, next attempt ${d.nextAttemptAt}`
  const state = d.state === 'pending' ? `pending${next}` : d.state === 'failed' ? 'failed (given up)' : 'delivered'
  return [
    `${d.createdAt}  ${d.event}  ${d.eventId}  ${state}`,
    // An attempt that got no status either was not sent (its error says why) or was not answered.
    ...d.attempts.map((a) => `  ${a.at}  ${a.status !== null ? `HTTP ${a.status}` : a.error?.startsWith('Not sent') ? 'not sent' : 'no answer'}  ${a.durationMs} ms${a.error === null ? '' : `  ${a.error}`}`),
  ]
}

/** The credits.low threshold for a person. */
export const alertText = (a: { lowCredits: number | null }) =>
  `low-balance alert (credits.low): ${a.lowCredits === null ? 'none' : `below ${credits(a.lowCredits)}`}`

interface WebhookOptions {
  url?: string
  events?: string[]
  enable?: boolean
  disable?: boolean
  json?: boolean
}

const EVENTS_HELP = `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`

export function registerWebhookCommands(program: Command, { withContainer, print }: CliHelpers): void {
  const webhooks = program.command('webhooks').description("an account's webhook endpoints, their deliveries and a test delivery")
  webhooks
    .command('list')
    .description("the account's webhook endpoints, oldest first, without their secrets")
    .argument('<accountId>', 'account id')
    .option('--json', 'print JSON (as GET /admin/v1/accounts/:id/webhooks)')
    .action(async (accountId: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        const list = await c.webhooks.list(accountId)
        const human =
          list.length === 0 ? 'no webhooks' : [`webhooks (${list.length}):`, ...list.flatMap((w) => [`  ${w.id}  created ${w.createdAt}`, ...webhookLines(w).map((l) => `    ${l}`)])].join('\n')
        print(opts.json, { webhooks: list }, human)
      }),
    )
  webhooks
    .command('create')
    .description('add a webhook endpoint to an account (its signing secret is shown only now)')
    .argument('<accountId>', 'account id')
    .requiredOption('--url <url>', 'where deliveries are POSTed: an https address on the public internet', valueArg)
    .requiredOption('--events <list>', `the events to send to it, ${EVENTS_HELP}`, eventsArg)
    .option('--json', 'print JSON (as POST /admin/v1/accounts/:id/webhooks)')
    .action(async (accountId: string, opts: WebhookOptions) =>
      withContainer(async (c) => {
        const created = await inCliWords(opts.json, ENDPOINT_WORDING, () => c.webhooks.create(accountId, { url: opts.url, events: opts.events }))
        print(opts.json, created, [`webhook ${created.id}`, `signing secret (shown once): ${created.secret}`, ...webhookLines(created)].join('\n'))
      }),
    )
  webhooks
    .command('update')
    .description("change a webhook endpoint's address or events, or enable or disable it (a disabled one's deliveries wait)")
    .argument('<accountId>', 'account id')
    .argument('<webhookId>', 'webhook id')
    .option('--url <url>', 'where deliveries are POSTed', valueArg)
    .option('--events <list>', `the events to send to it, ${EVENTS_HELP}`, eventsArg)
    .addOption(new Option('--enable', 'send to it again (the deliveries that waited go now)').conflicts('disable'))
    .addOption(new Option('--disable', 'send nothing to it; its deliveries wait until it is enabled'))
    .option('--json', 'print JSON (as PATCH /admin/v1/accounts/:id/webhooks/:whId)')
    .action(async (accountId: string, webhookId: string, opts: WebhookOptions) => {
      const patch: { url?: string; events?: string[]; enabled?: boolean } = {}
      if (opts.url !== undefined) patch.url = opts.url
      if (opts.events !== undefined) patch.events = opts.events
      if (opts.enable || opts.disable) patch.enabled = opts.enable === true
      if (Object.keys(patch).length === 0) throw new InvalidArgumentError('nothing to change: give at least one of --url, --events, --enable, --disable.')
      return withContainer(async (c) => {
        const view = await inCliWords(opts.json, ENDPOINT_WORDING, () => c.webhooks.update(accountId, webhookId, patch))
        print(opts.json, view, [`webhook ${view.id} updated`, ...webhookLines(view)].join('\n'))
      })
    })
  webhooks
    .command('delete')
    .description('delete a webhook endpoint and its deliveries: nothing more is sent to it')
    .argument('<accountId>', 'account id')
    .argument('<webhookId>', 'webhook id')
    .option('--json', 'print JSON')
    .action(async (accountId: string, webhookId: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        await c.webhooks.remove(accountId, webhookId)
        print(opts.json, { deleted: webhookId }, `webhook ${webhookId} deleted`)
      }),
    )
  webhooks
    .command('deliveries')
    .description("a webhook endpoint's deliveries, newest first, with every attempt")
    .argument('<accountId>', 'account id')
    .argument('<webhookId>', 'webhook id')
    .option('--limit <n>', `at most this many, 1 to ${DELIVERY_LIST_LIMIT} (default 50)`, intIn('--limit', 1, DELIVERY_LIST_LIMIT))
    .option('--json', 'print JSON (as GET /admin/v1/accounts/:id/webhooks/:whId/deliveries)')
    .action(async (accountId: string, webhookId: string, opts: { limit?: number; json?: boolean }) =>
      withContainer(async (c) => {
        const list = await c.webhooks.deliveries(accountId, webhookId, opts.limit ?? 50)
        const { enabled } = await c.webhooks.get(accountId, webhookId)
        const human = list.length === 0 ? 'no deliveries' : [`deliveries (${list.length}, newest first):`, ...list.flatMap((d) => deliveryLines(d, enabled).map((l) => `  ${l}`))].join('\n')
        print(opts.json, { deliveries: list }, human)
      }),
    )
  webhooks
    .command('test')
    .description('send a webhook.test event to the endpoint now (enabled or not) and show its first attempt')
    .argument('<accountId>', 'account id')
    .argument('<webhookId>', 'webhook id')
    .option('--json', 'print JSON (as POST /admin/v1/accounts/:id/webhooks/:whId/test)')
    .action(async (accountId: string, webhookId: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        const sent = await c.webhooks.test(accountId, webhookId)
        const { enabled } = await c.webhooks.get(accountId, webhookId)
        print(opts.json, sent, [`test event sent to webhook ${webhookId}:`, ...deliveryLines(sent, enabled).map((l) => `  ${l}`)].join('\n'))
      }),
    )

  const alerts = program.command('alerts').description("an account's balance alert: the balance below which credits.low is sent to its webhooks")
  alerts
    .command('show')
    .description('the balance below which credits.low is sent')
    .argument('<accountId>', 'account id')
    .option('--json', 'print JSON (as GET /admin/v1/accounts/:id/alerts)')
    .action(async (accountId: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        const view = await c.webhooks.alerts(accountId)
        print(opts.json, view, alertText(view))
      }),
    )
  alerts
    .command('set')
    .description('send credits.low when the balance falls below this many credits (once per fall); none: never')
    .argument('<accountId>', 'account id')
    .argument('<credits>', 'a number of credits, or none', thresholdArg)
    .option('--json', 'print JSON (as PUT /admin/v1/accounts/:id/alerts)')
    .action(async (accountId: string, lowCredits: number | null, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        const view = await inCliWords(opts.json, ALERT_WORDING, () => c.webhooks.setAlerts(accountId, { lowCredits }))
        print(opts.json, view, alertText(view))
      }),
    )
}
