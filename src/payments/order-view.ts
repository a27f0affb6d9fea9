/**
 * An order as the admin API, the CLI and the console show it: instants in ISO 8601, the price in
 * currency units with two decimals (as pack quotes are), and its history when asked for.
 */
import Type from 'typebox'
import { Nullable } from '../contract/resources.schemas.ts'
import { ORDER_STATUSES, type OrderEvent, type OrderRecord } from '../ports/order-store.ts'

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

export function orderView(o: OrderRecord) {
  return {
    id: o.id,
    accountId: o.accountId,
    userId: o.userId,
    credits: o.credits,
    price: o.priceCents / 100,
    currency: o.currency,
    provider: o.provider,
    status: o.status,
    test: o.test,
    providerRef: o.providerRef,
    lotId: o.lotId,
    createdAt: iso(o.createdAt) as string,
    updatedAt: iso(o.updatedAt) as string,
    paidAt: iso(o.paidAt),
  }
}

export const orderEventView = (e: OrderEvent) => ({ status: e.status, at: iso(e.at) as string, actor: e.actor, note: e.note })

const closed = { additionalProperties: false } as const
const Status = Type.Enum([...ORDER_STATUSES], { type: 'string' })

export const OrderSchema = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  userId: Nullable(Type.String({ description: 'The console user who placed it' })),
  credits: Type.Integer(),
  price: Type.Number({ description: 'In currency units, two decimals' }),
  currency: Type.Literal('usd'),
  provider: Type.Enum(['stripe', 'manual', 'test'] as const, { type: 'string' }),
  status: Status,
  test: Type.Boolean({ description: 'Paid with no money (PRONET_PAYMENTS=test)' }),
  providerRef: Nullable(Type.String({ description: "The provider's name for the payment (a Stripe Checkout Session id)" })),
  lotId: Nullable(Type.String({ description: 'The pack granted, once paid' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  paidAt: Nullable(Type.String({ format: 'date-time' })),
}, closed)

export const OrderEventSchema = Type.Object({
  status: Status,
  at: Type.String({ format: 'date-time' }),
  actor: Type.String(),
  note: Nullable(Type.String()),
}, closed)
