/**
 * The console's forms when what was sent is refused, on every backend: the error in the form's own
 * words (the field as its label names it, never a parameter of the API), every blank sign-up field
 * named at once, the fields it is about marked invalid and pointing to it, and what was typed kept.
 * The operator's pack grant says its range and answers on the account's page, beside its form.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConsoleClient } from '../helpers/console-client.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
const mails: { to: string; link: string }[] = []
let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, env: { PRONET_PAYMENTS: 'test' }, overrides: { mailer: { send: async (m) => void mails.push({ to: m.to, link: m.link }) } } })
})
afterAll(async () => t?.close())

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" }
const text = (markup: string) => markup.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string)

/** The text of the page's error notice (the id fields point to is checked by invalidFields). */
function errorOf(body: string): string | undefined {
  const found = /<p class="notice error" role="alert"[^>]*>([\s\S]*?)<\/p>/.exec(body)?.[1]
  return found === undefined ? undefined : text(found)
}

/** Every field marked invalid: its name, what describes it, and its value as shown. */
function invalidFields(body: string): { name: string; describedBy: string; value: string | undefined }[] {
  return [...body.matchAll(/<(?:input|select)\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => tag.includes('aria-invalid="true"'))
    .map((tag) => ({
      name: /\sname="([^"]*)"/.exec(tag)?.[1] ?? '',
      describedBy: /\saria-describedby="([^"]*)"/.exec(tag)?.[1] ?? '',
      value: /\svalue="([^"]*)"/.exec(tag)?.[1],
    }))
}

/** The sign-up form, sent as a new visitor would, with `fields`; the visitor, to go on with. */
async function signUpWith(fields: Record<string, string>) {
  const visitor = new ConsoleClient(t.app)
  await visitor.get('/console/sign-up')
  return { visitor, res: await visitor.post('/console/sign-up', fields) }
}

