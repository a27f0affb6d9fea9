/**
 * The shape of the contract table (contract.generated.ts): what each call of pronet's API takes, as
 * its /openapi.json states it. Tool inputs are built from this table, never written by hand.
 */

/** A JSON Schema object as the contract states it. */
export type JsonSchema = { [keyword: string]: unknown }

export interface QueryParameter {
  name: string
  required: boolean
  description?: string
  schema: JsonSchema
}

export interface OperationContract {
  method: 'GET' | 'POST'
  /** The path after the base URL, such as /api/v1/profile. */
  path: string
  summary: string
  /** The query parameters (headers such as Idempotency-Key are the client's business, not a tool's). */
  query: QueryParameter[]
  /** The JSON body's schema, for the calls that take one. */
  body?: JsonSchema
}
