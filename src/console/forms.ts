/** Reading a posted form and answering with a page: the same few steps on every console route. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../domain/errors.ts'
import type { Notice } from './views/layout.ts'

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

/** A form's refusal, already in its words, about its field `field` (which the page marks invalid). */
export const formRefusal = (text: string, field: string): ApiError => new ApiError('INVALID_PARAMETER', text, { parameter: field })

/** What a form calls its fields, by the names the services give them (`password` → 'password', `from` → '“From” day'). */
export type FieldLabels = Readonly<Record<string, string>>

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)
const stopped = (s: string): string => (/[.!?]$/.test(s) ? s : `${s}.`)

/** “the email”, “the email and the password”, “the email, the password and the name”. */
const listed = (labels: readonly string[]): string =>
  labels.length <= 1 ? `the ${labels[0] ?? ''}` : `${labels.slice(0, -1).map((l) => `the ${l}`).join(', ')} and the ${labels.at(-1) ?? ''}`

/** What a form sent with required fields left blank says, naming every one of them at once. */
export const missingText = (labels: readonly string[]): string => `Fill in ${listed(labels)}.`

/** The words of a refusal whose reason reads on from the field's name (“must be…”, “is a member…”). */
const PREDICATE = /^(must|is|are|cannot|can|has|needs|should)\b/

/**
 * A service's refusal in the words of the form it answers. The services speak to programs, naming
 * parameters (“Invalid parameter 'password': must be…”); a form names its fields as its labels do
 * (“The password must be…”), so a person knows which box to change. The field it is about comes
 * with it, for the page to mark that field invalid.
 */
export function refusalNotice(e: ApiError, labels: FieldLabels): Notice {
  const parameter = typeof e.details?.parameter === 'string' ? e.details.parameter : undefined
  const label = parameter !== undefined && Object.hasOwn(labels, parameter) ? labels[parameter] : undefined
  if (label === undefined || parameter === undefined) return { kind: 'error', text: e.message }
  const fields = [parameter]
  if (/^Missing required parameter '[^']*'\.?$/.test(e.message)) return { kind: 'error', text: missingText([label]), fields }
  const why = /^Invalid parameter '[^']*': (.*)$/s.exec(e.message)?.[1]
  if (why !== undefined) return { kind: 'error', text: PREDICATE.test(why) ? stopped(`The ${label} ${why}`) : `${capital(label)}: ${stopped(why)}`, fields }
  // A reason that names its fields in the middle ('from' (…) is after 'to' (…)): each by its label.
  let text = e.message
  for (const [name, l] of Object.entries(labels)) text = text.replaceAll(`'${name}'`, `the ${l}`)
  return { kind: 'error', text: stopped(capital(text)), fields }
}
