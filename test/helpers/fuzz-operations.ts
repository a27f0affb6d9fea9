/**
 * The API's operations as the app itself describes them in /openapi.json: method, path, security,
 * parameters and body with their schemas, and the error codes each status may carry. The fuzzer
 * generates its calls and judges the answers from this, so a new route is fuzzed without being listed.
 */
import type { JsonSchema } from './fuzz-schema.ts'

export interface Param {
  name: string
  required: boolean
  schema: JsonSchema
}

export type Family = 'data' | 'account' | 'admin'

export interface Operation {
  /** `GET /api/v1/profile`: the method and the documented path. */
  key: string
  method: string
  /** The documented path, parameters in braces (`/admin/v1/accounts/{id}`). */
  path: string
  family: Family
  security: 'apiKey' | 'admin'
  query: Param[]
  params: Param[]
  body: JsonSchema | undefined
  bodyRequired: boolean
  /** Each documented status, with the error codes its envelope may carry (none listed for a success). */
  responses: Map<number, readonly string[]>
}

interface OpenApiOperation {
  tags?: string[]
  security?: Record<string, unknown>[]
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, { content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> }>
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0]
      if (tag !== 'data' && tag !== 'account' && tag !== 'admin') throw new Error(`${method} ${path}: no family tag (data, account, admin)`)
      const security = op.security?.some((s) => 'AdminToken' in s) ? 'admin' : 'apiKey'
      const params = (where: string): Param[] =>
        (op.parameters ?? []).filter((p) => p.in === where).map((p) => ({ name: p.name, required: p.required === true, schema: p.schema }))
      const responses = new Map<number, readonly string[]>()
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        responses.set(Number(status), response.content?.['application/json']?.schema?.properties?.code?.enum ?? [])
      }
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        family: tag,
        security,
        query: params('query'),
        params: params('path'),
        body: op.requestBody?.content?.['application/json']?.schema,
        bodyRequired: op.requestBody?.required === true,
        responses,
      })
    }
  }
  return ops
}

/** The documented path with its parameters filled in (values given as they stand in the URL). */
export function fillPath(path: string, values: Readonly<Record<string, string>>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '')
}

/** Whether a concrete path (no query) is one of the documented paths, parameters matching any segment. */
export function matchesDocumentedPath(ops: readonly Operation[], path: string): boolean {
  return ops.some((op) => new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path))
}
