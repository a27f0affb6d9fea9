/**
 * The README's five-minute tour, run as written (bash + curl) against a real listening server on the
 * default synthetic network (seed 1, size small). Each curl line states its expected status in a
 * trailing `# → NNN` comment; the test checks every one, so the README cannot drift from the product.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOffsetClock } from '../../src/adapters/system-clock.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import { seedSynthetic } from '../../src/seed.ts'
import type { FastifyInstance } from 'fastify'

const run = promisify(execFile)
let c: Container
let app: FastifyInstance
let key: string
let port: number

function tourBlock(): string {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## A five-minute tour'))
  const start = section.indexOf('```sh\n', section.indexOf('export API='))
  return section.slice(start + 6, section.indexOf('```', start + 6))
}

beforeAll(async () => {
  const config = loadConfig({ PRONET_SEED: 'small', LOG_LEVEL: 'silent', PRONET_SECRET: 'tour', PRONET_DATA_DIR: '/nonexistent-tour' })
  // Real time running from the network's anchor: the tour's account is the demo account's free plan
  // (5 calls per second), and the script paces itself like a person would.
  const clock = createOffsetClock()
  clock.set(Date.UTC(2026, 10, 1))
  c = await createContainer(config, { clock, sqlitePath: ':memory:' })
  await seedSynthetic(c, 'small', () => {}, { progress: false })
  key = (await c.accounts.create({ name: 'tour' })).apiKey.key
  app = await buildApp(c)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  port = typeof address === 'object' && address ? address.port : 0
}, 120_000)

afterAll(async () => {
  await app?.close()
  await c?.close()
})

describe('README tour', () => {
  it('every curl answers with the status the README states', async () => {
    const lines = tourBlock().split('\n')
    const expected: { line: string; status: string }[] = []
    const script = [`set -u`, `KEY='${key}'`, `API='http://127.0.0.1:${port}/api/v1'`]
    for (const line of lines) {
      const t = line.trim()
      if (t.startsWith('curl ')) {
        const m = /#\s*→\s*(\d{3})/.exec(t)
        expect(m, `tour line without an expected status: ${t}`).not.toBeNull()
        expected.push({ line: t, status: (m as RegExpExecArray)[1] as string })
        const command = t.replace(/\s+#\s*→.*$/, '')
        script.push(`${command} -o /dev/null -w '%{http_code}\\n'`, 'sleep 0.5')
      } else if (t !== '' && !t.startsWith('#')) {
        script.push(t, 'sleep 0.5')
      }
    }
    expect(expected.length).toBeGreaterThanOrEqual(12)
    const { stdout } = await run('bash', ['-c', script.join('\n')], { timeout: 60_000 })
    const got = stdout.trim().split('\n')
    expect(got.length).toBe(expected.length)
    expected.forEach((e, i) => expect(`${got[i]} ${e.line}`).toBe(`${e.status} ${e.line}`))
  })
})
