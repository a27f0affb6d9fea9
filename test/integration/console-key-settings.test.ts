/**
 * A key's spend controls on the console, on every backend: a key made with a monthly credit limit and
 * endpoints shows them on the keys page and the API holds its calls to them; the edit page changes
 * them with effect from the next call; bad input shows the form again with 400 and changes nothing;
 * a member changes only the keys they made, another account's key is not found; every change needs
 * the form's token; the pages speak to customers and label every field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleClient, keyIn } from '../helpers/console-client.ts'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
const PROFILE = '/api/v1/profile?profileUrlOrUrn=member-1'
const COMPANY = `/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`
const SUBSCRIPTION = '/api/v1/subscription'

const LIMIT_HINT = 'Calls that would pass it are refused with 402 and cost nothing; it starts again on the 1st of each month, UTC.'
const ENDPOINTS_HINT = 'Calls to other endpoints are refused with 403 and cost nothing.'
const SAVED = 'The key’s settings are saved: they apply from its next call.'
const BAD_LIMIT = 'The monthly credit limit must be a whole number of credits from 0 to 1,000,000,000, or blank for no limit.'
const NO_ENDPOINT = 'Tick at least one endpoint under “Only these”, or choose “Every endpoint”.'
const NO_SUCH_KEY = 'There is no such key in this account.'
const NO_TOKEN = 'This form has expired or did not come from this console. Go back, reload the page and send it again.'

let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, records: fixtureRecords() })
})
afterAll(async () => t?.close())

const api = (key: string, url: string) => {
  // The account endpoints allow one call a second: the test clock moves past it.
  if (url === SUBSCRIPTION) t.clock.advance(1_100)
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
}

/** A signed-up owner whose account allows quick calls (the free plan's 5 a second would answer 429). */
async function signedUp(email: string): Promise<{ browser: ConsoleClient; accountId: string; firstKey: string }> {
  const browser = new ConsoleClient(t.app)
  const firstKey = await browser.signUp(email)
  const { accountId } = await t.c.accounts.identify(firstKey)
  await t.c.metering.changeSubscription(accountId, { plan: 'custom', status: 'active', creditsLimit: 10_000, rpsLimit: 10_000 })
  return { browser, accountId, firstKey }
}

/**
 * A form sent as a browser sends it, ticked boxes repeating their name, with the client's cookies and
 * the last page's token (unless `csrf` says otherwise).
 */
function send(browser: ConsoleClient, url: string, pairs: [string, string][], o: { csrf?: string | false } = {}) {
  const body = new URLSearchParams(pairs)
  if (o.csrf !== false) body.set('_csrf', o.csrf ?? browser.csrf)
  return t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  })
}

/** The form's fields: a name, a limit, and every endpoint or only those given. */
const settings = (name: string, limit: string, endpoints: 'every' | string[]): [string, string][] => [
  ['name', name],
  ['monthlyCreditLimit', limit],
  ['endpointsAllowed', endpoints === 'every' ? 'every' : 'only'],
  ...(endpoints === 'every' ? [] : endpoints.map((e): [string, string] => ['endpoints', e])),
]

/** The texts of a key's line on the keys page: billed this month, monthly limit, endpoints. */
function spendCells(body: string, name: string): string[] {
  const row = new RegExp(`<tr><td>${name}</td>.*?</tr>`, 's').exec(body)?.[0]
  if (row === undefined) throw new Error(`no line for the key ${name}`)
  const cells = [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => (m[1] as string).replaceAll('</li><li>', ', ').replace(/<[^>]+>/g, '').trim())
  return cells.slice(4, 7)
}

const notice = (kind: 'ok' | 'error', text: string) => `<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`

async function keyOf(accountId: string, keyId: string) {
  const key = (await t.c.accounts.keys(accountId)).find((k) => k.id === keyId)
  if (key === undefined) throw new Error(`no key ${keyId}`)
  return { name: key.name, monthlyCreditLimit: key.monthlyCreditLimit, endpoints: key.endpoints }
}

