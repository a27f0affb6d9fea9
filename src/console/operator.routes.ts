/**
 * The operator's pages, for the holder of the admin token: accounts with search, one account's
 * subscription, keys and usage, suspend and resume, granting a pack, and settling pending orders.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PACK_MAX, PACK_MIN } from '../domain/billing/pack-pricing.ts'
import { ApiError, isApiError } from '../domain/errors.ts'
import { usageRange } from '../domain/usage/usage-report.ts'
import { ORDER_STATUSES, type OrderStatus } from '../ports/order-store.ts'
import type { ConsoleDeps } from './console-deps.ts'
import { addressOf, clearSessionCookie, OPERATOR_COOKIE, sessionOf, setSessionCookie, SignInFirst } from './session.ts'
import { confirmBody, operatorSignInBody } from './views/auth.views.ts'
import type { Html } from './views/html.ts'
import { page, type Notice } from './views/layout.ts'
import { num } from './views/format.ts'
import { accountBody, accountsBody, ordersBody, type GrantForm } from './views/operator.views.ts'
import { field, form, formRefusal, refusalNotice, send } from './forms.ts'

const SEARCH_LIMIT = 50

const DONE: Record<string, Notice> = {
  suspended: { kind: 'ok', text: 'The account is suspended.' },
  resumed: { kind: 'ok', text: 'The account is resumed.' },
  granted: { kind: 'ok', text: 'The pack is granted.' },
  approved: { kind: 'ok', text: 'The order is approved and its pack granted.' },
  'paid-already': { kind: 'ok', text: 'The order was paid already; its pack is granted once, nothing more now.' },
  rejected: { kind: 'ok', text: 'The order is rejected; nothing was granted.' },
}

export function registerOperatorPages(app: FastifyInstance, deps: ConsoleDeps, o: { secure: boolean }): void {
  const operator = async (request: FastifyRequest) => {
    const session = await sessionOf(deps, request, OPERATOR_COOKIE)
    if (session?.kind !== 'operator') throw new SignInFirst('/console/operator/sign-in')
  }
  const render = (reply: FastifyReply, o: { title: string; body: Html; notice?: Notice | undefined; status?: number; active?: 'operator' | 'orders' }) =>
    send(reply, o.status ?? 200, page({ title: o.title, body: o.body, notice: o.notice, operator: true, active: o.active ?? 'operator', csrf: reply.generateCsrf() }))
  const done = (request: FastifyRequest) => DONE[(request.query as { done?: string }).done ?? '']

  app.get('/operator/sign-in', async (_request, reply) => send(reply, 200, page({ title: 'Operator sign-in', body: operatorSignInBody({ csrf: reply.generateCsrf() }) })))

  app.post('/operator/sign-in', async (request, reply) => {
    try {
      const session = await deps.identity.operatorSignIn(field(form(request), 'token'), addressOf(request))
      setSessionCookie(reply, OPERATOR_COOKIE, session, o.secure)
      deps.logger.info({ address: addressOf(request) }, 'operator signed in to the console')
      return reply.redirect('/console/operator', 303)
    } catch (e) {
      if (!isApiError(e)) throw e
      reply.headers(e.headers ?? {})
      return send(reply, e.status, page({ title: 'Operator sign-in', notice: { kind: 'error', text: e.message }, body: operatorSignInBody({ csrf: reply.generateCsrf() }) }))
    }
  })

  app.post('/operator/sign-out', async (request, reply) => {
    const id = request.cookies[OPERATOR_COOKIE]
    if (id) await deps.identity.signOut(id)
    clearSessionCookie(reply, OPERATOR_COOKIE, o.secure)
    return reply.redirect('/console/operator/sign-in', 303)
  })

  app.get('/operator', async (request, reply) => {
    await operator(request)
    const query = ((request.query as { query?: string }).query ?? '').slice(0, 200)
    const accounts = await deps.searchAccounts(query, SEARCH_LIMIT)
    return render(reply, { title: 'Accounts', body: accountsBody({ accounts, query }) })
  })

  /** One account's page; `grant` is the pack form as sent, shown again with its error beside it. */
  async function accountPage(reply: FastifyReply, id: string, o: { notice?: Notice | undefined; grant?: GrantForm; status?: number } = {}) {
    const account = await deps.accountStore.getAccount(id)
    if (account === undefined) throw new ApiError('NOT_FOUND', `No account '${id}'.`)
    const body = accountBody({
      account,
      subscription: await deps.metering.subscription(id),
      keys: await deps.accountStore.listKeys(id),
      members: await deps.identity.members(id),
      usage: await deps.usage(id, usageRange({}, deps.clock.now())),
      orders: await deps.orders.list(id, 20),
      csrf: reply.generateCsrf(),
      grant: o.grant,
    })
    return render(reply, { title: account.name, body, notice: o.notice, ...(o.status ? { status: o.status } : {}) })
  }

  app.get('/operator/accounts/:id', async (request, reply) => {
    await operator(request)
    return accountPage(reply, (request.params as { id: string }).id, { notice: done(request) })
  })

  app.post('/operator/accounts/:id/suspend', async (request, reply) => {
    await operator(request)
    const id = (request.params as { id: string }).id
    if (field(form(request), 'confirmed') !== 'yes') {
      const account = await deps.accountStore.getAccount(id)
      if (account === undefined) throw new ApiError('NOT_FOUND', `No account '${id}'.`)
      const back = `/console/operator/accounts/${encodeURIComponent(id)}`
      const body = confirmBody({ question: `Suspend ${account.name}? Its calls are refused with 403 until it is resumed.`, action: `${back}/suspend`, csrf: reply.generateCsrf(), button: 'Suspend the account', back })
      return render(reply, { title: 'Suspend an account', body })
    }
    await deps.accounts.suspend(id)
    deps.logger.info({ accountId: id }, 'operator suspended an account in the console')
    return reply.redirect(`/console/operator/accounts/${encodeURIComponent(id)}?done=suspended`, 303)
  })

  app.post('/operator/accounts/:id/resume', async (request, reply) => {
    await operator(request)
    const id = (request.params as { id: string }).id
    await deps.accounts.resume(id)
    deps.logger.info({ accountId: id }, 'operator resumed an account in the console')
    return reply.redirect(`/console/operator/accounts/${encodeURIComponent(id)}?done=resumed`, 303)
  })

  app.post('/operator/accounts/:id/packs', async (request, reply) => {
    await operator(request)
    const id = (request.params as { id: string }).id
    const typed = field(form(request), 'credits').trim()
    let pack: { id: string; credits: number }
    try {
      // The range is checked here too, so that a sign or a size far out of it is told the same rule.
      if (!/^\d+$/.test(typed) || Number(typed) < PACK_MIN || Number(typed) > PACK_MAX) {
        throw formRefusal(`A pack holds ${num(PACK_MIN)} to ${num(PACK_MAX)} credits: write a whole number in that range, such as 50000.`, 'credits')
      }
      pack = await deps.metering.addPack(id, { credits: Number(typed) })
    } catch (e) {
      if (!isApiError(e) || e.code !== 'INVALID_PARAMETER') throw e
      return accountPage(reply, id, { grant: { typed, error: refusalNotice(e, { credits: 'credits' }).text }, status: e.status })
    }
    deps.logger.info({ accountId: id, packId: pack.id, credits: pack.credits }, 'operator granted a pack in the console')
    return reply.redirect(`/console/operator/accounts/${encodeURIComponent(id)}?done=granted`, 303)
  })

  app.get('/operator/orders', async (request, reply) => {
    await operator(request)
    const asked = (request.query as { status?: string }).status ?? 'pending'
    const status = (ORDER_STATUSES as readonly string[]).includes(asked) ? (asked as OrderStatus) : undefined
    const orders = await deps.orders.listAll(status === undefined ? {} : { status })
    return render(reply, { title: 'Orders', active: 'orders', body: ordersBody({ orders, status: status ?? 'all', csrf: reply.generateCsrf() }), notice: done(request) })
  })

  app.post('/operator/orders/:id/approve', async (request, reply) => {
    await operator(request)
    const approved = await deps.orders.approve((request.params as { id: string }).id, 'operator')
    deps.logger.info({ orderId: approved.id, accountId: approved.accountId, credits: approved.credits }, 'operator approved an order in the console')
    return reply.redirect(`/console/operator/orders?done=${approved.paidBefore ? 'paid-already' : 'approved'}`, 303)
  })

  app.post('/operator/orders/:id/reject', async (request, reply) => {
    await operator(request)
    const note = field(form(request), 'note').trim()
    const rejected = await deps.orders.reject((request.params as { id: string }).id, 'operator', note === '' ? undefined : note)
    deps.logger.info({ orderId: rejected.id, accountId: rejected.accountId }, 'operator rejected an order in the console')
    return reply.redirect('/console/operator/orders?done=rejected', 303)
  })
}
