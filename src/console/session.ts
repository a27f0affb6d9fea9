/**
 * The session cookie and who is signed in. The cookie holds only a random session id; the session
 * itself is in the store, so any node serves any signed-in user. A new id is issued at every sign-in.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../domain/errors.ts'
import type { ConsoleSession, NewSession, UserSession } from '../identity/identity.service.ts'
import type { ConsoleDeps } from './console-deps.ts'
import type { Viewer } from './views/layout.ts'

/** The session cookies: a user's, and the operator's (kept apart, so one browser may hold both). */
export const USER_COOKIE = 'pronet_session'
export const OPERATOR_COOKIE = 'pronet_operator'

/** Session cookies this response sets or clears, by name: the browser has them only once it is read. */
const setByResponse = new WeakMap<FastifyRequest, Map<string, string>>()

function noteSet(request: FastifyRequest, name: string, id: string): void {
  const set = setByResponse.get(request) ?? new Map<string, string>()
  set.set(name, id)
  setByResponse.set(request, set)
}

export function setSessionCookie(reply: FastifyReply, name: string, session: NewSession, secure: boolean): void {
  reply.setCookie(name, session.id, {
    path: '/console',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    expires: new Date(session.expiresAt),
  })
  noteSet(reply.request, name, session.id)
}

export function clearSessionCookie(reply: FastifyReply, name: string, secure: boolean): void {
  reply.clearCookie(name, { path: '/console', httpOnly: true, sameSite: 'lax', secure })
  noteSet(reply.request, name, '')
}

/**
 * What a form's token is bound to: the session of the part of the console the page is in (the
 * operator's pages or a user's), as the browser holds it once this response is read. A token shown
 * in one session, or before a sign-in, is refused in another.
 */
export function formBinding(request: FastifyRequest): string {
  const name = /^\/console\/operator(?:[/?]|$)/.test(request.url) ? OPERATOR_COOKIE : USER_COOKIE
  // Never empty (the token library takes no empty binding): signed out is a binding of its own.
  return `${name}=${setByResponse.get(request)?.get(name) ?? request.cookies[name] ?? ''}`
}

export async function sessionOf(deps: ConsoleDeps, request: FastifyRequest, cookie: string): Promise<ConsoleSession | undefined> {
  const id = request.cookies[cookie]
  if (id === undefined || id === '') return undefined
  return deps.identity.session(id)
}

/** A signed-in user looking at one of their accounts. */
export interface SignedIn {
  session: UserSession
  /** The operator suspended the account: its calls are refused, and nothing new is made or bought. */
  suspended: boolean
  sessionId: string
  accountId: string
  accountName: string
  role: 'owner' | 'member'
  userId: string
}

/** Thrown to send a visitor who is not signed in to the sign-in page (the user's or the operator's). */
export class SignInFirst extends Error {
  constructor(readonly to = '/console/sign-in') {
    super('sign in first')
  }
}

export async function requireUser(deps: ConsoleDeps, request: FastifyRequest, cookie: string): Promise<SignedIn> {
  const sessionId = request.cookies[cookie] ?? ''
  const session = sessionId === '' ? undefined : await deps.identity.session(sessionId)
  if (session === undefined || session.kind !== 'user') {
    // A page asked for by link (a 402's purchase page) is where the visitor lands after signing in.
    const next = request.method === 'GET' ? safeNext(request.url) : undefined
    throw new SignInFirst(next ? `/console/sign-in?next=${encodeURIComponent(next)}` : '/console/sign-in')
  }
  const account = session.account
  if (account === undefined) throw new ApiError('FORBIDDEN', 'You belong to no account any more; ask an owner to invite you again, or sign in as someone else.')
  const suspended = ((await deps.accountStore.getAccount(account.accountId))?.suspendedAt ?? null) !== null
  return { session, sessionId, suspended, accountId: account.accountId, accountName: account.accountName, role: account.role, userId: session.user.id }
}

/** Refuses what a suspended account may not do (make keys, buy credits). */
export function refuseIfSuspended(s: SignedIn): void {
  if (s.suspended) throw new ApiError('FORBIDDEN', 'This account is suspended by the operator of this service; contact them.')
}

/**
 * Where to go after signing in: a console page the visitor was sent away from, never another site
 * (a path of this console only, so the parameter cannot make an open redirect).
 */
export function safeNext(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !/^\/console\/[A-Za-z0-9/_.\-?=&%]*$/.test(raw) || raw.includes('//') || raw.startsWith('/console/sign')) return undefined
  return raw
}

export const viewerOf = (s: SignedIn): Viewer => ({
  email: s.session.user.email,
  accountName: s.accountName,
  role: s.role,
  accounts: s.session.memberships.map((m) => ({ id: m.accountId, name: m.accountName, current: m.accountId === s.accountId })),
})

/** The client's address, as sign-in throttling counts it. */
export const addressOf = (request: FastifyRequest): string => request.ip
