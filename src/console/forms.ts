/** Reading a posted form and answering with a page: the same few steps on every console route. */
import type { FastifyReply, FastifyRequest } from 'fastify'

export type Form = Record<string, string | undefined>

/** The urlencoded body of a form post (empty when there is none). */
export const form = (request: FastifyRequest): Form => (request.body ?? {}) as Form

/** One field as text: '' when missing or sent more than once. */
export const field = (f: Form, name: string): string => (typeof f[name] === 'string' ? (f[name] as string) : '')

/** A field sent any number of times (the ticked boxes of one name), as texts. */
export const fields = (f: Form, name: string): string[] => {
  const value: unknown = f[name]
  return typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** A number of credits typed in a field: blank is null (none), digits up to `max` the number, anything else undefined. */
export function creditsTyped(typed: string, max: number): number | null | undefined {
  if (typed === '') return null
  return /^\d+$/.test(typed) && Number(typed) <= max ? Number(typed) : undefined
}

export const send = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('text/html; charset=utf-8').send(body)
