/**
 * Failures of a store that cannot be reached are one event however many calls meet them
 * (outage-log.ts): the first of a kind is a warn line without a stack, the rest are folded into at
 * most one line per interval, which says how many there were. Other failures still log each at error.
 */
import Fastify from 'fastify'
import type { Logger } from 'pino'
import { describe, expect, it } from 'vitest'
import { classifyPgError } from '../../src/adapters/postgres/pg-errors.ts'
import { registerErrorHandling } from '../../src/http/error-handler.ts'
import { createOutageLog } from '../../src/http/outage-log.ts'

interface Line {
  level: string
  obj: Record<string, unknown>
  msg: string
}

function recordingLogger() {
  const lines: Line[] = []
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg })
  const logger = { warn: at('warn'), error: at('error'), debug: at('debug'), info: at('info') } as unknown as Logger
  return { lines, logger }
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5441'), { code: 'ECONNREFUSED' })

describe('createOutageLog', () => {
  it('logs the first failure of a kind, folds the rest within the interval, then says how many it folded', () => {
    const { lines, logger } = recordingLogger()
    let t = 0
    const log = createOutageLog(logger, () => t, 10_000)
    for (let i = 0; i < 5; i++) log(refused(), { url: '/a' }, 'unreachable')
    expect(lines).toEqual([{ level: 'warn', obj: { cause: 'connect ECONNREFUSED 127.0.0.1:5441', causeCode: 'ECONNREFUSED', url: '/a' }, msg: 'unreachable' }])
    // Another cause is another kind.
    log(new Error('Query read timeout'), { url: '/b' }, 'unreachable')
    expect(lines).toHaveLength(2)
    t = 10_000
    log(refused(), { url: '/c' }, 'unreachable')
    expect(lines).toHaveLength(3)
    expect(lines[2]?.obj).toMatchObject({ url: '/c', moreSinceLastLine: 4 })
    expect(lines.every((l) => !('err' in l.obj) && !('stack' in l.obj))).toBe(true)
  })
})

describe('the error handler and a store that cannot be reached', () => {
  it('answers each call 503 and logs one warn line; any other failure is still an error line with its cause', async () => {
    const { lines, logger } = recordingLogger()
    const app = Fastify()
    registerErrorHandling(app, logger, undefined, classifyPgError)
    app.get('/down', async () => {
      throw refused()
    })
    app.get('/bug', async () => {
      throw new TypeError('x is undefined')
    })
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({ url: '/down' })
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
      expect(res.headers['retry-after']).toBe('2')
    }
    expect(lines.map((l) => l.level)).toEqual(['warn'])
    expect((await app.inject({ url: '/bug' })).statusCode).toBe(500)
    expect(lines.map((l) => l.level)).toEqual(['warn', 'error'])
    expect(lines[1]?.obj.err).toBeInstanceOf(TypeError)
    await app.close()
  })
})
