/**
 * Who a fuzzed call claims to be: mostly the roomy account's key (so calls get past the gateway and
 * reach the stores), sometimes the small account's (402s) or a sandbox account's (one the admin calls
 * suspend, cancel or take keys from), and sometimes no key, a wrong, revoked or doubled key, or a key
 * in the wrong header. The admin API gets its token, a wrong one, or none.
 */
import fc from 'fast-check'

export type Who =
  | 'main'
  | 'small'
  | 'sandbox'
  | 'revoked'
  | 'none'
  | 'wrong'
  | 'doubled'
  | 'bearer'
  | 'admin'
  | 'no-admin'
  | 'wrong-admin'

export const VALID_WHO: ReadonlySet<Who> = new Set(['main', 'small', 'sandbox', 'admin'])

export interface Credentials {
  main: string
  small: string
  revoked: string
  sandbox: readonly string[]
  adminToken: string
}

export interface Auth {
  who: Who
  headers: Record<string, string | string[]>
}

const auth = (who: Who, headers: Record<string, string | string[]> = {}): Auth => ({ who, headers })

/** Key text that is not a key: empty, blank, cut, padded, cased, random, long. */
function wrongKeys(main: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('', ' ', '\t', 'pk_', 'null', 'undefined', 'pk_\u00e9\u00ff', main.slice(0, -1), `${main}x`, main.toUpperCase(), main.split('').reverse().join('')),
    fc.stringMatching(/^[\x21-\x7E]{1,64}$/),
    fc.integer({ min: 200, max: 9_000 }).map((n) => 'k'.repeat(n)),
  )
}

/** Credentials for a call with an API key; `invalid` leaves out every key that would be accepted. */
export function keyAuth(c: Credentials, invalid = false): fc.Arbitrary<Auth> {
  const refused = [
    { weight: 2, arbitrary: fc.constant(auth('revoked', { 'x-api-key': c.revoked })) },
    { weight: 2, arbitrary: fc.constant(auth('none')) },
    { weight: 3, arbitrary: wrongKeys(c.main).map((k) => auth('wrong', { 'x-api-key': k })) },
    { weight: 1, arbitrary: fc.constantFrom([c.main, c.main], [c.main, c.small], [c.main, '']).map((keys) => auth('doubled', { 'x-api-key': [...keys] })) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer ${c.main}`, c.main).map((v) => auth('bearer', { authorization: v })) },
  ]
  if (invalid) return fc.oneof(...refused)
  return fc.oneof(
    { weight: 76, arbitrary: fc.constant(auth('main', { 'x-api-key': c.main })) },
    // Surrounding blanks are not part of a key.
    { weight: 2, arbitrary: fc.constantFrom(` ${c.main}`, `${c.main} `, `\t${c.main}`).map((k) => auth('main', { 'x-api-key': k })) },
    { weight: 8, arbitrary: fc.constant(auth('small', { 'x-api-key': c.small })) },
    { weight: 4, arbitrary: fc.constantFrom(...c.sandbox).map((k) => auth('sandbox', { 'x-api-key': k })) },
    ...refused,
  )
}

/** Credentials for a call to the admin API. */
export function adminAuth(c: Credentials, invalid = false): fc.Arbitrary<Auth> {
  const refused = [
    { weight: 3, arbitrary: fc.constantFrom(auth('no-admin'), auth('no-admin', { 'x-api-key': c.main })) },
    {
      weight: 5,
      arbitrary: fc
        .oneof(
          fc.constantFrom('Bearer', 'Bearer ', '', c.adminToken, `Basic ${c.adminToken}`, `Bearer ${c.adminToken}x`, `Bearer ${c.adminToken.toUpperCase()}`, `Bearer ${c.main}`),
          fc.stringMatching(/^[\x21-\x7E]{1,40}$/).map((s) => `Bearer ${s}`),
        )
        .map((v) => auth('wrong-admin', { authorization: v })),
    },
  ]
  if (invalid) return fc.oneof(...refused)
  return fc.oneof(
    { weight: 88, arbitrary: fc.constantFrom(`Bearer ${c.adminToken}`, `bearer ${c.adminToken}`, `Bearer  ${c.adminToken}`).map((v) => auth('admin', { authorization: v })) },
    ...refused,
  )
}
