/**
 * /openapi.json under Redocly's `recommended` ruleset, as the project's own Redocly CLI (a dev
 * dependency) applies it: no error and no warning. The CLI is run rather than a library, as the
 * ruleset is the CLI's: the @redocly/openapi-core found in node_modules is another package's older
 * copy, whose `recommended` leaves out rules the CLI's has (the validity of examples among them).
 *
 * Two descriptions are linted: the API with every optional part (admin API, live source, test
 * clock) at a public address of its own, and the customer API alone (no admin token).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pronet-openapi-lint-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BASE_ENV = { PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 'test-secret', PRONET_DATA_DIR: '/nonexistent-test-dir' }

/** The /openapi.json an app built with `env` serves. */
async function describedBy(env: Record<string, string>): Promise<string> {
  const c = await createContainer(loadConfig({ ...BASE_ENV, ...env }), { sqlitePath: ':memory:' })
  const app = await buildApp(c)
  try {
    const res = await app.inject('/openapi.json')
    expect(res.statusCode).toBe(200)
    return res.body
  } finally {
    await app.close()
    await c.close()
  }
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number }
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[]
}

/** Redocly's report on a description, with the `recommended` rules and no configuration file of the project's. */
async function lint(name: string, text: string): Promise<LintReport> {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, text)
  // No telemetry and no update check: the run reads the file and nothing else.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' }
  const stdout = await new Promise<string>((resolve, reject) => {
    // It exits 1 when it finds problems: the report is read either way.
    execFile(process.execPath, [REDOCLY, 'lint', '--extends=recommended', '--format=json', file], { cwd: dir, env, timeout: 60_000 }, (error, out, err) => {
      if (out.trim().startsWith('{')) resolve(out)
      else reject(new Error(`redocly gave no report: ${error?.message ?? ''}\n${err}`))
    })
  })
  return JSON.parse(stdout) as LintReport
}

describe("/openapi.json under Redocly's recommended rules", () => {
  it('has no error and no warning, with every optional part and with the customer API alone', async () => {
    const [everything, customer] = await Promise.all([
      describedBy({
        PRONET_ADMIN_TOKEN: 'lint-admin-token',
        PRONET_PUBLIC_URL: 'https://data.pronet.test',
        PRONET_SOURCE: 'upstream',
        PRONET_UPSTREAM_URL: 'http://127.0.0.1:9',
        PRONET_UPSTREAM_KEY: 'pk_upstream-key-for-tests',
        PRONET_UPSTREAM_RPS: '5',
        PRONET_TEST_CLOCK: '1',
      }),
      describedBy({}),
    ])
    expect(JSON.parse(everything).paths['/admin/v1/upstream']).toBeDefined()
    expect(Object.keys(JSON.parse(customer).paths).some((p) => p.startsWith('/admin'))).toBe(false)
    const reports = await Promise.all([lint('everything', everything), lint('customer', customer)])
    for (const [name, report] of [['everything', reports[0]], ['customer', reports[1]]] as const) {
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
      expect(problems, `${name}: ${problems.join('\n')}`).toEqual([])
      expect(report.totals, name).toEqual({ errors: 0, warnings: 0, ignored: 0 })
    }
  }, 60_000)
})
