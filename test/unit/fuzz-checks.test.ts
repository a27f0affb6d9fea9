/**
 * The fuzz suite's judge of answers (test/helpers/fuzz-checks.ts) on answers made up here: each kind
 * of wrong answer it exists to catch is caught, and a right one passes. A judge that passed everything
 * would let the fuzz suite pass whatever the API did.
 */
import type { LightMyRequestResponse } from 'fastify'
import Type from 'typebox'
import { describe, expect, it } from 'vitest'
import { ERROR_STATUS } from '../../src/domain/errors.ts'
import { checkResponse, type CheckContext } from '../helpers/fuzz-checks.ts'
import type { Operation } from '../helpers/fuzz-operations.ts'
import type { FuzzRequest } from '../helpers/fuzz-requests.ts'

const PROFILE: Operation = {
  key: 'GET /api/v1/profile',
  method: 'GET',
  path: '/api/v1/profile',
  family: 'data',
  security: 'apiKey',
  query: [],
  params: [],
  body: undefined,
  bodyRequired: false,
  responses: new Map<number, readonly string[]>([
    [200, []],
    [400, ['MISSING_PARAMETER', 'INVALID_PARAMETER', 'INVALID_URN']],
    [401, ['UNAUTHENTICATED', 'INVALID_API_KEY']],
    [404, ['PROFILE_NOT_FOUND']],
  ]),
}

const ctx: CheckContext = {
  errorStatus: ERROR_STATUS,
  operations: new Map([[PROFILE.key, PROFILE]]),
  successSchemas: new Map([[PROFILE.key, Type.Object({ name: Type.String() }, { additionalProperties: false })]]),
}

const call = (over: Partial<FuzzRequest> = {}): FuzzRequest => ({
  target: PROFILE.key,
  kind: 'valid',
  who: 'main',
  method: 'GET',
  url: '/api/v1/profile?profileUrlOrUrn=member-1',
  headers: {},
  exact: true,
  advanceMs: 0,
  ...over,
})

const answer = (statusCode: number, body: unknown, headers: Record<string, string> = {}): LightMyRequestResponse =>
  ({
    statusCode,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1', 'x-credits-charged': '0', ...headers },
  }) as unknown as LightMyRequestResponse

const problems = (res: LightMyRequestResponse, req = call()) => checkResponse(req, res, ctx)

describe('the fuzz suite judges answers', () => {
  it('passes right answers: a delivered record, a refusal in the envelope, a billed 404', () => {
    expect(problems(answer(200, { name: 'Ada' }, { 'x-credits-charged': '1' }))).toEqual([])
    expect(problems(answer(400, { error: 'Missing.', code: 'MISSING_PARAMETER', details: { parameter: 'profileUrlOrUrn' } }))).toEqual([])
    expect(problems(answer(404, { error: 'No profile.', code: 'PROFILE_NOT_FOUND' }, { 'x-credits-charged': '1' }))).toEqual([])
  })

  it('fails any 5xx, a 503 included', () => {
    expect(problems(answer(500, { error: 'x', code: 'INTERNAL_ERROR' }))).toContain('status 500')
    expect(problems(answer(503, { error: 'x', code: 'SERVICE_UNAVAILABLE' }))).toContain('status 503')
  })

  it('fails a code that comes with another status than the catalogue gives it, and a code not in the catalogue', () => {
    expect(problems(answer(400, { error: 'x', code: 'PROFILE_NOT_FOUND' }))).toContain('code PROFILE_NOT_FOUND came with 400; the catalogue says 404')
    expect(problems(answer(400, { error: 'x', code: 'BAD_THING' }))).toContain('code BAD_THING is not in the catalogue')
  })

  it('fails an error outside the envelope: not JSON, other fields, no text, details not an object', () => {
    expect(problems(answer(400, 'Bad Request')).join()).toMatch(/not a JSON object/)
    expect(problems(answer(400, { error: 'x', code: 'INVALID_PARAMETER', statusCode: 400 })).join()).toMatch(/other fields: statusCode/)
    expect(problems(answer(400, { code: 'INVALID_PARAMETER' })).join()).toMatch(/without an error text/)
    expect(problems(answer(400, { error: 'x', code: 'INVALID_PARAMETER', details: ['a'] })).join()).toMatch(/details is not an object/)
    expect(problems(answer(400, { error: 'x', code: 'INVALID_PARAMETER' }, { 'content-type': 'text/html' })).join()).toMatch(/answered as text\/html/)
  })

  it('fails an error that shows a stack, a source path or driver text', () => {
    const leaks = [
      'TypeError: Cannot read properties of undefined\n    at parse (/work/main/src/x.ts:3:9)',
      'Failed\n    at Object.handler',
      'could not read /srv/app/node_modules/pg/lib/client.js',
      'SQLITE_ERROR: no such column',
      'syntax error at or near "LIMIT"',
    ]
    for (const error of leaks) expect(problems(answer(400, { error, code: 'INVALID_PARAMETER' })).join(), error).toMatch(/error body shows/)
  })

  it('fails an API answer without X-Credits-Charged or X-Request-Id, and a refusal that charged', () => {
    const bare = answer(200, { name: 'Ada' })
    delete (bare.headers as Record<string, unknown>)['x-credits-charged']
    delete (bare.headers as Record<string, unknown>)['x-request-id']
    expect(problems(bare)).toEqual(expect.arrayContaining(['X-Credits-Charged is undefined', 'no X-Request-Id']))
    expect(problems(answer(400, { error: 'x', code: 'INVALID_URN' }, { 'x-credits-charged': '1' })).join()).toMatch(/charged 1 credits/)
  })

  it("fails a success body that does not match its schema, and a status or code its operation does not document", () => {
    expect(problems(answer(200, { name: 'Ada', stray: 1 })).join()).toMatch(/does not match its schema/)
    expect(problems(answer(404, { error: 'x', code: 'NOT_FOUND' })).join()).toMatch(/code NOT_FOUND is not documented for 404/)
    expect(problems(answer(429, { error: 'x', code: 'RATE_LIMITED' })).join()).toMatch(/status 429 is not documented/)
  })

  it('holds the known answers: a refused key is a 401, an unknown path a 404', () => {
    const noKey = call({ kind: 'auth', who: 'none' })
    expect(problems(answer(200, { name: 'Ada' }), noKey).join()).toMatch(/must be 401 UNAUTHENTICATED/)
    expect(problems(answer(401, { error: 'x', code: 'UNAUTHENTICATED' }), noKey)).toEqual([])
    const unknown = call({ kind: 'unknown-path', target: 'unknown', exact: false, url: '/api/v1/nothing' })
    expect(problems(answer(400, { error: 'x', code: 'INVALID_PARAMETER' }), unknown).join()).toMatch(/must be 404 NOT_FOUND/)
    expect(problems(answer(404, { error: 'x', code: 'NOT_FOUND' }), unknown)).toEqual([])
  })
})
