/**
 * A signed-in user's pages for the account they are looking at: keys, usage, balance and billing,
 * members. An owner may do everything; a member manages their own keys and reads the rest. Another
 * account's key, order or member answers 404, as if it did not exist.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { spendableLots } from '../domain/billing/billing-rules.ts'
import { ApiError, isApiError } from '../domain/errors.ts'
import { usageRange } from '../domain/usage/usage-report.ts'
import type { ConsoleDeps } from './console-deps.ts'
import type { Role } from '../ports/identity-store.ts'
import { KEY_FIELDS, keySettings, keySettingsValues } from './key-settings.routes.ts'
import { refuseIfSuspended, requireUser, USER_COOKIE, viewerOf, type SignedIn } from './session.ts'
import { confirmBody } from './views/auth.views.ts'
import { billingBody, type OrderLine } from './views/billing.views.ts'
import type { Html } from './views/html.ts'
import type { KeySettingsValues } from './views/key-settings.views.ts'
import { keysBody, newKeyNotice, revokeConfirmBody, type KeyLine } from './views/keys.views.ts'
import { page, type Notice, type Section } from './views/layout.ts'
import { membersBody } from './views/members.views.ts'
import { usageBody, usageCsv } from './views/usage.views.ts'
import { field, form, formRefusal, refusalNotice, send, type FieldLabels } from './forms.ts'

const ownersOnly = () => new ApiError('FORBIDDEN', 'Only an owner of this account can do this.')

/** The fields of each form here, as their labels name them. */
const USAGE_FIELDS: FieldLabels = { from: '“From” day', to: '“To” day' }
const ORDER_FIELDS: FieldLabels = { credits: 'pack size' }
const INVITE_FIELDS: FieldLabels = { email: 'email', role: 'role' }

/** Short messages a redirect names by a word, so no text travels in a URL. */
const DONE: Record<string, Notice> = {
  revoked: { kind: 'ok', text: 'The key is revoked: calls with it are refused from now on.' },
  updated: { kind: 'ok', text: 'The key’s settings are saved: they apply from its next call.' },
  invited: { kind: 'ok', text: 'The invitation is on its way.' },
  withdrawn: { kind: 'ok', text: 'The invitation is withdrawn: its link no longer works.' },
  removed: { kind: 'ok', text: 'The member is removed.' },
  role: { kind: 'ok', text: 'The role is changed.' },
  paid: { kind: 'ok', text: 'Paid: the pack is on your balance.' },
  pending: { kind: 'ok', text: 'Your order is placed; the credits are added once the operator confirms the payment.' },
  returned: { kind: 'ok', text: 'Thank you. The credits are added as soon as the payment is confirmed; this page shows the order.' },
  canceled: { kind: 'error', text: 'The payment was not completed; nothing was charged.' },
  cancel: { kind: 'ok', text: 'The plan ends at the end of this period.' },
  keep: { kind: 'ok', text: 'The plan goes on after this period.' },
}
function doneNotice(request: FastifyRequest): Notice | undefined {
  const q = request.query as { done?: string; order?: string; checkout?: string }
  // A checkout comes back naming its order, and saying so when it was abandoned.
  if (q.order !== undefined) return DONE[q.checkout === 'canceled' ? 'canceled' : 'returned']
  return DONE[q.done ?? '']
}

