/** makeDirs (src/config/make-dirs.ts): `mkdir -p` that ends with the system's refusal instead of spinning. */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeDirs } from '../../src/config/make-dirs.ts'

const dir = mkdtempSync(join(tmpdir(), 'pronet-dirs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('makeDirs', () => {
  it('makes every missing directory down to the one named, and leaves existing ones as they are', () => {
    const deep = join(dir, 'a', 'b', 'c')
    makeDirs(deep)
    expect(statSync(deep).isDirectory()).toBe(true)
    makeDirs(deep)
    makeDirs(join(dir, 'a'))
    expect(statSync(deep).isDirectory()).toBe(true)
  })

  it('throws the refusal of a directory under a regular file (ENOTDIR)', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'x')
    expect(() => makeDirs(join(file, 'data', 'more'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }))
    expect(existsSync(join(file, 'data'))).toBe(false)
  })

  // Node's recursive mkdirSync never returned here (it retried the ENOENT for ever).
  it.runIf(existsSync('/proc/self'))('throws ENOENT at once where the system refuses a directory whose parent exists (/proc)', () => {
    expect(() => makeDirs('/proc/pronet-no-such-dir/data')).toThrow(expect.objectContaining({ code: 'ENOENT' }))
  })
})
