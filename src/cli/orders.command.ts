/**
 * `pronet orders list|approve|reject`: the CLI side of the admin API's orders. With --json each
 * prints the very JSON the admin API returns for the same call.
 */
import { InvalidArgumentError, Option, type Command } from 'commander'
import { ORDER_STATUSES, type OrderRecord, type OrderStatus } from '../ports/order-store.ts'
import { ORDER_LIST_LIMIT, type OrdersService } from '../payments/orders.service.ts'
import { orderView } from '../payments/order-view.ts'
import { intIn } from './billing.command.ts'

/** Who the history names for a move made here. */
export const CLI_ACTOR = 'operator (CLI)'

export interface OrderCliHelpers {
  /** Runs a command with the store's orders service and closes the store; domain errors become exit code 1. */
  withOrders(fn: (orders: OrdersService) => Promise<number | void>): Promise<void>
  /** JSON with --json, else the human text. */
  print(json: boolean | undefined, value: unknown, human: string): void
}

/** A note that is another option (`--note --json`) is the note left out, not a note reading "--json". */
function noteValue(value: string): string {
  if (value.startsWith('--')) throw new InvalidArgumentError(`a value is missing: '${value}' is an option.`)
  return value
}

/** One line per order for a person. */
export function orderText(o: OrderRecord): string {
  const view = orderView(o)
  return [
    `${view.id}  ${view.status.padEnd(8)}  ${view.credits.toLocaleString('en-US').padStart(10)} credits  ${view.price.toFixed(2).padStart(9)} ${view.currency.toUpperCase()}`,
    `${view.provider}${view.test ? ' (test)' : ''}`,
    `account ${view.accountId}`,
    `created ${view.createdAt}`,
    ...(view.paidAt ? [`paid ${view.paidAt}`] : []),
  ].join('  ')
}

export function registerOrderCommands(program: Command, { withOrders, print }: OrderCliHelpers): void {
  const orders = program.command('orders').description('pack orders: list them, approve or reject manual ones')
  orders
    .command('list')
    .description('pack orders of every account, newest first (as GET /admin/v1/orders)')
    .addOption(new Option('--status <status>', 'only orders in this status').choices(ORDER_STATUSES))
    .option('--limit <n>', `at most this many (default 100)`, intIn('--limit', 1, ORDER_LIST_LIMIT))
    .option('--json', 'print JSON')
    .action(async (opts: { status?: OrderStatus; limit?: number; json?: boolean }) =>
      withOrders(async (service) => {
        const list = await service.listAll({ ...(opts.status === undefined ? {} : { status: opts.status }), ...(opts.limit === undefined ? {} : { limit: opts.limit }) })
        print(opts.json, { orders: list.map(orderView) }, list.length === 0 ? 'no orders' : list.map(orderText).join('\n'))
      }),
    )
  orders
    .command('approve')
    .description('approve a manual order once paid: its pack is granted (once, however often approved)')
    .argument('<id>', 'order id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) =>
      withOrders(async (service) => {
        const order = await service.approve(id, CLI_ACTOR)
        const credits = order.credits.toLocaleString('en-US')
        print(
          opts.json,
          orderView(order),
          order.paidBefore
            ? `order ${order.id} was paid already: its ${credits} credits are granted to ${order.accountId} once, nothing more now`
            : `order ${order.id} paid: ${credits} credits granted to ${order.accountId}`,
        )
      }),
    )
  orders
    .command('reject')
    .description('reject a manual order: nothing is granted')
    .argument('<id>', 'order id')
    .option('--note <text>', 'why, for the order history', noteValue)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { note?: string; json?: boolean }) =>
      withOrders(async (service) => {
        const order = await service.reject(id, CLI_ACTOR, opts.note)
        print(opts.json, orderView(order), `order ${order.id} rejected`)
      }),
    )
}
