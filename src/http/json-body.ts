/**
 * The JSON body parser of the API and of the admin API, one for both so that a body is refused the
 * same way wherever it is sent:
 * - A body holding a `__proto__` key (or `constructor.prototype`) is refused, as Fastify's parser does,
 *   but naming that field: it is valid JSON with a field no route accepts, not "not valid JSON".
 * - Bodies are read as sent: a compressed one would be refused as "not valid JSON", and a plain one
 *   labelled compressed accepted. Either way the label is the mistake, so it is what the 400 names.
 */
import type { FastifyInstance } from 'fastify'
import { ApiError, invalidParameter } from '../domain/errors.ts'

export function useJsonBodies(
  scope: FastifyInstance,
  options: {
    /**
     * Zero bytes read as no body (undefined) rather than refused as empty: for calls whose body is
     * optional, which curl sends with no bytes and often still a JSON content type.
     */
    emptyIsNone?: boolean
  } = {},
): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error')
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (options.emptyIsNone === true && text.length === 0) return done(null, undefined)
    const encoding = request.headers['content-encoding']?.trim().toLowerCase()
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
      return done(new ApiError('INVALID_PARAMETER', `Content-Encoding '${encoding}' is not accepted; send the body uncompressed.`, { parameter: 'body' }), undefined)
    }
    parseJson(request, text, (error, value) => {
      const field = error ? poisonedField(text) : undefined
      if (field !== undefined) return done(invalidParameter(field, 'this field name is not accepted.'), undefined)
      done(error, value)
    })
  })
}

/**
 * The forbidden field of a body that is valid JSON but was refused for prototype poisoning, as a path
 * (`__proto__`, `filters.__proto__`, `constructor`); undefined when the body is not valid JSON.
 */
export function poisonedField(text: string): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  // Breadth first with a queue rather than recursion: a deeply nested body must not exhaust the stack.
  const queue: [unknown, string][] = [[value, '']]
  for (let i = 0; i < queue.length; i++) {
    const [node, path] = queue[i] as [unknown, string]
    if (node === null || typeof node !== 'object') continue
    for (const [key, child] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`
      if (key === '__proto__') return at
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return at
      queue.push([child, at])
    }
  }
  return undefined
}
