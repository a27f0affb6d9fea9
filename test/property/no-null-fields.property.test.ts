/**
 * Over synthetic networks of random seeds: no response of any data endpoint holds a null where its
 * contract types the field as a string, an object or anything else that is not nullable. Client code
 * reads `profilePictureUrl.length` or `timePeriod.startDate.year` without a guard; a null there is a
 * crash on their side, not a value.
 */
// @one-backend: on SQLite; responses are built from the stored documents, which test/contract/content-store.contract.ts holds PostgreSQL to return byte for byte
import fc from 'fast-check'
import type { TSchema } from 'typebox'
import { describe, expect, it } from 'vitest'
import type { IngestRecord } from '../../src/contract/ingest.schemas.ts'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { generateNetwork } from '../../src/synth/index.ts'
import { expectSchema, makeTestApp } from '../helpers/test-app.ts'

type Schema = TSchema & {
  type?: string | string[]
  anyOf?: Schema[]
  properties?: Record<string, Schema>
  patternProperties?: Record<string, Schema>
  additionalProperties?: Schema | boolean
  items?: Schema
}

const allowsNull = (s: Schema): boolean =>
  s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (s.anyOf ?? []).some(allowsNull)

/** The paths at which `value` holds a null that `schema` does not allow there. */
export function disallowedNulls(schema: Schema, value: unknown, path = '$'): string[] {
  if (value === null) return allowsNull(schema) ? [] : [path]
  // A schema that takes nothing (an array that must stay empty) fits no value.
  if ((schema as { not?: unknown }).not !== undefined) return [path]
  if (schema.anyOf) {
    // The branch the value takes is the one that explains it best; a union never licenses a null elsewhere.
    const results = schema.anyOf.filter((b) => b.type !== 'null').map((b) => disallowedNulls(b, value, path))
    return results.reduce((best, r) => (r.length < best.length ? r : best), results[0] ?? [])
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => (schema.items ? disallowedNulls(schema.items, v, `${path}[${i}]`) : []))
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const pattern = Object.values(schema.patternProperties ?? {})[0]
      const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined
      const field = schema.properties?.[k] ?? pattern ?? extra
      if (field) return disallowedNulls(field, v, `${path}.${k}`)
      // A field a closed object does not describe tells that the value takes another branch of a union.
      return schema.additionalProperties === false ? [`${path}.${k}`] : []
    })
  }
  return []
}

const ANCHOR = Date.UTC(2026, 9, 1)
const route = (operationId: string) => {
  const r = DATA_ROUTES.find((x) => x.operationId === operationId)
  if (!r) throw new Error(`no route ${operationId}`)
  return r
}

describe('disallowedNulls', () => {
  it('finds a null in a string field, inside arrays and unions, and lets nullable ones be', () => {
    const profile = route('getProfile').response as Schema
    expect(disallowedNulls(profile, { profilePictureUrl: null, currentPosition: null })).toEqual(['$.profilePictureUrl'])
    expect(disallowedNulls(profile, { experiences: [{ timePeriod: { startDate: null, endDate: null } }] })).toEqual([
      '$.experiences[0].timePeriod.startDate',
    ])
    const comments = route('getPostComments').response as Schema
    expect(disallowedNulls(comments, { comments: [{ author: { profilePictureUrl: null, publicId: null } }] })).toEqual([
      '$.comments[0].author.profilePictureUrl',
    ])
  })
})

describe('responses over generated networks', () => {
  it('hold no null where the contract types a string or an object', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const records = [...generateNetwork({ seed, size: 24, anchorMs: ANCHOR, platformHost: 'www.linkedin.com' })] as IngestRecord[]
        const t = await makeTestApp({ nowMs: ANCHOR, records })
        try {
          let checked = 0
          const check = async (operationId: string, query: string) => {
            const r = route(operationId)
            const res = await t.get(`${r.url}?${query}`)
            expect(res.statusCode, `${r.url}?${query}: ${res.body}`).toBe(200)
            const body = res.json()
            expectSchema(r.response, body, `${r.url}?${query}`)
            expect(disallowedNulls(r.response as Schema, body), `${r.url}?${query}`).toEqual([])
            checked++
            return body
          }
          const q = encodeURIComponent
          for (const rec of records) {
            if (rec.kind === 'profile') {
              const urn = q(rec.data.id)
              await check('getProfile', `profileUrlOrUrn=${urn}`)
              await check('getPosts', `profileUrlOrUrn=${urn}&count=50`)
              await check('getProfileReactions', `profileUrlOrUrn=${urn}&count=50`)
              await check('getProfileArticles', `profileUrlOrUrn=${urn}&count=100`)
            } else if (rec.kind === 'company') {
              await check('getCompany', `companyUrlOrUrn=${q(rec.data.id)}`)
              await check('getProfile', `profileUrlOrUrn=${q(rec.data.url)}`)
            } else if (rec.kind === 'post' && rec.data.commentCount > 0 && rec.data.repostOf === undefined) {
              await check('getPostEngagement', `postUrlOrUrn=${q(rec.data.shareUrn)}`)
              await check('getPostComments', `postUrlOrUrn=${q(rec.data.id)}`)
              await check('getPostReactions', `postUrlOrUrn=${q(rec.data.id)}`)
            }
          }
          expect(checked).toBeGreaterThan(100)
        } finally {
          await t.close()
        }
      }),
      { numRuns: 3, seed: 20261204 },
    )
  }, 120_000)
})
