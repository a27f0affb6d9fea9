/**
 * The operator's pack orders: GET /admin/v1/orders?status=, POST /admin/v1/orders/:id/approve
 * and POST /admin/v1/orders/:id/reject {note?}. As the rest of the admin API (admin.routes.ts): JSON
 * with `Authorization: Bearer <PRONET_ADMIN_TOKEN>`, 401 for a wrong token, registered only when a
 * token is configured, a body that may be left out, and `null` fields read as omitted. A scope of its
 * own, so it stands beside registerAdminRoutes without reaching into it.
 */
import { adminGuard } from '../admin-guard.ts'
import { adminOperation } from './admin-operation.ts'
import type { FastifyInstance, FastifyReply } from 'fastify'
import Type from 'typebox'
import { described } from '../../contract/responses.schemas.ts'
import { ORDER_STATUSES } from '../../ports/order-store.ts'
import { MAX_ORDER_NOTE, ORDER_LIST_LIMIT, type OrdersService } from '../../payments/orders.service.ts'
import { orderView, OrderSchema } from '../../payments/order-view.ts'
import { strictBodyFields, strictQuery } from '../strict-input.ts'
import { useJsonBodies } from '../json-body.ts'

/** Who the history names for a move made here. */
export const ADMIN_API_ACTOR = 'operator (admin API)'

const ListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum([...ORDER_STATUSES], { type: 'string', description: 'only orders in this status' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ORDER_LIST_LIMIT, description: 'at most this many, newest first (default 100)' })),
  },
  { additionalProperties: false },
)
const OrderParams = Type.Object({ id: Type.String() })
const NoFields = Type.Object({}, { additionalProperties: false, description: 'No fields; the body may be left out' })
const RejectBody = Type.Object(
  { note: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ORDER_NOTE, description: 'why, for the order history' })) },
  { additionalProperties: false },
)
/** An order as /openapi.json names it: one component, in the list and in each answer. */
const Order = { ...OrderSchema, title: 'Order', description: 'A credit pack order and where it stands.' }
const OrderListSchema = Type.Object({ orders: Type.Array(Order) }, { additionalProperties: false, title: 'OrderList' })

export function registerOrderAdminRoutes(app: FastifyInstance, deps: { token: string; orders: OrdersService }): void {
  const guard = adminGuard(deps.token)
  const schema = (operationId: string, summary: string, success: object, extra: Record<string, unknown> = {}) => adminOperation(operationId, summary, { 200: success }, extra)
  const json = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body))

  app.register(async (admin) => {
    admin.addHook('onRequest', guard)
    // As admin.routes.ts: zero bytes are no body (curl sends approve with none), read as `{}`;
    // anything else is read as the API reads JSON.
    useJsonBodies(admin, { emptyIsNone: true })
    admin.addHook('preValidation', async (request) => {
      if (request.body === undefined && request.method === 'POST') request.body = {}
      strictBodyFields(request.routeOptions.schema?.body, request.body)
    })

    admin.get(
      '/admin/v1/orders',
      { schema: schema('listOrders', 'Pack orders of every account, newest first', described(OrderListSchema, 'OK'), { querystring: ListQuery }), preValidation: strictQuery(ListQuery) },
      async (req, reply) => {
        const { status, limit } = req.query as Type.Static<typeof ListQuery>
        const orders = await deps.orders.listAll({ ...(status === undefined ? {} : { status }), ...(limit === undefined ? {} : { limit }) })
        return json(reply, 200, { orders: orders.map(orderView) })
      },
    )

    admin.post(
      '/admin/v1/orders/:id/approve',
      { schema: schema('approveOrder', "Approve a manual order once paid: its pack is granted (once, however often approved)", described(Order, 'The order, paid'), { params: OrderParams, body: NoFields }) },
      async (req, reply) => {
        const { id } = req.params as Type.Static<typeof OrderParams>
        return json(reply, 200, orderView(await deps.orders.approve(id, ADMIN_API_ACTOR)))
      },
    )

    admin.post(
      '/admin/v1/orders/:id/reject',
      { schema: schema('rejectOrder', 'Reject a manual order: nothing is granted', described(Order, 'The order, rejected'), { params: OrderParams, body: RejectBody }) },
      async (req, reply) => {
        const { id } = req.params as Type.Static<typeof OrderParams>
        const { note } = req.body as Type.Static<typeof RejectBody>
        return json(reply, 200, orderView(await deps.orders.reject(id, ADMIN_API_ACTOR, note)))
      },
    )
  })
}
