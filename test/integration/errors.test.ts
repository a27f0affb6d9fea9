/** Failures the client should never see the inside of. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

describe('unexpected failures', () => {
  it('a store failure is a 500 INTERNAL_ERROR envelope, with no stack, SQL or driver text', async () => {
    const key = t.key
    await t.get('/api/v1/company?companyUrlOrUrn=warm-up', key)
    // Pull the floor out from under the next request: the database handle goes away.
    await t.c.close()
    const res = await t.get('/api/v1/company?companyUrlOrUrn=anything-else', key)
    const body = expectError(res, 500, 'INTERNAL_ERROR')
    expect(JSON.stringify(body)).not.toMatch(/database|sqlite|connection|Error:/i)
  })
})

describe('configuration', () => {
  it('refuses bad environment values with a clear message', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError)
    expect(() => loadConfig({ PRONET_SEED: 'huge' })).toThrow(/PRONET_SEED/)
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(ConfigError)
    expect(loadConfig({}).port).toBe(3000)
    expect(loadConfig({ PRONET_SEED: '500' }).seed).toBe(500)
  })
})
