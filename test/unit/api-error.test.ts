/**
 * An ApiError is an answer to a client, built on every refused call: it collects no stack trace,
 * and leaves stack traces of every other error as they were.
 */
import { describe, expect, it } from 'vitest'
import { ApiError, serviceUnavailable } from '../../src/domain/errors.ts'

describe('ApiError', () => {
  it('collects no stack frames', () => {
    const refused = new ApiError('RATE_LIMITED', 'Too many requests.', undefined, { 'retry-after': '1' })
    expect(refused.stack).not.toMatch(/\n\s+at /)
    expect(serviceUnavailable('Busy.').stack).not.toMatch(/\n\s+at /)
    expect([refused.status, refused.code, refused.message, refused.name]).toEqual([429, 'RATE_LIMITED', 'Too many requests.', 'ApiError'])
    expect(refused).toBeInstanceOf(Error)
  })

  it("leaves other errors' stacks, and the process's limit, as they were", () => {
    const before = Error.stackTraceLimit
    new ApiError('NOT_FOUND', 'No such record.')
    expect(Error.stackTraceLimit).toBe(before)
    expect(new Error('a fault').stack).toMatch(/\n\s+at /)
  })
})