describe('a key made with a monthly limit and endpoints', () => {
  it('shows them on the keys page, and the API holds its calls to them', async () => {
    const { browser, firstKey } = await signedUp('limits@example.com')
    await browser.get('/console/keys')
    const made = await send(browser, '/console/keys', settings('nightly', '2', ['profile', 'company']))
    expect(made.statusCode).toBe(201)
    const key = keyIn(made.body)
    expect(spendCells(made.body, 'nightly')).toEqual(['0 credits', '2 credits', '/api/v1/profile, /api/v1/company'])
    expect(spendCells(made.body, 'First key')).toEqual(['0 credits', 'No monthly limit', 'Every endpoint'])

    expect((await api(key, PROFILE)).statusCode).toBe(200)
    expect((await api(key, COMPANY)).statusCode).toBe(200)
    const over = expectError(await api(key, PROFILE), 402, 'QUOTA_EXHAUSTED')
    expect(over.details).toMatchObject({ keyCreditLimit: 2, keyCreditsRemaining: 0, creditsRequired: 1 })
    expectError(await api(key, COMPANY), 402, 'QUOTA_EXHAUSTED')
    expect(expectError(await api(key, SUBSCRIPTION), 403, 'FORBIDDEN').details).toEqual({ endpoint: 'subscription' })
    // The account's first key is held to nothing of this one's.
    expect((await api(firstKey, SUBSCRIPTION)).statusCode).toBe(200)

    const page = await browser.get('/console/keys')
    expect(page.statusCode).toBe(200)
    expect(spendCells(page.body, 'nightly')).toEqual(['2 credits', '2 credits', '/api/v1/profile, /api/v1/company'])
    expect(spendCells(page.body, 'First key')).toEqual(['0 credits', 'No monthly limit', 'Every endpoint'])
  })

  it('a blank limit and no choice of endpoints make a key without controls', async () => {
    const { browser, accountId } = await signedUp('plain@example.com')
    await browser.get('/console/keys')
    const made = await browser.post('/console/keys', { name: 'plain' })
    expect(made.statusCode).toBe(201)
    const { keyId } = await t.c.accounts.identify(keyIn(made.body))
    expect(await keyOf(accountId, keyId)).toEqual({ name: 'plain', monthlyCreditLimit: null, endpoints: null })
    const blank = await send(browser, '/console/keys', settings('blank', '', 'every'))
    expect(blank.statusCode).toBe(201)
    expect(spendCells(blank.body, 'blank')).toEqual(['0 credits', 'No monthly limit', 'Every endpoint'])
  })
})

