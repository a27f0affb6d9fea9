/** Signing up, in and out; verifying an address; resetting a password; joining by invitation. */
import type { FastifyInstance } from 'fastify'
import { isApiError, type ApiError } from '../domain/errors.ts'
import { passwordProblem } from '../identity/passwords.ts'
import type { ConsoleDeps } from './console-deps.ts'
import { addressOf, clearSessionCookie, safeNext, sessionOf, setSessionCookie, USER_COOKIE } from './session.ts'
import { forgotBody, inviteBody, messageBody, resetBody, signInBody, signUpBody } from './views/auth.views.ts'
import { keysBody, newKeyNotice } from './views/keys.views.ts'
import { html } from './views/html.ts'
import { page, type Notice } from './views/layout.ts'
import { field, form, missingText, refusalNotice, send, type FieldLabels } from './forms.ts'

/** What a page says of a mailed link that no longer works (the API's wording names a parameter). */
const DEAD_LINK = 'This link is not valid, was used already or has expired.'

/** The fields of the sign-up form, as its labels name them. */
const SIGN_UP_FIELDS: FieldLabels = { email: 'email', password: 'password', accountName: 'company or project name' }

/** A refusal shown on the form it answers, in its words; anything else goes to the console's error page. */
function refusal(e: unknown, labels: FieldLabels = {}): { status: number; notice: Notice; headers: Record<string, string>; deadLink: boolean } {
  if (!isApiError(e)) throw e
  const err = e as ApiError
  const deadLink = err.code === 'INVALID_PARAMETER' && err.details?.parameter === 'token'
  return { status: err.status, notice: deadLink ? { kind: 'error', text: DEAD_LINK } : refusalNotice(err, labels), headers: err.headers ?? {}, deadLink }
}

/**
 * Every required sign-up field left blank, named at once (the service stops at its first refusal),
 * with what is wrong with a password given beside them; undefined when none is blank.
 */
function blankSignUp(email: string, password: string): Notice | undefined {
  const blank = [email.trim() === '' ? 'email' : undefined, password === '' ? 'password' : undefined].filter((f) => f !== undefined)
  if (blank.length === 0) return undefined
  const problem = password === '' ? undefined : passwordProblem(password)
  const text = [missingText(blank.map((f) => SIGN_UP_FIELDS[f] ?? f)), problem === undefined ? '' : `The password ${problem}`].filter((t) => t !== '').join(' ')
  return { kind: 'error', text, fields: problem === undefined ? blank : [...blank, 'password'] }
}

/** The page of a reset link that no longer works: no form to fill in, a way to a new link. */
const deadResetLink = () =>
  page({ title: 'Choose a new password', notice: { kind: 'error', text: DEAD_LINK }, body: messageBody('Ask for a new link to set your password.', { href: '/console/forgot', label: 'Ask for a new link' }) })

