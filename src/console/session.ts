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

export function setSessionCookie(reply: FastifyReply, name: string, session: NewSession, secure: boolean): void {
  reply.setCookie(name, session.id, {
    path: '/console',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    expires: new Date(session.expiresAt),
  })
}

export function clearSessionCookie(reply: FastifyReply, name: string, secure: boolean): void {
  reply.clearCookie(name, { path: '/console', httpOnly: true, sameSite: 'lax', secure })
}

export async function sessionOf(deps: ConsoleDeps, request: FastifyRequest, cookie: string): Promise<ConsoleSession | undefined> {
  const id = request.cookies[cookie]
  if (id === undefined || id === '') return undefined
  return deps.identity.session(id)
}

/** A signed-in user looking at one of their accounts. */
export interface SignedIn {
  session: UserSession
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
  if (session === undefined || session.kind !== 'user') throw new SignInFirst()
  const account = session.account
  if (account === undefined) throw new ApiError('FORBIDDEN', 'You belong to no account any more; ask an owner to invite you again.')
  return { session, sessionId, accountId: account.accountId, accountName: account.accountName, role: account.role, userId: session.user.id }
}

export const viewerOf = (s: SignedIn): Viewer => ({
  email: s.session.user.email,
  accountName: s.accountName,
  role: s.role,
  accounts: s.session.memberships.map((m) => ({ id: m.accountId, name: m.accountName, current: m.accountId === s.accountId })),
})

/** The client's address, as sign-in throttling counts it. */
export const addressOf = (request: FastifyRequest): string => request.ip