export function registerAccountPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const user = (request: FastifyRequest) => requireUser(deps, request, USER_COOKIE)
  const render = (reply: FastifyReply, s: SignedIn, o: { title: string; active: Section; body: Html; notice?: Notice | undefined; status?: number }) =>
    send(reply, o.status ?? 200, page({ title: o.title, active: o.active, body: o.body, notice: o.notice, viewer: { ...viewerOf(s), suspended: s.suspended }, csrf: reply.generateCsrf() }))

  async function keyLines(s: SignedIn): Promise<KeyLine[]> {
    const keys = await deps.accounts.keys(s.accountId)
    // A member sees and manages the keys they made; an owner sees every key of the account.
    return keys
      .filter((k) => s.role === 'owner' || k.createdBy === s.userId)
      .map((k) => ({ ...k, name: k.name || 'Unnamed key', revocable: s.role === 'owner' || k.createdBy === s.userId }))
  }

  async function keysPage(reply: FastifyReply, s: SignedIn, o: { created?: Html; notice?: Notice | undefined; status?: number; values?: KeySettingsValues } = {}) {
    const body = keysBody({ keys: await keyLines(s), csrf: reply.generateCsrf(), created: o.created, publicUrl: deps.publicUrl, values: o.values, invalid: o.notice?.fields })
    return render(reply, s, { title: 'API keys', active: 'keys', body, notice: o.notice, ...(o.status ? { status: o.status } : {}) })
  }

  app.get('/keys', async (request, reply) => keysPage(reply, await user(request), { notice: doneNotice(request) }))

  app.post('/keys', async (request, reply) => {
    const s = await user(request)
    const values = keySettingsValues(form(request))
    const name = values.name
    try {
      refuseIfSuspended(s)
      if (name === '') throw formRefusal('Give the key a name, such as where it is used.', 'name')
      // One live key a name: the same form sent again (a reload) makes no second secret nobody saw.
      if ((await deps.accountStore.listKeys(s.accountId)).some((k) => k.revokedAt === null && k.name === name)) {
        throw formRefusal(`A key in use is named “${name}” already; choose another name.`, 'name')
      }
      const created = await deps.accounts.createKey(s.accountId, { name, createdBy: s.userId, ...keySettings(values) })
      // The secret is in this answer only: no redirect, so it never travels in a URL or a later page.
      return keysPage(reply, s, { created: newKeyNotice({ key: created.key, name, endpoints: created.record.endpoints }, deps.publicUrl), status: 201 })
    } catch (e) {
      if (!isApiError(e)) throw e
      return keysPage(reply, s, { notice: refusalNotice(e, KEY_FIELDS), status: e.status, values })
    }
  })

  app.post('/keys/:keyId/revoke', async (request, reply) => {
    const s = await user(request)
    const keyId = (request.params as { keyId: string }).keyId
    const key = (await keyLines(s)).find((k) => k.id === keyId && k.revokedAt === null)
    if (key === undefined) throw new ApiError('NOT_FOUND', 'There is no such key in this account.')
    if (!key.revocable) throw new ApiError('FORBIDDEN', 'Only an owner of this account, or the member who made it, can revoke this key.')
    if (field(form(request), 'confirmed') !== 'yes') {
      return render(reply, s, { title: 'Revoke a key', active: 'keys', body: revokeConfirmBody({ key, csrf: reply.generateCsrf() }) })
    }
    await deps.accounts.revokeKey(s.accountId, keyId)
    return reply.redirect('/console/keys?done=revoked', 303)
  })

  app.get('/usage', async (request, reply) => {
    const s = await user(request)
    const q = request.query as { from?: string; to?: string }
    const given = { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}) }
    try {
      const range = usageRange(given, deps.clock.now())
      // The same report as GET /api/v1/usage for the same days.
      const report = await deps.usage(s.accountId, range)
      return render(reply, s, { title: 'Usage', active: 'usage', body: usageBody({ report, ...range }) })
    } catch (e) {
      if (!isApiError(e)) throw e
      const range = usageRange({}, deps.clock.now())
      const report = await deps.usage(s.accountId, range)
      const notice = refusalNotice(e, USAGE_FIELDS)
      return render(reply, s, { title: 'Usage', active: 'usage', body: usageBody({ report, ...range, typed: given, invalid: notice.fields }), notice, status: e.status })
    }
  })

  app.get('/usage.csv', async (request, reply) => {
    const s = await user(request)
    const q = request.query as { from?: string; to?: string }
    const range = usageRange({ ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}) }, deps.clock.now())
    const report = await deps.usage(s.accountId, range)
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="usage-${range.from}-${range.to}.csv"`)
      .send(usageCsv(report))
  })

  app.get('/billing', async (request, reply) => {
    const s = await user(request)
    return render(reply, s, { title: 'Balance and billing', active: 'billing', body: await billing(s, reply.generateCsrf()), notice: doneNotice(request) })
  })

  async function billing(s: SignedIn, csrf: string, o: { invalid?: readonly string[] | undefined } = {}): Promise<Html> {
    const now = deps.clock.now()
    const subscription = await deps.metering.subscription(s.accountId)
    const state = await deps.ledger.state(s.accountId, now)
    const orders: OrderLine[] = await Promise.all(
      (await deps.orders.list(s.accountId, 20)).map(async (o) => ({ ...o, history: (await deps.orders.get(s.accountId, o.id)).history })),
    )
    return billingBody({
      subscription,
      lots: state ? spendableLots(state, now) : [],
      tiers: deps.packTiers,
      prices: deps.prices,
      orders,
      canBuy: s.role === 'owner',
      canCancel: s.role === 'owner',
      payments: deps.payments,
      csrf,
      invalid: o.invalid,
    })
  }

  app.post('/billing/orders', async (request, reply) => {
    const s = await user(request)
    if (s.role !== 'owner') throw ownersOnly()
    refuseIfSuspended(s)
    const credits = Number(field(form(request), 'credits'))
    try {
      const placed = await deps.orders.placeOrder({ accountId: s.accountId, userId: s.userId, credits, email: s.session.user.email })
      if (placed.next.kind === 'redirect') return reply.redirect(placed.next.url, 303)
      return reply.redirect(`/console/billing?done=${placed.next.kind}`, 303)
    } catch (e) {
      if (!isApiError(e)) throw e
      const notice = refusalNotice(e, ORDER_FIELDS)
      return render(reply, s, { title: 'Balance and billing', active: 'billing', body: await billing(s, reply.generateCsrf(), { invalid: notice.fields }), notice, status: e.status })
    }
  })

  app.post('/billing/cancel', async (request, reply) => {
    const s = await user(request)
    if (s.role !== 'owner') throw ownersOnly()
    const cancel = field(form(request), 'cancel') === 'true'
    await deps.metering.changeSubscription(s.accountId, { cancelAtPeriodEnd: cancel })
    return reply.redirect(`/console/billing?done=${cancel ? 'cancel' : 'keep'}`, 303)
  })

  /** The account's open invitations, for an owner's page (none for a member, who may not see them). */
  const invitationsFor = async (s: SignedIn) => (s.role === 'owner' ? deps.identity.invitations(s.accountId, s.userId) : [])

  app.get('/members', async (request, reply) => {
    const s = await user(request)
    const [members, invitations] = await Promise.all([deps.identity.members(s.accountId), invitationsFor(s)])
    const body = membersBody({ members, invitations, csrf: reply.generateCsrf(), owner: s.role === 'owner', self: s.userId })
    return render(reply, s, { title: 'Members', active: 'members', body, notice: doneNotice(request) })
  })

  app.post('/members/invitations/withdraw', async (request, reply) => {
    const s = await user(request)
    await deps.identity.revokeInvitation({ accountId: s.accountId, id: field(form(request), 'invitation'), by: s.userId })
    return reply.redirect('/console/members?done=withdrawn', 303)
  })

  app.post('/members/invite', async (request, reply) => {
    const s = await user(request)
    const f = form(request)
    const sent = field(f, 'role')
    // Shown again as sent when it is one of the two; anything else is refused by the service, naming the role.
    const role = sent === 'owner' ? 'owner' : 'member'
    try {
      await deps.identity.invite({ accountId: s.accountId, email: field(f, 'email'), role: sent as Role, by: s.userId })
      return reply.redirect('/console/members?done=invited', 303)
    } catch (e) {
      if (!isApiError(e)) throw e
      const [members, invitations] = await Promise.all([deps.identity.members(s.accountId), invitationsFor(s)])
      const notice = refusalNotice(e, INVITE_FIELDS)
      const body = membersBody({ members, invitations, csrf: reply.generateCsrf(), owner: s.role === 'owner', self: s.userId, invite: { email: field(f, 'email'), role }, invalid: notice.fields })
      return render(reply, s, { title: 'Members', active: 'members', body, notice, status: e.status })
    }
  })

  app.post('/members/:userId/remove', async (request, reply) => {
    const s = await user(request)
    const userId = (request.params as { userId: string }).userId
    if (field(form(request), 'confirmed') !== 'yes') {
      const member = (await deps.identity.members(s.accountId)).find((m) => m.userId === userId)
      if (member === undefined) throw new ApiError('NOT_FOUND', 'That user is not a member of this account.')
      if (s.role !== 'owner') throw ownersOnly()
      const body = confirmBody({ question: `Remove ${member.email} from ${s.accountName}? The keys they made are revoked and they lose access to its pages.`, action: `/console/members/${userId}/remove`, csrf: reply.generateCsrf(), button: 'Remove the member', back: '/console/members' })
      return render(reply, s, { title: 'Remove a member', active: 'members', body })
    }
    await deps.identity.removeMember({ accountId: s.accountId, userId, by: s.userId })
    // The keys they made go with them: a removed member keeps no way into the account.
    for (const key of await deps.accountStore.listKeys(s.accountId)) {
      if (key.createdBy === userId && key.revokedAt === null) await deps.accounts.revokeKey(s.accountId, key.id)
    }
    return reply.redirect('/console/members?done=removed', 303)
  })

  app.post('/members/:userId/role', async (request, reply) => {
    const s = await user(request)
    const role = field(form(request), 'role') === 'owner' ? 'owner' : 'member'
    await deps.identity.changeRole({ accountId: s.accountId, userId: (request.params as { userId: string }).userId, role, by: s.userId })
    return reply.redirect('/console/members?done=role', 303)
  })

  app.post('/account', async (request, reply) => {
    const s = await user(request)
    await deps.identity.switchAccount(s.sessionId, field(form(request), 'accountId'))
    return reply.redirect('/console/keys', 303)
  })

}