describe('the edit page', () => {
  it('shows the settings; a raised limit, then none and every endpoint, take effect from the next call', async () => {
    const { browser, accountId } = await signedUp('edits@example.com')
    await browser.get('/console/keys')
    const key = keyIn((await send(browser, '/console/keys', settings('crawler', '1', ['profile']))).body)
    const { keyId } = await t.c.accounts.identify(key)
    expect((await api(key, PROFILE)).statusCode).toBe(200)
    expectError(await api(key, PROFILE), 402, 'QUOTA_EXHAUSTED')
    expectError(await api(key, COMPANY), 403, 'FORBIDDEN')

    const keys = await browser.get('/console/keys')
    expect(keys.body).toContain(`<a class="button secondary" href="/console/keys/${keyId}/edit" aria-label="Edit the key “crawler”">Edit</a>`)
    const form = await browser.get(`/console/keys/${keyId}/edit`)
    expect(form.statusCode).toBe(200)
    expect(form.body).toContain('<h1>Edit a key</h1>')
    expect(form.body).toContain(`<form method="post" action="/console/keys/${keyId}/edit" class="narrow">`)
    expect(form.body).toContain('<dt>Billed this month</dt><dd>1 credit</dd>')
    expect(form.body).toContain('name="name" maxlength="100" required value="crawler"')
    expect(form.body).toContain('name="monthlyCreditLimit" min="0" max="1000000000" step="1" inputmode="numeric" value="1"')
    expect(form.body).toContain('<input type="radio" id="edit-only" name="endpointsAllowed" value="only" checked>')
    expect(form.body).toContain('<input type="radio" id="edit-every" name="endpointsAllowed" value="every">')
    expect(form.body).toContain('<input type="checkbox" id="edit-endpoint-profile" name="endpoints" value="profile" checked>')
    expect(form.body).toContain('<input type="checkbox" id="edit-endpoint-company" name="endpoints" value="company">')

    const raised = await send(browser, `/console/keys/${keyId}/edit`, settings('crawler', '3', ['profile']))
    expect([raised.statusCode, raised.headers.location]).toEqual([303, '/console/keys?done=updated'])
    // No wait: the change holds on the key's very next call (the test clock does not move).
    expect((await api(key, PROFILE)).statusCode).toBe(200)
    expect((await api(key, PROFILE)).statusCode).toBe(200)
    expect(expectError(await api(key, PROFILE), 402, 'QUOTA_EXHAUSTED').details).toMatchObject({ keyCreditLimit: 3, keyCreditsRemaining: 0 })
    expectError(await api(key, COMPANY), 403, 'FORBIDDEN')
    const after = await browser.get('/console/keys?done=updated')
    expect(after.body).toContain(notice('ok', SAVED))
    expect(spendCells(after.body, 'crawler')).toEqual(['3 credits', '3 credits', '/api/v1/profile'])

    await browser.get(`/console/keys/${keyId}/edit`)
    const opened = await send(browser, `/console/keys/${keyId}/edit`, settings('crawler, open', '', 'every'))
    expect([opened.statusCode, opened.headers.location]).toEqual([303, '/console/keys?done=updated'])
    expect((await api(key, COMPANY)).statusCode).toBe(200)
    for (let i = 0; i < 3; i++) expect((await api(key, PROFILE)).statusCode).toBe(200)
    expect((await api(key, SUBSCRIPTION)).statusCode).toBe(200)
    expect(await keyOf(accountId, keyId)).toEqual({ name: 'crawler, open', monthlyCreditLimit: null, endpoints: null })
    expect(spendCells((await browser.get('/console/keys')).body, 'crawler, open')).toEqual(['7 credits', 'No monthly limit', 'Every endpoint'])

    // Every endpoint chosen: boxes left ticked do not narrow the key.
    await browser.get(`/console/keys/${keyId}/edit`)
    const ticked = await send(browser, `/console/keys/${keyId}/edit`, [...settings('crawler', '0', 'every'), ['endpoints', 'profile']])
    expect(ticked.statusCode).toBe(303)
    expect(await keyOf(accountId, keyId)).toEqual({ name: 'crawler', monthlyCreditLimit: 0, endpoints: null })
    expectError(await api(key, COMPANY), 402, 'QUOTA_EXHAUSTED')
  })

  it('bad input shows the form again with 400 and the error, keeps what was typed, and changes nothing', async () => {
    const { browser, accountId } = await signedUp('typos@example.com')
    const { id: keyId } = await t.c.accounts.createKey(accountId, { name: 'steady', monthlyCreditLimit: 5, endpoints: ['profile'] })
    const before = await keyOf(accountId, keyId)
    await browser.get(`/console/keys/${keyId}/edit`)
    const cases: [string, [string, string][], string][] = [
      ...['-1', '1.5', '1e3', 'ten', '1,000', '1000000001', '99999999999999999999', '12 3'].map((limit): [string, [string, string][], string] => [limit, settings('renamed', limit, ['profile']), BAD_LIMIT]),
      ['no endpoint ticked', settings('renamed', '10', []), NO_ENDPOINT],
      ['an endpoint that does not exist', settings('renamed', '10', ['profiles']), '“profiles” is not an endpoint of the API; tick the endpoints in the list.'],
      ['no name', settings('   ', '10', ['profile']), 'Give the key a name, such as where it is used.'],
      ['a name too long', settings('x'.repeat(101), '10', ['profile']), 'The name must be at most 100 characters.'],
    ]
    for (const [what, fields, text] of cases) {
      const res = await send(browser, `/console/keys/${keyId}/edit`, fields)
      expect(res.statusCode, what).toBe(400)
      expect(res.headers['content-type'], what).toMatch(/^text\/html/)
      expect(res.body, what).toContain(notice('error', text))
      expect(res.body, what).toContain(`<form method="post" action="/console/keys/${keyId}/edit" class="narrow">`)
      expect(await keyOf(accountId, keyId), what).toEqual(before)
    }
    // The form keeps what was sent, to be corrected.
    const kept = await send(browser, `/console/keys/${keyId}/edit`, settings('renamed', '-1', ['company', 'search/posts']))
    expect(kept.body).toContain('required value="renamed"')
    expect(kept.body).toContain('inputmode="numeric" value="-1"')
    expect(kept.body).toContain('value="company" checked>')
    expect(kept.body).toContain('value="search/posts" checked>')
    expect(kept.body).not.toContain('value="profile" checked>')
    // The field the error is about is marked invalid and pointed at the error; the others are not.
    expect(kept.body).toContain('inputmode="numeric" value="-1" aria-invalid="true" aria-describedby="form-error edit-limit-hint">')
    expect(kept.body).toContain('<div id="form-error"><p class="notice error" role="alert">')
    expect(kept.body).toContain('required value="renamed">')
    const unnamed = await send(browser, `/console/keys/${keyId}/edit`, settings('   ', '10', ['profile']))
    expect(unnamed.body).toContain('required value="" aria-invalid="true" aria-describedby="form-error">')
    expect(unnamed.body).toContain('inputmode="numeric" value="10" aria-describedby="edit-limit-hint">')
    const noneTicked = await send(browser, `/console/keys/${keyId}/edit`, settings('renamed', '10', []))
    expect(noneTicked.body).toContain('<fieldset class="choices" aria-describedby="form-error edit-endpoints-hint">')

    // The create form refuses alike, makes no key, and keeps what was typed.
    await browser.get('/console/keys')
    const count = (await t.c.accounts.keys(accountId)).length
    const refused = await send(browser, '/console/keys', settings('extra', '-5', ['profile']))
    expect(refused.statusCode).toBe(400)
    expect(refused.body).toContain(notice('error', BAD_LIMIT))
    expect(refused.body).toContain('required aria-describedby="key-name-hint" value="extra"')
    expect(refused.body).not.toContain('id="new-key-value"')
    const none = await send(browser, '/console/keys', settings('extra', '', []))
    expect(none.statusCode).toBe(400)
    expect(none.body).toContain(notice('error', NO_ENDPOINT))
    expect((await t.c.accounts.keys(accountId)).length).toBe(count)
  })
})

