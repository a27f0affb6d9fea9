/**
 * What the console's pages offer and say, on every backend: the members page offers no change that
 * would leave the account without an owner; each key's Revoke button names its key; the billing page
 * gives the price of each call from the table the API bills by, an operator's prices included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profileRecord } from '../helpers/ingest-fixtures.ts'
import { ConsoleClient } from '../helpers/console-client.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, env: { PRONET_PRICES: '{"profile": 3, "post/engagement": 5}' }, records: [{ kind: 'profile', data: profileRecord(1) }] })
})
afterAll(async () => t?.close())

/** The members table's row of `email`, and the role and remove forms it offers. */
function memberRow(body: string, email: string): { role: boolean; remove: boolean; text: string } {
  const row = [...body.matchAll(/<tr><td[^>]*>[\s\S]*?<\/tr>/g)].map((m) => m[0]).find((r) => r.replace(/<[^>]*>/g, '').startsWith(email))
  if (row === undefined) throw new Error(`no row for ${email}`)
  return { role: /action="[^"]*\/role"/.test(row), remove: /action="[^"]*\/remove"/.test(row), text: row.replace(/<[^>]*>/g, ' ') }
}

describe('members', () => {
  it('the only owner is offered neither “Make member” nor removal; with a second owner, both are', async () => {
    const owner = new ConsoleClient(t.app)
    const key = await owner.signUp('sole@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    const member = await t.c.identity.createUser({ email: 'helper@example.com', password: 'helper password 1', accountId, role: 'member' })

    const alone = (await owner.get('/console/members')).body
    expect(memberRow(alone, 'sole@example.com')).toMatchObject({ role: false, remove: false })
    expect(memberRow(alone, 'sole@example.com').text).toContain('The only owner')
    expect(memberRow(alone, 'helper@example.com')).toMatchObject({ role: true, remove: true })
    // Each change names its member.
    expect(alone).toContain('aria-label="Make owner: helper@example.com">Make owner</button>')
    expect(alone).toContain('aria-label="Remove helper@example.com">Remove</button>')

    const promoted = await owner.post(`/console/members/${member.user.id}/role`, { role: 'owner' })
    expect([promoted.statusCode, promoted.headers.location]).toEqual([303, '/console/members?done=role'])
    const two = (await owner.get('/console/members')).body
    expect(memberRow(two, 'sole@example.com')).toMatchObject({ role: true, remove: true })
    expect(memberRow(two, 'helper@example.com')).toMatchObject({ role: true, remove: true })
    // What is offered works: the first owner becomes a member, and the page again offers the other nothing.
    const me = (await t.c.identity.members(accountId)).find((m) => m.email === 'sole@example.com')!
    expect((await owner.post(`/console/members/${me.userId}/role`, { role: 'member' })).statusCode).toBe(303)
    const helper = new ConsoleClient(t.app)
    await helper.signIn('helper@example.com', 'helper password 1')
    expect(memberRow((await helper.get('/console/members')).body, 'helper@example.com')).toMatchObject({ role: false, remove: false })
  })
})

describe('keys', () => {
  it('every Revoke button names its key by name and prefix', async () => {
    const browser = new ConsoleClient(t.app)
    const { accountId } = await t.c.accounts.identify(await browser.signUp('revoker@example.com'))
    await browser.post('/console/keys', { name: 'nightly <crawler>' })
    const body = (await browser.get('/console/keys')).body
    const labels = [...body.matchAll(/<button type="submit" class="danger"([^>]*)>Revoke<\/button>/g)].map((m) => /aria-label="([^"]*)"/.exec(m[1] ?? '')?.[1])
    const keys = await t.c.accountStore.listKeys(accountId)
    expect(labels.sort()).toEqual(keys.map((k) => `Revoke the key “${k.name.replace('<', '&lt;').replace('>', '&gt;')}” (${k.prefix}…)`).sort())
    expect(labels).toHaveLength(2)
  })
})

describe('billing', () => {
  it('gives the price of each call, as the API bills it', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('prices@example.com')
    const body = (await browser.get('/console/billing')).body
    const section = /<section class="card" aria-labelledby="prices">([\s\S]*?)<\/section>/.exec(body)?.[1] ?? ''
    const rows = Object.fromEntries(
      [...section.matchAll(/<tr><th scope="row"><code>([^<]*)<\/code><\/th><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map((m) => [m[1], [m[2], m[3]]]),
    )
    // Every call of the API, each at the table's price: the operator's for profile and post/engagement.
    expect(Object.keys(rows).sort()).toEqual(Object.keys(t.c.config.prices).map((o) => `/api/v1/${o.replaceAll('.', '/')}`).sort())
    expect(rows['/api/v1/profile']).toEqual(['3 credits a call', '1 credit'])
    expect(rows['/api/v1/post/engagement']).toEqual(['5 credits a call', '1 credit'])
    expect(rows['/api/v1/posts']).toEqual(['1 credit per started block of 50 of the count asked for', '1 credit'])
    expect(rows['/api/v1/posts/updates']).toEqual(['1 credit per started group of 15 profiles asked for', 'Free'])
    expect(rows['/api/v1/company/batch']).toEqual(['1 credit per company returned', 'Free'])
    expect(rows['/api/v1/usage']).toEqual(['Free', '—'])
    // The page's price is what a call is billed.
    const call = await t.app.inject({ method: 'GET', url: '/api/v1/profile?profileUrlOrUrn=member-1', headers: { 'x-api-key': key } })
    expect([call.statusCode, call.headers['x-credits-charged']]).toEqual([200, '3'])
  })
})
