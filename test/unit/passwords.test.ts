import { randomBytes, scryptSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hashPassword, needsRehash, passwordProblem, SALT_BYTES, SCRYPT_PARAMS, verifyPassword } from '../../src/identity/passwords.ts'

const salt = () => randomBytes(SALT_BYTES)

describe('password hashing', () => {
  it('stores scrypt with its parameters, salt and hash; today at least N=2^15, r=8, p=1 and a 16-byte salt', async () => {
    const fixedSalt = Buffer.alloc(SALT_BYTES, 7)
    const stored = await hashPassword('correct horse battery', fixedSalt)
    const [scheme, N, r, p, saltText, hash] = stored.split('$')
    expect([scheme, N, r, p]).toEqual(['scrypt', '32768', '8', '1'])
    expect(SCRYPT_PARAMS.N).toBeGreaterThanOrEqual(2 ** 15)
    expect(Buffer.from(saltText ?? '', 'base64url')).toEqual(fixedSalt)
    // The same derivation, made independently: the string holds what it says it holds.
    const expected = scryptSync('correct horse battery', fixedSalt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
    expect(Buffer.from(hash ?? '', 'base64url')).toEqual(expected)
    expect(stored).not.toContain('correct horse battery')
  })

  it('verifies the right password only; two hashes of one password differ by their salt', async () => {
    const a = await hashPassword('correct horse battery', salt())
    const b = await hashPassword('correct horse battery', salt())
    expect(a).not.toBe(b)
    expect(await verifyPassword('correct horse battery', a)).toBe(true)
    expect(await verifyPassword('correct horse battery', b)).toBe(true)
    expect(await verifyPassword('correct horse batterY', a)).toBe(false)
    expect(await verifyPassword('', a)).toBe(false)
  })

  it('reads the parameters from the stored string: a hash made with other ones still verifies, and asks to be made again', async () => {
    const weaker = await hashPassword('correct horse battery', salt(), { N: 2 ** 10, r: 8, p: 1 })
    expect(weaker.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect(await verifyPassword('correct horse battery', weaker)).toBe(true)
    expect(await verifyPassword('wrong horse battery', weaker)).toBe(false)
    expect(needsRehash(weaker)).toBe(true)
    expect(needsRehash(await hashPassword('correct horse battery', salt()))).toBe(false)
  })

  it('one text, however composed (NFC and NFD), is one password', async () => {
    const stored = await hashPassword('Ünïcödé pässwörd', salt())
    expect(await verifyPassword('Ünïcödé pässwörd'.normalize('NFD'), stored)).toBe(true)
  })

  it('a malformed or absurd stored string never verifies (and does not make the node allocate gigabytes)', async () => {
    const good = await hashPassword('correct horse battery', salt())
    const [, , , , s, h] = good.split('$')
    for (const bad of ['', 'plain', `bcrypt$32768$8$1$${s}$${h}`, `scrypt$32767$8$1$${s}$${h}`, `scrypt$${2 ** 24}$8$1$${s}$${h}`, `scrypt$32768$8$1$$${h}`, `scrypt$32768$8$1$${s}$`]) {
      expect(await verifyPassword('correct horse battery', bad)).toBe(false)
      expect(needsRehash(bad)).toBe(true)
    }
  })
})

describe('password policy', () => {
  it('accepts 10 to 200 characters that are not one character repeated', () => {
    expect(passwordProblem('abcdefghij')).toBeUndefined()
    expect(passwordProblem('a'.repeat(9) + 'b')).toBeUndefined()
    expect(passwordProblem('x'.repeat(199) + 'y')).toBeUndefined()
    // Counted in characters: ten emoji are ten, not twenty.
    expect(passwordProblem('🙂🙃🙂🙃🙂🙃🙂🙃🙂🙃')).toBeUndefined()
  })

  it('says why it refuses', () => {
    expect(passwordProblem('short1234')).toBe('must be at least 10 characters long (it has 9).')
    expect(passwordProblem('')).toBe('must be at least 10 characters long (it has 0).')
    expect(passwordProblem('y'.repeat(100) + 'z'.repeat(101))).toBe('must be at most 200 characters long.')
    expect(passwordProblem('a'.repeat(12))).toBe('must not be one character repeated.')
    expect(passwordProblem('🙂'.repeat(10))).toBe('must not be one character repeated.')
  })
})