export function registerAuthPages(app: FastifyInstance, deps: ConsoleDeps, o: { secure: boolean }): void {
  const { identity } = deps

  app.get('/', async (request, reply) => {
    const session = await sessionOf(deps, request, USER_COOKIE)
    return reply.redirect(session?.kind === 'user' ? '/console/keys' : '/console/sign-in', 303)
  })

  app.get('/sign-in', async (request, reply) => {
    const q = request.query as { reset?: string; next?: string }
    const next = safeNext(q.next)
    const session = await sessionOf(deps, request, USER_COOKIE)
    // A user who belongs to no account any more stays here, free to sign in as someone else.
    if (session?.kind === 'user' && session.account !== undefined) return reply.redirect(next ?? '/console/keys', 303)
    const notice: Notice | undefined = q.reset === 'done' ? { kind: 'ok', text: 'Your password is set. Sign in with it.' } : undefined
    return send(reply, 200, page({ title: 'Sign in', notice, body: signInBody({ csrf: reply.generateCsrf(), signup: deps.signup, next }) }))
  })

  app.post('/sign-in', async (request, reply) => {
    const f = form(request)
    const next = safeNext(f.next)
    try {
      const { session } = await identity.signIn({ email: field(f, 'email'), password: field(f, 'password'), address: addressOf(request) })
      setSessionCookie(reply, USER_COOKIE, session, o.secure)
      return reply.redirect(next ?? '/console/keys', 303)
    } catch (e) {
      const r = refusal(e)
      reply.headers(r.headers)
      return send(reply, r.status, page({ title: 'Sign in', notice: r.notice, body: signInBody({ csrf: reply.generateCsrf(), email: field(f, 'email'), signup: deps.signup, next }) }))
    }
  })

  app.post('/sign-out', async (request, reply) => {
    const id = request.cookies[USER_COOKIE]
    if (id) await identity.signOut(id)
    clearSessionCookie(reply, USER_COOKIE, o.secure)
    return reply.redirect('/console/sign-in', 303)
  })

  app.get('/sign-up', async (_request, reply) => {
    if (deps.signup !== 'open') {
      const text = deps.signup === 'invite' ? 'Accounts here are made by invitation: open the link in the invitation you received.' : 'Sign-up is closed on this service; ask its operator for an account.'
      return send(reply, 403, page({ title: 'Create an account', body: messageBody(text, { href: '/console/sign-in', label: 'Sign in' }) }))
    }
    return send(reply, 200, page({ title: 'Create an account', body: signUpBody({ csrf: reply.generateCsrf() }) }))
  })

  app.post('/sign-up', async (request, reply) => {
    const f = form(request)
    // The same form sent again (a reload after signing up) is not a second sign-up.
    const current = await sessionOf(deps, request, USER_COOKIE)
    if (current?.kind === 'user' && current.user.email === field(f, 'email').trim().toLowerCase()) return reply.redirect('/console/keys', 303)
    const blank = blankSignUp(field(f, 'email'), field(f, 'password'))
    const again = (status: number, notice: Notice) =>
      send(reply, status, page({ title: 'Create an account', notice, body: signUpBody({ csrf: reply.generateCsrf(), email: field(f, 'email'), accountName: field(f, 'accountName'), invalid: notice.fields }) }))
    if (blank !== undefined) return again(400, blank)
    try {
      const accountName = field(f, 'accountName').trim()
      const signedUp = await identity.signUp({
        email: field(f, 'email'),
        password: field(f, 'password'),
        ...(accountName !== '' ? { accountName } : {}),
        address: addressOf(request),
      })
      setSessionCookie(reply, USER_COOKIE, signedUp.session, o.secure)
      // The first key is shown in this answer, once; it never travels in a URL.
      const keys = await deps.accountStore.listKeys(signedUp.account.id)
      const body = html`<p class="notice ok" role="status">Welcome. We sent a link to ${signedUp.user.email} to confirm the address.</p>${keysBody({
        keys: keys.map((k) => ({ ...k, name: k.name || 'First key', revocable: true })),
        csrf: reply.generateCsrf(),
        created: newKeyNotice({ key: signedUp.apiKey.key, name: 'First key' }, deps.publicUrl),
        publicUrl: deps.publicUrl,
      })}`
      const viewer = { email: signedUp.user.email, accountName: signedUp.account.name, role: 'owner' as const, accounts: [{ id: signedUp.account.id, name: signedUp.account.name, current: true }] }
      return send(reply, 201, page({ title: 'API keys', active: 'keys', viewer, csrf: reply.generateCsrf(), body }))
    } catch (e) {
      const r = refusal(e, SIGN_UP_FIELDS)
      reply.headers(r.headers)
      return again(r.status, r.notice)
    }
  })

  // Mailed links land on a page whose button does the work, so a link scanner's visit changes nothing.
  app.get('/verify', async (request, reply) => {
    const token = (request.query as { token?: string }).token ?? ''
    const body = html`<section class="card narrow"><form method="post" action="/console/verify">
      <input type="hidden" name="_csrf" value="${reply.generateCsrf()}"><input type="hidden" name="token" value="${token}">
      <p>Confirm your email address.</p><button type="submit">Confirm</button></form></section>`
    return send(reply, 200, page({ title: 'Confirm your address', body }))
  })

  app.post('/verify', async (request, reply) => {
    try {
      await identity.verifyEmail(field(form(request), 'token'))
      return send(reply, 200, page({ title: 'Address confirmed', body: messageBody('Thank you: your address is confirmed.', { href: '/console/', label: 'Go to the console' }) }))
    } catch (e) {
      const r = refusal(e)
      return send(reply, r.status, page({ title: 'Confirm your address', notice: r.notice, body: messageBody('Sign in and ask for a new link if you need one.') }))
    }
  })

  app.get('/forgot', async (_request, reply) => send(reply, 200, page({ title: 'Reset your password', body: forgotBody({ csrf: reply.generateCsrf() }) })))

  app.post('/forgot', async (request, reply) => {
    try {
      await identity.requestPasswordReset(field(form(request), 'email'))
    } catch (e) {
      const r = refusal(e)
      reply.headers(r.headers)
      return send(reply, r.status, page({ title: 'Reset your password', notice: r.notice, body: forgotBody({ csrf: reply.generateCsrf() }) }))
    }
    return send(reply, 200, page({ title: 'Reset your password', body: forgotBody({ csrf: reply.generateCsrf(), sent: true }) }))
  })

  // Looking at the link uses nothing: only the form's answer does.
  app.get('/reset', async (request, reply) => {
    const token = (request.query as { token?: string }).token ?? ''
    if (!(await identity.resetLinkWorks(token))) return send(reply, 400, deadResetLink())
    return send(reply, 200, page({ title: 'Choose a new password', body: resetBody({ csrf: reply.generateCsrf(), token }) }))
  })

  app.post('/reset', async (request, reply) => {
    const f = form(request)
    try {
      await identity.resetPassword(field(f, 'token'), field(f, 'password'))
      clearSessionCookie(reply, USER_COOKIE, o.secure)
      return reply.redirect('/console/sign-in?reset=done', 303)
    } catch (e) {
      const r = refusal(e, { password: 'new password' })
      if (r.deadLink) return send(reply, r.status, deadResetLink())
      return send(reply, r.status, page({ title: 'Choose a new password', notice: r.notice, body: resetBody({ csrf: reply.generateCsrf(), token: field(f, 'token'), invalid: r.notice.fields }) }))
    }
  })

  app.get('/invite', async (request, reply) => {
    const token = (request.query as { token?: string }).token ?? ''
    try {
      const invitation = await identity.describeInvitation(token)
      const signedIn = (await sessionOf(deps, request, USER_COOKIE))?.kind === 'user'
      return send(reply, 200, page({ title: 'Join an account', body: inviteBody({ csrf: reply.generateCsrf(), token, accountName: invitation.accountName, role: invitation.role, signedIn: signedIn || invitation.existingUser }) }))
    } catch (e) {
      const r = refusal(e)
      return send(reply, r.status, page({ title: 'Join an account', notice: r.notice, body: messageBody('Ask the owner who invited you for a new invitation.') }))
    }
  })

  app.post('/invite', async (request, reply) => {
    const f = form(request)
    try {
      const password = field(f, 'password')
      const accepted = await identity.acceptInvitation(field(f, 'token'), password !== '' ? { password } : {})
      if (accepted.session) setSessionCookie(reply, USER_COOKIE, accepted.session, o.secure)
      const next = accepted.session || (await sessionOf(deps, request, USER_COOKIE))?.kind === 'user' ? '/console/keys' : '/console/sign-in'
      return reply.redirect(next, 303)
    } catch (e) {
      const r = refusal(e, { password: 'password' })
      // A password refused is asked for again on the same invitation; a dead link has no form to show.
      const invitation = r.notice.fields === undefined ? undefined : await identity.describeInvitation(field(f, 'token')).catch(() => undefined)
      const body =
        invitation === undefined
          ? messageBody('Ask the owner who invited you for a new invitation.')
          : inviteBody({ csrf: reply.generateCsrf(), token: field(f, 'token'), accountName: invitation.accountName, role: invitation.role, signedIn: false, invalid: r.notice.fields })
      return send(reply, r.status, page({ title: 'Join an account', notice: r.notice, body }))
    }
  })
}