describe('sign-up', () => {
  it('with every field empty names every missing field at once, and marks both', async () => {
    const { res } = await signUpWith({ email: '', password: '', accountName: '' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('Fill in the email and the password.')
    expect(res.body).toContain('<div id="form-error"><p class="notice error" role="alert">Fill in the email and the password.</p></div>')
    expect(invalidFields(res.body).map((f) => [f.name, f.describedBy])).toEqual([
      ['email', 'form-error'],
      ['password', 'form-error password-hint'],
    ])
  })

  it('a blank email beside a short password says both', async () => {
    const { res } = await signUpWith({ email: ' ', password: 'abc' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('Fill in the email. The password must be at least 10 characters long (it has 3).')
    expect(invalidFields(res.body).map((f) => f.name)).toEqual(['email', 'password'])
  })

  it('a refusal of the service names the field as the form does, and keeps what was typed', async () => {
    const { visitor, res: short } = await signUpWith({ email: 'short@example.com', password: 'abcde', accountName: 'Short Co' })
    expect(short.statusCode).toBe(400)
    expect(errorOf(short.body)).toBe('The password must be at least 10 characters long (it has 5).')
    expect(invalidFields(short.body)).toEqual([{ name: 'password', describedBy: 'form-error password-hint', value: undefined }])
    expect(short.body).toContain('value="short@example.com"')
    expect(short.body).toContain('value="Short Co"')

    const email = await visitor.post('/console/sign-up', { email: 'not an address', password: 'correct horse battery' })
    expect(errorOf(email.body)).toBe('The email must be an email address (name@example.com).')
    expect(invalidFields(email.body).map((f) => [f.name, f.describedBy])).toEqual([['email', 'form-error']])

    const name = await visitor.post('/console/sign-up', { email: 'named@example.com', password: 'correct horse battery', accountName: 'x'.repeat(201) })
    expect(errorOf(name.body)).toBe('The company or project name must be 1 to 200 characters.')
    expect(invalidFields(name.body).map((f) => f.name)).toEqual(['accountName'])
    for (const res of [short, email, name]) expect(res.body).not.toMatch(/Invalid parameter|Missing required parameter|'accountName'/)
  })
})

describe('signed-in forms', () => {
  let browser: ConsoleClient
  beforeAll(async () => {
    browser = new ConsoleClient(t.app)
    await browser.signUp('forms@example.com')
  })

  it('the usage range: the days by their labels, the field marked, the range typed kept', async () => {
    const after = await browser.get('/console/usage?from=2026-11-10&to=2026-11-01')
    expect(after.statusCode).toBe(400)
    expect(errorOf(after.body)).toBe('The “From” day (2026-11-10) is after the “To” day (2026-11-01).')
    expect(invalidFields(after.body)).toEqual([{ name: 'from', describedBy: 'form-error', value: '2026-11-10' }])
    const bad = await browser.get('/console/usage?from=yesterday')
    expect(errorOf(bad.body)).toBe("“From” day: 'yesterday' is not a date in YYYY-MM-DD form.")
    expect(bad.body).not.toContain('Invalid parameter')
  })

  it('a pack size not on sale names the pack size', async () => {
    await browser.get('/console/billing')
    const res = await browser.post('/console/billing/orders', { credits: '12345' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('Pack size: a pack holds 50,000 to 50,000,000 credits.')
    expect(invalidFields(res.body).map((f) => [f.name, f.describedBy])).toEqual([['credits', 'form-error payment-note']])
  })

  it('a new key: its name and monthly limit, each marked when it is the one refused', async () => {
    await browser.get('/console/keys')
    const blank = await browser.post('/console/keys', { name: ' ' })
    expect(errorOf(blank.body)).toBe('Give the key a name, such as where it is used.')
    expect(invalidFields(blank.body).map((f) => [f.name, f.describedBy])).toEqual([['name', 'form-error key-name-hint']])
    const long = await browser.post('/console/keys', { name: 'k'.repeat(101) })
    expect(errorOf(long.body)).toBe('The name must be at most 100 characters.')
    const limit = await browser.post('/console/keys', { name: 'capped', monthlyCreditLimit: 'lots', endpointsAllowed: 'every' })
    expect(limit.statusCode).toBe(400)
    expect(errorOf(limit.body)).toMatch(/^The monthly credit limit must be a whole number of credits/)
    expect(invalidFields(limit.body)).toEqual([{ name: 'monthlyCreditLimit', describedBy: 'form-error new-key-limit-hint', value: 'lots' }])
    const none = await browser.post('/console/keys', { name: 'narrow', endpointsAllowed: 'only' })
    expect(errorOf(none.body)).toMatch(/^Tick at least one endpoint/)
    expect(none.body).toContain('<fieldset class="choices" aria-describedby="form-error new-key-endpoints-hint">')
  })

  it('an invitation to an address that is none keeps it, and says so in the form’s words', async () => {
    await browser.get('/console/members')
    const res = await browser.post('/console/members/invite', { email: 'nobody', role: 'owner' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('The email must be an email address (name@example.com).')
    expect(invalidFields(res.body)).toEqual([{ name: 'email', describedBy: 'form-error', value: 'nobody' }])
    expect(res.body).toContain('<option value="owner" selected>')
  })

  it('an invitation with a role that is none is refused naming the role, and nothing is sent', async () => {
    await browser.get('/console/members')
    const sentBefore = mails.length
    const res = await browser.post('/console/members/invite', { email: 'admin-role@example.com', role: 'admin' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe("The role must be 'owner' or 'member'.")
    expect(invalidFields(res.body).map((f) => f.name)).toEqual(['role'])
    expect(mails.length).toBe(sentBefore)
  })

  it('a tick box sent with an empty value counts as none ticked', async () => {
    await browser.get('/console/webhooks')
    const res = await browser.post('/console/webhooks', { url: 'https://example.com/hooks', events: '' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('Tick at least one event to send to this endpoint.')
  })

  it('joining by invitation with a short password asks again on the same form', async () => {
    await browser.get('/console/members')
    expect((await browser.post('/console/members/invite', { email: 'joiner@example.com', role: 'member' })).statusCode).toBe(303)
    await vi.waitFor(() => expect(mails.some((m) => m.to === 'joiner@example.com')).toBe(true))
    const token = new URL(mails.find((m) => m.to === 'joiner@example.com')!.link).searchParams.get('token')!
    const joiner = new ConsoleClient(t.app)
    await joiner.get(`/console/invite?token=${encodeURIComponent(token)}`)
    const blank = await joiner.post('/console/invite', { token, password: '' })
    expect(errorOf(blank.body)).toBe('Fill in the password.')
    const res = await joiner.post('/console/invite', { token, password: 'short' })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body)).toBe('The password must be at least 10 characters long (it has 5).')
    expect(invalidFields(res.body).map((f) => f.name)).toEqual(['password'])
    expect(res.body).toContain('<button type="submit">Join</button>')
    expect((await joiner.post('/console/invite', { token, password: 'a long enough password' })).statusCode).toBe(303)
  })
})

describe('the operator grants a pack', () => {
  it('a size out of range is told the range, beside the form, with what was typed; nothing is granted', async () => {
    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })
    const page = `/console/operator/accounts/${t.accountId}`
    const packs = async () => (await t.c.metering.subscription(t.accountId)).paygCreditsRemaining
    await operator.get(page)
    const before = await packs()
    const range = 'A pack holds 50,000 to 50,000,000 credits: write a whole number in that range, such as 50000.'
    for (const [typed, said] of [
      ['-1', range],
      ['999999999999', range],
      ['fifty thousand', range],
      ['1050000', 'Credits: pack sizes go in steps of 50,000 up to 1,000,000, then 250,000.'],
    ] as const) {
      const res = await operator.post(`${page}/packs`, { credits: typed })
      expect(res.statusCode, typed).toBe(400)
      // The account's own page, not the error page, with the error in the grant's section.
      expect(res.body, typed).toContain('<h1>test</h1>')
      const grant = /<section class="card" aria-labelledby="grant">([\s\S]*?)<\/section>/.exec(res.body)?.[1] ?? ''
      expect(errorOf(grant), typed).toBe(said)
      expect(grant, typed).toContain('<div id="grant-error"><p class="notice error" role="alert">')
      expect(invalidFields(grant), typed).toEqual([{ name: 'credits', describedBy: 'grant-error credits-hint', value: typed }])
      expect(res.body, typed).not.toMatch(/Something is not right|Invalid parameter|e\.g\. 50000/)
    }
    expect(await packs()).toBe(before)
    const granted = await operator.post(`${page}/packs`, { credits: '50000' })
    expect([granted.statusCode, granted.headers.location]).toEqual([303, `${page}?done=granted`])
    expect(await packs()).toBe(before + 50_000)
  })
})

describe('a refusal no form shows again', () => {
  it('names its field in words on the error page, not as a parameter', async () => {
    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })
    const { order } = await t.c.orders.placeOrder({ accountId: t.accountId, credits: 50_000 })
    const before = await t.c.orders.get(t.accountId, order.id)
    await operator.get('/console/operator/orders')
    const res = await operator.post(`/console/operator/orders/${order.id}/reject`, { note: 'x'.repeat(1001) })
    expect(res.statusCode).toBe(400)
    expect(errorOf(res.body) ?? text(/<main[\s\S]*<\/main>/.exec(res.body)?.[0] ?? '')).toContain('Note: 1 to 1000 characters.')
    expect(res.body).not.toContain('Invalid parameter')
    expect(await t.c.orders.get(t.accountId, order.id)).toEqual(before)
  })
})
