/**
 * The embedded data dir's claim (src/config/serving-claim.ts): a lock held while serving, so a second
 * claim is refused whatever the pid file says, and a released (or dead) holder leaves nothing behind.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { claimDataDir } from '../../src/config/serving-claim.ts'
import { StartupError } from '../../src/config/startup-failure.ts'

const dir = mkdtempSync(join(tmpdir(), 'pronet-claim-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('claimDataDir', () => {
  it('refuses a second claim while the first holds, names the holder, and is free again once released', () => {
    // A stale pid file (a server that was killed) is no claim.
    writeFileSync(join(dir, 'server.pid'), '999999\n')
    const release = claimDataDir(dir)
    expect(readFileSync(join(dir, 'server.pid'), 'utf8')).toBe(`${process.pid}\n`)
    expect(() => claimDataDir(dir)).toThrow(StartupError)
    expect(() => claimDataDir(dir)).toThrow(`is served already, by process ${process.pid}: one process serves an embedded store`)
    release()
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
    const again = claimDataDir(dir)
    again()
    // Released twice: nothing more happens.
    expect(() => again()).not.toThrow()
  })
})
