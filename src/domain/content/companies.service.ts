/**
 * The company endpoints: one page, and the batch whose entries are each a company or its
 * own error object. `companyRequests` parses their input (no store); `createCompaniesService` answers
 * once the price is held (the batch's rate units are its route's).
 */
import { LISTS, type CompanyQuery } from '../../contract/endpoints.schemas.ts'
import type { Validated } from '../../contract/validated.ts'
import { ApiError, isApiError } from '../errors.ts'
import type { ContentLookups } from './content-lookups.ts'
import { parseCompanyInput, type CompanyInput } from './input-resolution.ts'
import { json, list } from './json-parts.ts'
import { present, type ParseDeps } from './request-params.ts'

// Plain data, type aliases: see profiles.service.ts.
export type CompanyRequest = { input: CompanyInput }
export type CompanyBatchRequest = {
  /** Distinct entries in input order, first spelling kept. */
  entries: string[]
  /** Distinct entries: what admission holds for. */
  units: number
}

/** One batch entry as it goes into the response: notFound counts 404s, failed every other error. */
export interface BatchResult {
  json: string | Buffer
  outcome: 'found' | 'notFound' | 'failed'
}

export function companyRequests(deps: ParseDeps) {
  const { host } = deps
  return {
    /** GET /api/v1/company. */
    company(q: Validated<typeof CompanyQuery>): CompanyRequest {
      return { input: parseCompanyInput(present(q.companyUrlOrUrn), { param: 'companyUrlOrUrn', host }) }
    },

    /**
     * POST /api/v1/company/batch, whole-request validation only: the distinct entries (first spelling
     * kept, case-insensitive duplicates dropped), checked against the balance before
     * anything is fetched. The body is checked here, not by its schema, so each refusal names its field.
     */
    companyBatch(body: unknown): CompanyBatchRequest {
      const companies = (body as { companies?: unknown } | null | undefined)?.companies
      if (companies === undefined || companies === null) throw missingCompanies()
      if (!Array.isArray(companies)) {
        throw new ApiError('INVALID_PARAMETER', "'companies' must be an array of strings.", { parameter: 'companies' })
      }
      if (companies.length === 0) throw missingCompanies()
      if (companies.length > LISTS.batchCompanies) {
        throw new ApiError('INVALID_PARAMETER', `'companies' accepts at most ${LISTS.batchCompanies} entries (received ${companies.length}).`, {
          parameter: 'companies',
        })
      }
      const seen = new Map<string, string>()
      companies.forEach((entry: unknown, i) => {
        if (typeof entry !== 'string' || entry.trim() === '') {
          throw new ApiError('INVALID_PARAMETER', `'companies[${i}]' must be a non-empty string.`, {
            parameter: `companies[${i}]`,
          })
        }
        const text = entry.trim()
        if (!seen.has(text.toLowerCase())) seen.set(text.toLowerCase(), text)
      })
      const entries = [...seen.values()]
      return { entries, units: entries.length }
    },
  }
}

export function createCompaniesService(deps: { lookups: ContentLookups; host: string }) {
  const { lookups, host } = deps
  return {
    /** One company page. */
    async company(r: CompanyRequest): Promise<Buffer> {
      return (await lookups.findCompany(r.input)).doc
    },

    /** One batch entry: a company or its own error object (never throws an ApiError). */
    async batchEntry(input: string): Promise<BatchResult> {
      try {
        const company = await lookups.findCompany(parseCompanyInput(input, { param: 'companies', host }))
        return { json: json(`{"input":${JSON.stringify(input)},"company":`, company.doc, '}'), outcome: 'found' }
      } catch (e) {
        if (isApiError(e)) return { json: batchError(input, e), outcome: e.status === 404 ? 'notFound' : 'failed' }
        return {
          json: batchError(input, new ApiError('INTERNAL_ERROR', 'The entry could not be fetched; retry it.')),
          outcome: 'failed',
        }
      }
    },

    /** A batch entry refused without a fetch (the batch ran out of time for rate units). */
    batchRefused(input: string, e: ApiError): BatchResult {
      return { json: batchError(input, e), outcome: 'failed' }
    },

    /** The batch response from entries in input order, with the companies found (what the call bills). */
    batchResponse(results: readonly BatchResult[]): { body: Buffer; found: number } {
      const found = results.filter((r) => r.outcome === 'found').length
      const notFound = results.filter((r) => r.outcome === 'notFound').length
      return {
        body: json(
          '{"results":',
          list(results.map((r) => r.json)),
          `,"found":${found},"notFound":${notFound},"failed":${results.length - found - notFound}}`,
        ),
        found,
      }
    },
  }
}

function missingCompanies(): ApiError {
  return new ApiError('INVALID_PARAMETER', `'companies' is required: a non-empty array of 1 to ${LISTS.batchCompanies} strings.`, {
    parameter: 'companies',
  })
}

/** A batch entry that is its own error object. */
export function batchError(input: string, e: ApiError): string {
  return JSON.stringify({ input, error: { code: e.code, message: e.message, status: e.status } })
}
