import { describe, expect, it } from 'vitest'
import { classifyPgError, isPgUnavailable } from '../../src/adapters/postgres/pg-errors.ts'
import { classifySqliteError } from '../../src/adapters/sqlite/sqlite-errors.ts'
import { toApiError } from '../../src/http/error-handler.ts'

const err = (props: Record<string, unknown>, message = 'boom') => Object.assign(new Error(message), props)

describe('store failures that mean "unavailable, retry"', () => {
  it('PostgreSQL: connection, shutdown, resource and timeout failures are 503 with Retry-After', () => {
    const unavailable = [
      err({ code: 'ECONNREFUSED' }),
      err({ code: '57P01' }, 'terminating connection due to administrator command'),
      err({ code: '57P03' }, 'the database system is starting up'),
      err({ code: '08006' }),
      err({ code: '53300' }, 'too many connections'),
      err({ code: '57014' }, 'canceling statement due to statement timeout'),
      err({ code: '55000' }, 'database "pronet" is not currently accepting connections'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new AggregateError([err({ code: 'ECONNREFUSED' })]), {}),
    ]
    for (const e of unavailable) {
      expect(isPgUnavailable(e), String(e)).toBe(true)
      const api = classifyPgError(e)
      expect(api?.code).toBe('SERVICE_UNAVAILABLE')
      expect(api?.status).toBe(503)
      expect(api?.headers?.['retry-after']).toBe('2')
    }
  })

  it('PostgreSQL: constraint and syntax errors are not outages', () => {
    for (const e of [err({ code: '23505' }), err({ code: '42601' }), err({ code: '55000' }, 'cannot change a sequence now'), err({ code: '40001' }), new Error('something else'), null, 'text']) {
      expect(classifyPgError(e)).toBeUndefined()
    }
  })

  it('SQLite: a busy or locked file is 503; other failures are not', () => {
    expect(classifySqliteError(err({ code: 'SQLITE_BUSY' }))?.status).toBe(503)
    expect(classifySqliteError(err({ code: 'SQLITE_LOCKED' }))?.headers?.['retry-after']).toBe('1')
    expect(classifySqliteError(err({ code: 'SQLITE_CONSTRAINT_CHECK' }))).toBeUndefined()
    expect(classifySqliteError(new Error('x'))).toBeUndefined()
  })

  it('the error handler renders a classified failure as 503 and anything else as a 500 without internals', () => {
    const busy = toApiError(err({ code: 'SQLITE_BUSY' }, 'database is locked'), classifySqliteError)
    expect(busy.toBody()).toEqual({ error: expect.stringMatching(/busy/), code: 'SERVICE_UNAVAILABLE' })
    const other = toApiError(err({ code: 'SQLITE_CORRUPT' }, 'database disk image is malformed'), classifySqliteError)
    expect(other.toBody()).toEqual({ error: expect.not.stringMatching(/malformed|SQLITE/), code: 'INTERNAL_ERROR' })
  })
})
