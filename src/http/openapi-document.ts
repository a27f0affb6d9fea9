/**
 * The finishing of /openapi.json, once @fastify/swagger has built it from the routes' schemas: the
 * server it describes, the contract's named schemas as components (so that generated clients get
 * named types), and each operation's example call and answer, in the reference's own words and as
 * a curl line. The routes' schemas stay as they are: only the document changes.
 */
import type { ErrorCode } from '../domain/errors.ts'
import { ACCOUNT_DOCS } from '../contract/docs/account.docs.ts'
import { ADMIN_DOCS } from '../contract/docs/admin.docs.ts'
import { DATA_DOCS } from '../contract/docs/data.docs.ts'
import { errorExample, type ErrorContext } from '../contract/docs/errors.docs.ts'
import type { OperationDoc } from '../contract/docs/operation-doc.ts'

/** Every operation's description and example, by operationId. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = { ...DATA_DOCS, ...ACCOUNT_DOCS, ...ADMIN_DOCS }

type Json = Record<string, unknown>

interface Parameter {
  in: string
  name: string
  example?: unknown
}

interface Media {
  schema?: Json
  example?: unknown
  examples?: Record<string, { summary: string; value: unknown }>
}

interface Operation {
  operationId?: string
  security?: Record<string, unknown>[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, Media> }
  responses?: Record<string, { content?: Record<string, Media> }>
  'x-codeSamples'?: { lang: string; label: string; source: string }[]
}

export interface OpenApiDocument {
  servers?: { url: string; description: string }[]
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Json> }
}

export interface DocumentOptions {
  /** Where customers reach the service (PRONET_PUBLIC_URL). */
  publicUrl: string
  /** Where a customer buys credits, as a 402 says. */
  buyCreditsUrl: string
}

/** The document, completed in place (it is built once and kept by @fastify/swagger). */
export function completeDocument<T extends OpenApiDocument>(doc: T, options: DocumentOptions): T {
  doc.servers = [{ url: options.publicUrl, description: 'This service' }]
  nameSchemas(doc)
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      const about = op.operationId === undefined ? undefined : OPERATION_DOCS[op.operationId]
      if (about) exemplify(op, about, { method: method.toUpperCase(), path, ...options })
    }
  }
  return doc
}

/**
 * Every schema of an answer that carries a title becomes the component of that name, referenced
 * wherever it appears: the titles are the contract's names for its shared schemas (Profile, Post,
 * Error…). Nested ones first, so a component refers to the components inside it. Two different
 * schemas under one title would make one of them wrong, so that is refused.
 */
function nameSchemas(doc: OpenApiDocument): void {
  const components = ((doc.components ??= {}).schemas ??= {})
  const seen = new Map<string, string>()
  const named = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(named)
    if (schema === null || typeof schema !== 'object') return schema
    const out: Json = {}
    // Values of these keywords are data, not schemas: a record's "title" field is left alone.
    for (const [k, v] of Object.entries(schema)) out[k] = DATA_KEYWORDS.has(k) ? v : named(v)
    const title = out.title
    if (typeof title !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(title)) return out
    const text = canonical(out)
    const known = seen.get(title)
    if (known === undefined) {
      seen.set(title, text)
      components[title] = out
    } else if (known !== text) {
      throw new Error(`Two different schemas are titled '${title}'; a title names one component of /openapi.json.`)
    }
    return { $ref: `#/components/schemas/${title}` }
  }
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      for (const response of Object.values(op.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) if (media.schema) media.schema = named(media.schema) as Json
      }
    }
  }
  // Sorted by name, so that a reader (and a diff) finds them.
  const sorted = Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)))
  ;(doc.components as { schemas: Record<string, Json> }).schemas = sorted
}

const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples', 'required'])

/** JSON with its keys sorted: two schemas are the same when these are equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  )
}

interface Where extends DocumentOptions {
  method: string
  path: string
}

/** The operation's example call (parameters, body), its answer, an example of each error it may answer, and the call as curl. */
function exemplify(op: Operation, about: OperationDoc, where: Where): void {
  const { query = {}, params = {}, body } = about.request
  for (const p of op.parameters ?? []) {
    const value = p.in === 'query' ? query[p.name] : p.in === 'path' ? params[p.name] : undefined
    if (value !== undefined) p.example = value
  }
  const requestMedia = op.requestBody?.content?.['application/json']
  if (requestMedia && body !== undefined) requestMedia.example = body
  const admin = op.security?.some((s) => 'AdminToken' in s) ?? false
  const input = mainInput(about.request)
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const [media] = Object.values(response.content ?? {})
    if (!media) continue
    if (Number(status) === about.response.status) {
      if (about.response.body !== undefined) media.example = about.response.body
      continue
    }
    const codes = (media.schema?.properties as { code?: { enum?: ErrorCode[] } } | undefined)?.code?.enum ?? []
    if (codes.length === 0) continue
    const examples: Record<string, { summary: string; value: unknown }> = {}
    for (const code of codes) {
      const value = about.errors?.[code] ?? errorExample(code, { caller: admin ? 'operator' : 'customer', input, buyCreditsUrl: where.buyCreditsUrl })
      if (value) examples[code] = { summary: code, value }
    }
    media.examples = examples
  }
  op['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source: curl(about, where, admin) }]
}

/** The input a refusal of the operation names: the first of its body, else of its query, else of its path. */
function mainInput(request: OperationDoc['request']): ErrorContext['input'] {
  const [body] = request.body !== null && typeof request.body === 'object' ? Object.keys(request.body) : []
  if (body !== undefined) return { name: body, in: 'body' }
  const [query] = Object.keys(request.query ?? {})
  if (query !== undefined) return { name: query, in: 'query' }
  const [path] = Object.keys(request.params ?? {})
  return path === undefined ? undefined : { name: path, in: 'path' }
}

/** The example call as a curl command line against this service. */
function curl(about: OperationDoc, where: Where, admin: boolean): string {
  const { query = {}, params = {}, body } = about.request
  const path = where.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? name))
  const lines = [`curl -s${where.method === 'GET' ? '' : ` -X ${where.method}`}${Object.keys(query).length > 0 ? ' -G' : ''} ${quoted(where.publicUrl + path)}`]
  lines.push(admin ? '-H "Authorization: Bearer $PRONET_ADMIN_TOKEN"' : '-H "X-API-Key: $PRONET_API_KEY"')
  for (const [name, value] of Object.entries(query)) lines.push(`--data-urlencode ${quoted(`${name}=${String(value)}`)}`)
  if (body !== undefined) lines.push("-H 'content-type: application/json'", `-d ${quoted(JSON.stringify(body))}`)
  return lines.join(' \\\n  ')
}

/** A shell word in single quotes. */
const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`
