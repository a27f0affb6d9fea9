/**
 * A key's settings on the console: its name, monthly credit limit and endpoints, changed on a page of
 * its own. The same rule as revoking: an owner changes any key, a member the keys they made (lowering
 * their controls, never raising them); another account's key, or one unknown or revoked, answers 404.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { KeyShown } from '../domain/accounts/accounts.service.ts'
import { ApiError, isApiError } from '../domain/errors.ts'
import { KEY_ENDPOINTS, MAX_KEY_CREDIT_LIMIT } from '../key-caps/key-settings.ts'
import type { ConsoleDeps } from './console-deps.ts'
import { creditsTyped, field, fields, form, formRefusal, refusalNotice, send, type FieldLabels, type Form } from './forms.ts'
import { requireUser, USER_COOKIE, viewerOf, type SignedIn } from './session.ts'
import { num } from './views/format.ts'
import { editKeyBody, valuesOfKey, type KeySettingsValues } from './views/key-settings.views.ts'
import { page, type Notice } from './views/layout.ts'

/** The settings fields of a posted form, as typed: what the form shows when it is sent back. */
export function keySettingsValues(f: Form): KeySettingsValues {
  const endpoints = fields(f, 'endpoints').filter((e) => e !== '')
  const choice = field(f, 'endpointsAllowed')
  // No choice sent (a client posting the name only): every endpoint, unless some are ticked.
  return { name: field(f, 'name').trim(), limit: field(f, 'monthlyCreditLimit').trim(), every: choice === 'every' || (choice !== 'only' && endpoints.length === 0), endpoints }
}

/**
 * The monthly limit and endpoints of a posted form, checked, in the customer's words: a blank limit
 * is none, else digits only, up to the highest limit; “Only these” needs at least one known endpoint.
 */
export function keySettings(v: KeySettingsValues): { monthlyCreditLimit: number | null; endpoints: string[] | null } {
  const monthlyCreditLimit = creditsTyped(v.limit, MAX_KEY_CREDIT_LIMIT)
  if (monthlyCreditLimit === undefined) {
    throw formRefusal(`The monthly credit limit must be a whole number of credits from 0 to ${num(MAX_KEY_CREDIT_LIMIT)}, or blank for no limit.`, 'monthlyCreditLimit')
  }
  if (v.every) return { monthlyCreditLimit, endpoints: null }
  if (v.endpoints.length === 0) throw formRefusal('Tick at least one endpoint under “Only these”, or choose “Every endpoint”.', 'endpoints')
  const unknown = v.endpoints.find((e) => !KEY_ENDPOINTS.includes(e))
  if (unknown !== undefined) throw formRefusal(`“${unknown.slice(0, 60)}” is not an endpoint of the API; tick the endpoints in the list.`, 'endpoints')
  return { monthlyCreditLimit, endpoints: [...new Set(v.endpoints)] }
}

/**
 * Why a member may not make this change: a member may lower a key's monthly limit or narrow its
 * endpoints, never raise or widen what was set, so an owner's controls on a member's key hold.
 */
export function memberLoosens(
  key: Pick<KeyShown, 'monthlyCreditLimit' | 'endpoints'>,
  next: { monthlyCreditLimit: number | null; endpoints: string[] | null },
): { text: string; field: 'monthlyCreditLimit' | 'endpoints' } | undefined {
  const was = key.monthlyCreditLimit
  if (was !== null && (next.monthlyCreditLimit === null || next.monthlyCreditLimit > was)) {
    return { text: `Only an owner can raise the monthly credit limit of this key (${num(was)}) or remove it; you may lower it.`, field: 'monthlyCreditLimit' }
  }
  const allowed = key.endpoints
  if (allowed !== null && (next.endpoints === null || next.endpoints.some((e) => !allowed.includes(e)))) {
    return { text: 'Only an owner can let this key call more endpoints; you may untick some of those it calls.', field: 'endpoints' }
  }
  return undefined
}

/** The fields of a key's form, as their labels name them. */
export const KEY_FIELDS: FieldLabels = { name: 'name', monthlyCreditLimit: 'monthly credit limit', endpoints: 'endpoints' }

export function registerKeySettingsPages(app: FastifyInstance, deps: ConsoleDeps): void {
  function render(reply: FastifyReply, s: SignedIn, key: KeyShown, values: KeySettingsValues, o: { notice?: Notice; status?: number } = {}) {
    const csrf = reply.generateCsrf()
    const body = editKeyBody({ key: { ...key, name: key.name || 'Unnamed key' }, values, csrf, invalid: o.notice?.fields })
    return send(reply, o.status ?? 200, page({ title: 'Edit a key', active: 'keys', body, notice: o.notice, viewer: { ...viewerOf(s), suspended: s.suspended }, csrf }))
  }

  /**
   * The live key of the account the viewer may change. A member sees only the keys they made, so
   * another's key answers 404 as it does for revoking, as if it did not exist.
   */
  async function editable(s: SignedIn, keyId: string): Promise<{ key: KeyShown; keys: KeyShown[] }> {
    const keys = await deps.accounts.keys(s.accountId)
    const key = keys.find((k) => k.id === keyId && k.revokedAt === null)
    if (key === undefined || (s.role !== 'owner' && key.createdBy !== s.userId)) throw new ApiError('NOT_FOUND', 'There is no such key in this account.')
    return { key, keys }
  }

  app.get('/keys/:keyId/edit', async (request, reply) => {
    const s = await requireUser(deps, request, USER_COOKIE)
    const { key } = await editable(s, (request.params as { keyId: string }).keyId)
    return render(reply, s, key, valuesOfKey(key))
  })

  app.post('/keys/:keyId/edit', async (request, reply) => {
    const s = await requireUser(deps, request, USER_COOKIE)
    const { key, keys } = await editable(s, (request.params as { keyId: string }).keyId)
    const values = keySettingsValues(form(request))
    try {
      if (values.name === '') throw formRefusal('Give the key a name, such as where it is used.', 'name')
      if (keys.some((k) => k.id !== key.id && k.revokedAt === null && k.name === values.name)) {
        throw formRefusal(`Another key in use is named “${values.name}” already; choose another name.`, 'name')
      }
      const settings = keySettings(values)
      const loosened = s.role === 'owner' ? undefined : memberLoosens(key, settings)
      if (loosened !== undefined) throw new ApiError('FORBIDDEN', loosened.text, { parameter: loosened.field })
      await deps.accounts.updateKey(s.accountId, key.id, { name: values.name, ...settings })
    } catch (e) {
      if (!isApiError(e) || (e.code !== 'INVALID_PARAMETER' && e.code !== 'FORBIDDEN')) throw e
      return render(reply, s, key, values, { notice: refusalNotice(e, KEY_FIELDS), status: e.status })
    }
    return reply.redirect('/console/keys?done=updated', 303)
  })
}