describe('who may change a key', () => {
  it('a member changes the keys they made; the owner’s, another account’s, a revoked or an unknown key is 404, as for revoking', async () => {
    const { browser: owner, accountId, firstKey } = await signedUp('boss@example.com')
    const ownerKeyId = (await t.c.accounts.identify(firstKey)).keyId
    await t.c.identity.createUser({ email: 'staff@example.com', password: 'staff password 1', accountId, role: 'member' })
    const member = new ConsoleClient(t.app)
    expect((await member.signIn('staff@example.com', 'staff password 1')).statusCode).toBe(303)
    await member.get('/console/keys')
    const memberKey = keyIn((await send(member, '/console/keys', settings('staff key', '', 'every'))).body)
    const memberKeyId = (await t.c.accounts.identify(memberKey)).keyId
    const ownerBefore = await keyOf(accountId, ownerKeyId)

    const look = await member.get(`/console/keys/${ownerKeyId}/edit`)
    expect(look.statusCode).toBe(404)
    expect(look.body).toContain(NO_SUCH_KEY)
    expect(look.body).not.toContain('name="monthlyCreditLimit"')
    const change = await send(member, `/console/keys/${ownerKeyId}/edit`, settings('mine now', '1', ['profile']))
    expect(change.statusCode).toBe(404)
    expect(change.body).toContain(NO_SUCH_KEY)
    expect(await keyOf(accountId, ownerKeyId)).toEqual(ownerBefore)
    expect((await api(firstKey, COMPANY)).statusCode).toBe(200)

    // Their own key: yes. The owner: any key of the account.
    expect((await member.get(`/console/keys/${memberKeyId}/edit`)).statusCode).toBe(200)
    expect((await send(member, `/console/keys/${memberKeyId}/edit`, settings('staff key', '7', 'every'))).statusCode).toBe(303)
    expect(await keyOf(accountId, memberKeyId)).toEqual({ name: 'staff key', monthlyCreditLimit: 7, endpoints: null })
    await owner.get(`/console/keys/${memberKeyId}/edit`)
    expect((await send(owner, `/console/keys/${memberKeyId}/edit`, settings('staff key', '8', ['company']))).statusCode).toBe(303)
    expect(await keyOf(accountId, memberKeyId)).toEqual({ name: 'staff key', monthlyCreditLimit: 8, endpoints: ['company'] })
    expectError(await api(memberKey, PROFILE), 403, 'FORBIDDEN')
    // The owner's controls hold: the member may lower or narrow them, never raise, remove or widen them.
    const RAISE = 'Only an owner can raise the monthly credit limit of this key (8) or remove it; you may lower it.'
    const WIDEN = 'Only an owner can let this key call more endpoints; you may untick some of those it calls.'
    const loosening: [string, 'every' | string[], string][] = [
      ['9', ['company'], RAISE],
      ['', ['company'], RAISE],
      ['8', ['company', 'profile'], WIDEN],
      ['8', 'every', WIDEN],
    ]
    for (const [limit, endpoints, why] of loosening) {
      await member.get(`/console/keys/${memberKeyId}/edit`)
      const res = await send(member, `/console/keys/${memberKeyId}/edit`, settings('staff key', limit, endpoints))
      expect(res.statusCode, `${limit} ${endpoints}`).toBe(403)
      expect(res.body).toContain(notice('error', why))
    }
    expect(await keyOf(accountId, memberKeyId)).toEqual({ name: 'staff key', monthlyCreditLimit: 8, endpoints: ['company'] })
    await member.get(`/console/keys/${memberKeyId}/edit`)
    expect((await send(member, `/console/keys/${memberKeyId}/edit`, settings('staff key', '5', ['company']))).statusCode).toBe(303)
    expect(await keyOf(accountId, memberKeyId)).toEqual({ name: 'staff key', monthlyCreditLimit: 5, endpoints: ['company'] })
    await owner.get(`/console/keys/${memberKeyId}/edit`)
    expect((await send(owner, `/console/keys/${memberKeyId}/edit`, settings('staff key', '8', ['company']))).statusCode).toBe(303)

    // Another account's key is not found, whatever is sent.
    const { browser: stranger } = await signedUp('stranger@example.com')
    await stranger.get('/console/keys')
    for (const id of [ownerKeyId, memberKeyId]) {
      const seen = await stranger.get(`/console/keys/${id}/edit`)
      expect(seen.statusCode).toBe(404)
      expect(seen.body).toContain(NO_SUCH_KEY)
      expect((await send(stranger, `/console/keys/${id}/edit`, settings('taken', '1', ['profile']))).statusCode).toBe(404)
    }
    expect(await keyOf(accountId, ownerKeyId)).toEqual(ownerBefore)

    // Nor is a revoked key, or one that never was.
    await t.c.accounts.revokeKey(accountId, memberKeyId)
    for (const id of [memberKeyId, 'key_nothing']) {
      expect((await owner.get(`/console/keys/${id}/edit`)).statusCode, id).toBe(404)
      const res = await send(owner, `/console/keys/${id}/edit`, settings('again', '1', ['profile']))
      expect(res.statusCode, id).toBe(404)
      expect(res.body, id).toContain(NO_SUCH_KEY)
    }
    // And a visitor not signed in is sent to sign in first.
    const anonymous = await new ConsoleClient(t.app).get(`/console/keys/${ownerKeyId}/edit`)
    expect([anonymous.statusCode, anonymous.headers.location]).toEqual([303, `/console/sign-in?next=${encodeURIComponent(`/console/keys/${ownerKeyId}/edit`)}`])
  })

  it('without the form’s token, a change or a new key is refused and nothing changes', async () => {
    const { browser, accountId, firstKey } = await signedUp('tokens@example.com')
    const { keyId } = await t.c.accounts.identify(firstKey)
    const before = await keyOf(accountId, keyId)
    await browser.get(`/console/keys/${keyId}/edit`)
    for (const csrf of [false, 'forged-token'] as const) {
      for (const url of [`/console/keys/${keyId}/edit`, '/console/keys']) {
        const res = await send(browser, url, settings('sneaky', '1', ['profile']), { csrf })
        expect(res.statusCode, `${url} ${csrf}`).toBe(403)
        expect(res.headers['content-type'], `${url} ${csrf}`).toMatch(/^text\/html/)
        expect(res.body, `${url} ${csrf}`).toContain(NO_TOKEN)
      }
    }
    expect(await keyOf(accountId, keyId)).toEqual(before)
    expect((await t.c.accounts.keys(accountId)).map((k) => k.name)).toEqual([before.name])
  })
})

