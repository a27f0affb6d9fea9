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

/** The tour's two shell blocks: the setup (the exports and the pacing it defines) and the calls. */
function tourBlocks(): { setup: string; tour: string } {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## A five-minute tour'))
  const block = (from: number) => {
    const start = section.indexOf('```sh\n', from)
    return { text: section.slice(start + 6, section.indexOf('```', start + 6)), end: section.indexOf('```', start + 6) + 3 }
  }
  const setup = block(0)
  return { setup: setup.text, tour: block(setup.end).text }
}

beforeAll(async () => {
  const config = loadConfig({ PRONET_SEED: 'small', LOG_LEVEL: 'silent', PRONET_SECRET: 'tour', PRONET_DATA_DIR: '/nonexistent-tour' })
  // Real time running from the network's anchor: the tour's account is the demo account's free plan
  // (5 calls per second), which the README's setup block paces the calls under.
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
    const { setup, tour } = tourBlocks()
    const lines = tour.split('\n')
    const expected: { line: string; status: string }[] = []
    // The setup block as written, but for where the key and the server are; the calls then run as
    // pasted, back to back, paced only by what the setup defines (the demo's free plan: 5 a second).
    const own = setup.split('\n').filter((l) => !/^export (KEY|API)=/.test(l.trim()))
    const script = [`set -u`, `KEY='${key}'`, `API='http://127.0.0.1:${port}/api/v1'`, ...own]
    for (const line of lines) {
      const t = line.trim()
      if (t.startsWith('curl ')) {
        const m = /#\s*→\s*(\d{3})/.exec(t)
        expect(m, `tour line without an expected status: ${t}`).not.toBeNull()
        expected.push({ line: t, status: (m as RegExpExecArray)[1] as string })
        const command = t.replace(/\s+#\s*→.*$/, '')
        script.push(`${command} -o /dev/null -w '%{http_code}\\n'`)
      } else if (t !== '' && !t.startsWith('#')) {
        script.push(t)
      }
    }
    expect(expected.length).toBeGreaterThanOrEqual(12)
    const { stdout } = await run('bash', ['-c', script.join('\n')], { timeout: 60_000 })
    const got = stdout.trim().split('\n')
    expect(got.length).toBe(expected.length)
    expected.forEach((e, i) => expect(`${got[i]} ${e.line}`).toBe(`${e.status} ${e.line}`))
  })
})
