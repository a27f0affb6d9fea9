/**
 * What a startup failure prints of DATABASE_URL (src/config/startup-failure.ts): never a password,
 * wherever the URL carries one the driver would use.
 */
import { describe, expect, it } from 'vitest'
import { databaseFailure, redactUrl } from '../../src/config/startup-failure.ts'

describe('redactUrl', () => {
  it('hides the password of the user part', () => {
    expect(redactUrl('postgres://pronet:s3cret@db:5432/pronet')).toBe('postgres://pronet:***@db:5432/pronet')
  })

  it('hides a password given in the query string, which the driver uses as well', () => {
    const raw = 'postgres://pronet@db:5432/pronet?password=s3cret&sslpassword=k3y&application_name=pronet'
    // pg (pg-connection-string) connects with these query parameters as the password and key passphrase.
    const shown = redactUrl(raw)
    expect(shown).not.toMatch(/s3cret|k3y/)
    expect(shown).toBe('postgres://pronet@db:5432/pronet?password=***&sslpassword=***&application_name=pronet')
    expect(databaseFailure(raw, new Error('x')).message).not.toMatch(/s3cret|k3y/)
  })

  it('keeps a URL without a password as it is', () => {
    expect(redactUrl('postgres://pronet@db/pronet?application_name=pronet')).toBe('postgres://pronet@db/pronet?application_name=pronet')
  })
})