describe('the wording and the markup', () => {
  it('the forms say what a limit and endpoints do, label every field, and group the endpoints under a legend', async () => {
    const { browser, firstKey } = await signedUp('words@example.com')
    const { keyId } = await t.c.accounts.identify(firstKey)
    for (const url of ['/console/keys', `/console/keys/${keyId}/edit`]) {
      const res = await browser.get(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.body, url).toContain(LIMIT_HINT)
      expect(res.body, url).toContain(ENDPOINTS_HINT)
      expect(res.body, url).toMatch(/<label for="[a-z-]+-limit">Monthly credit limit \(optional\)<\/label>/)
      const inputs = [...res.body.matchAll(/<input\b[^>]*>/g)].map((m) => m[0]).filter((i) => !i.includes('type="hidden"'))
      expect(inputs.length, url).toBeGreaterThan(14)
      for (const input of inputs) {
        const id = /\sid="([^"]+)"/.exec(input)?.[1]
        expect(id, input).toBeDefined()
        expect(res.body, input).toContain(`<label for="${id}">`)
      }
      // The boxes are inside the fieldset, which opens with its legend.
      const group = /<fieldset\b[^>]*>\s*<legend>Endpoints this key may call<\/legend>(.*?)<\/fieldset>/s.exec(res.body)?.[1] ?? ''
      expect(group, url).toContain('<label for="' + (url === '/console/keys' ? 'new-key' : 'edit') + '-every">Every endpoint</label>')
      expect(group, url).toContain('Only these:</label>')
      expect([...group.matchAll(/type="checkbox"/g)].length, url).toBe([...res.body.matchAll(/type="checkbox"/g)].length)
      expect(group, url).toContain('<code>/api/v1/search/posts</code>')
      // No field name or internal word in what a customer reads.
      const text = res.body.replace(/<[^>]+>/g, ' ')
      for (const word of ['monthlyCreditLimit', 'endpointsAllowed', 'null', 'INVALID_PARAMETER', 'Invalid parameter']) expect(text, `${url}: ${word}`).not.toContain(word)
    }
  })
})
