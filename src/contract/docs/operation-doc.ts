/**
 * What /openapi.json says of an operation beyond its schemas: what it does, for the people who call
 * it, and an example call with its answer. One record per operation, keyed by its operationId
 * (data.docs.ts, account.docs.ts, admin.docs.ts); the interface description attaches them.
 */
import type { ErrorCode } from '../../domain/errors.ts'

/** An answer in the API's error envelope. */
export interface ErrorBody {
  error: string
  code: ErrorCode
  details?: Record<string, unknown>
}

export interface OperationDoc {
  /** What the operation does and when to use it, in Markdown. */
  description: string
  /** An example call, as a client sends it: its query, its path parameters, its JSON body. */
  request: {
    query?: Readonly<Record<string, string | number | boolean>>
    params?: Readonly<Record<string, string>>
    body?: unknown
  }
  /** The answer to that call: its status, and its body unless it has none (204). */
  response: { status: number; body?: unknown }
  /** Error answers particular to this operation, by code; other codes take the catalogue's (errors.docs.ts). */
  errors?: Partial<Record<ErrorCode, ErrorBody>>
}
