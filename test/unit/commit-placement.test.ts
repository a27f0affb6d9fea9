import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { commitsInWorker } from '../../src/container.ts'

describe('where the embedded ledger commits (PRONET_COMMIT_WORKER)', () => {
  it('auto (the default) uses the worker thread only with more than two CPUs', () => {
    const config = loadConfig({})
    expect(config.commitWorker).toBe('auto')
    expect(commitsInWorker(config, { cpus: 1 })).toBe(false)
    expect(commitsInWorker(config, { cpus: 2 })).toBe(false)
    expect(commitsInWorker(config, { cpus: 3 })).toBe(true)
    expect(commitsInWorker(config, { cpus: 16 })).toBe(true)
  })

  it('on and off decide whatever the CPUs; a caller that chooses (the CLI) wins', () => {
    expect(commitsInWorker(loadConfig({ PRONET_COMMIT_WORKER: 'on' }), { cpus: 1 })).toBe(true)
    expect(commitsInWorker(loadConfig({ PRONET_COMMIT_WORKER: 'off' }), { cpus: 64 })).toBe(false)
    expect(commitsInWorker(loadConfig({ PRONET_COMMIT_WORKER: 'on' }), { commitInWorker: false })).toBe(false)
    expect(commitsInWorker(loadConfig({ PRONET_COMMIT_WORKER: 'off' }), { commitInWorker: true })).toBe(true)
  })

  it('any other value is an invalid environment', () => {
    expect(() => loadConfig({ PRONET_COMMIT_WORKER: 'yes' })).toThrow(ConfigError)
    expect(() => loadConfig({ PRONET_COMMIT_WORKER: 'yes' })).toThrow(/^invalid environment: PRONET_COMMIT_WORKER /)
  })
})
