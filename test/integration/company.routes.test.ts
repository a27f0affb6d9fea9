import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompanyBatchResponse } from '../../src/contract/endpoints.schemas.ts'
import { CompanySchema } from '../../src/contract/resources.schemas.ts'
import { AUTHOR_ID, COMPANY_ID, FIXTURE_NOW, companyRecord, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
const q = encodeURIComponent
const school = { ...companyRecord('2040'), name: 'Leeds School of Data', publicIdentifier: 'leeds-data', url: 'https://www.linkedin.com/school/leeds-data/', pageType: 'school' as const }
const { publicIdentifier: _p, name: _n, ...bare } = companyRecord('3050')
const noSlug = { ...bare, url: 'https://www.linkedin.com/company/3050/' }

beforeAll(async () => {
  t = await makeTestApp({
    nowMs: FIXTURE_NOW,
    records: [...fixtureRecords(), { kind: 'company', data: school }, { kind: 'company', data: noSlug }],
  })
})
afterAll(async () => t.close())

const batch = (payload: unknown, raw?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/company/batch',
    headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
    payload: raw ?? JSON.stringify(payload),
  })

describe('GET /api/v1/company', () => {
  it('answers by URL, slug, URN, school URL and numeric URL; optional fields stay absent', async () => {
    for (const form of ['https://www.linkedin.com/company/northwind-1035/', 'northwind-1035', `urn:li:fsd_company:${COMPANY_ID}`, 'www.linkedin.com/company/NORTHWIND-1035?x=1']) {
      const res = await t.get(`/api/v1/company?companyUrlOrUrn=${q(form)}`)
      expect(res.statusCode, form).toBe(200)
      expectSchema(CompanySchema, res.json())
      expect(res.json().companyId).toBe(COMPANY_ID)
    }
    expect((await t.get(`/api/v1/company?companyUrlOrUrn=${q('https://www.linkedin.com/school/leeds-data/')}`)).json().companyId).toBe('2040')
    const numeric = (await t.get(`/api/v1/company?companyUrlOrUrn=${q('https://www.linkedin.com/company/3050/')}`)).json()
    expectSchema(CompanySchema, numeric)
    expect('name' in numeric).toBe(false)
    expect('publicIdentifier' in numeric).toBe(false)
  })

  it('refusals', async () => {
    expectError(await t.get('/api/v1/company'), 400, 'MISSING_PARAMETER')
    expectError(await t.get(`/api/v1/company?companyUrlOrUrn=${q('https://www.linkedin.com/in/member-1/')}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/company?companyUrlOrUrn=${q(`urn:li:fsd_profile:${AUTHOR_ID}`)}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/company?companyUrlOrUrn=${q('urn:li:fsd_company:abc')}`), 400, 'INVALID_URN')
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost-co'), 404, 'COMPANY_NOT_FOUND')
  })
})

describe('POST /api/v1/company/batch', () => {
  it('one result per distinct input in input order, per-entry errors inside a 200', async () => {
    const res = await batch({ companies: ['northwind-1035', ' NORTHWIND-1035 ', 'ghost-co', 'https://www.linkedin.com/in/member-1', 'urn:li:fsd_company:x', 'leeds-data'] })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expectSchema(CompanyBatchResponse, body)
    expect(body.results.map((r: { input: string }) => r.input)).toEqual(['northwind-1035', 'ghost-co', 'https://www.linkedin.com/in/member-1', 'urn:li:fsd_company:x', 'leeds-data'])
    expect(body.results[0].company.companyId).toBe(COMPANY_ID)
    expect(body.results[1].error).toMatchObject({ code: 'COMPANY_NOT_FOUND', status: 404 })
    expect(body.results[2].error).toMatchObject({ code: 'INVALID_PARAMETER', status: 400 })
    expect(body.results[3].error).toMatchObject({ code: 'INVALID_URN', status: 400 })
    expect(body).toMatchObject({ found: 2, notFound: 1, failed: 2 })
  })

  it('whole-request refusals with the spec message patterns', async () => {
    const tooMany = Array.from({ length: 51 }, (_, i) => `c${i}`)
    const e1 = expectError(await batch({ companies: tooMany }), 400, 'INVALID_PARAMETER')
    expect(e1.error).toBe("'companies' accepts at most 50 entries (received 51).")
    const e2 = expectError(await batch({ companies: ['ok', ''] }), 400, 'INVALID_PARAMETER')
    expect(e2.error).toBe("'companies[1]' must be a non-empty string.")
    const e3 = expectError(await batch({ companies: ['ok', 7] }), 400, 'INVALID_PARAMETER')
    expect(e3.error).toBe("'companies[1]' must be a non-empty string.")
    expectError(await batch({ companies: ['   '] }), 400, 'INVALID_PARAMETER')
    expectError(await batch({}), 400, 'INVALID_PARAMETER')
    expectError(await batch({ companies: [] }), 400, 'INVALID_PARAMETER')
    expectError(await batch({ companies: 'northwind-1035' }), 400, 'INVALID_PARAMETER')
    expectError(await batch(undefined, '{"companies": ["a",'), 400, 'INVALID_PARAMETER')
    expectError(await batch(undefined, '[]'), 400, 'INVALID_PARAMETER')
    expectError(await batch(undefined, 'null'), 400, 'INVALID_PARAMETER')
    const wrongType = await t.app.inject({ method: 'POST', url: '/api/v1/company/batch', headers: { 'x-api-key': t.key, 'content-type': 'text/plain' }, payload: '{"companies":["northwind-1035"]}' })
    expectError(wrongType, 400, 'INVALID_PARAMETER')
    expect(wrongType.json().error).toMatch(/content type; send application\/json/)
    const huge = await batch(undefined, JSON.stringify({ companies: ['a'], pad: 'x'.repeat(1024 * 1024) }))
    expectError(huge, 400, 'INVALID_PARAMETER')
  })
})
