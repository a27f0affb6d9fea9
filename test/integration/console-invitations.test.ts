/**
 * Open invitations on the members page, on every backend: owners see each one (address, role, who
 * sent it, when it expires) and withdraw it, after which its link no longer works; members see none
 * and withdraw none; another account's owner cannot reach one; an owner made a member takes back the
 * invitations they sent.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConsoleClient } from '../helpers/console-client.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
const DAY = 86_400_000
const mails: { to: string; link: string }[] = []
let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, overrides: { mailer: { send: async (m) => void mails.push({ to: m.to, link: m.link }) } } })
})
afterAll(async () => t?.close())

const text = (markup: string) => markup.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim()

/** The rows of the open invitations table, as text cells (the withdraw button's cell left out). */
function invitationRows(body: string): string[][] {
  const table = /<h2 id="waiting">[\s\S]*?<\/section>/.exec(body)?.[0]
  if (table === undefined) throw new Error('no invitations section')
  return [...table.matchAll(/<tr><td>[\s\S]*?<\/tr>/g)].map((r) => [...r[0].matchAll(/<td>([\s\S]*?)<\/td>/g)].slice(0, 5).map((c) => text(c[1] as string)))
}

async function linkTo(email: string): Promise<string> {
  await vi.waitFor(() => expect(mails.some((m) => m.to === email)).toBe(true))
  return mails.find((m) => m.to === email)!.link.replace(/^https?:\/\/[^/]+/, '')
}

async function invite(browser: ConsoleClient, email: string, role: 'owner' | 'member'): Promise<void> {
  await browser.get('/console/members')
  const res = await browser.post('/console/members/invite', { email, role })
  expect([res.statusCode, res.headers.location]).toEqual([303, '/console/members?done=invited'])
}

describe('open invitations', () => {
  it('are listed for owners and withdrawn by them; a withdrawn link no longer works', async () => {
    const owner = new ConsoleClient(t.app)
    const key = await owner.signUp('host@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    await invite(owner, 'guest@example.com', 'member')
    t.clock.advance(60_000)
    await invite(owner, 'co-owner@example.com', 'owner')
    const page = (await owner.get('/console/members')).body
    expect(invitationRows(page)).toEqual([
      ['guest@example.com', 'member', 'host@example.com', '2026-11-20 12:00 UTC', '2026-11-27 12:00 UTC'],
      ['co-owner@example.com', 'owner', 'host@example.com', '2026-11-20 12:01 UTC', '2026-11-27 12:01 UTC'],
    ])
    expect(page).toContain('aria-label="Withdraw the invitation to co-owner@example.com">Withdraw</button>')

    // Another account's owner names it: not found, and it stays open.
    const [guestInvitation, coOwnerInvitation] = await t.c.identity.invitations(accountId, (await t.c.identity.members(accountId))[0]!.userId)
    const stranger = new ConsoleClient(t.app)
    await stranger.signUp('stranger@example.com')
    await stranger.get('/console/members')
    expect((await stranger.post('/console/members/invitations/withdraw', { invitation: coOwnerInvitation!.id })).statusCode).toBe(404)
    expect((await stranger.post('/console/members/invitations/withdraw', { invitation: 'not an id' })).statusCode).toBe(404)

    // A member sees no list and may withdraw nothing.
    await t.c.identity.createUser({ email: 'staff@example.com', password: 'staff password 1', accountId, role: 'member' })
    const member = new ConsoleClient(t.app)
    await member.signIn('staff@example.com', 'staff password 1')
    const memberPage = (await member.get('/console/members')).body
    expect(memberPage).not.toContain('id="waiting"')
    expect(memberPage).not.toContain('co-owner@example.com')
    expect((await member.post('/console/members/invitations/withdraw', { invitation: coOwnerInvitation!.id })).statusCode).toBe(403)
    expect((await t.c.identity.invitations(accountId, (await t.c.identity.members(accountId))[0]!.userId)).map((i) => i.email)).toEqual([
      'guest@example.com',
      'co-owner@example.com',
    ])

    // The owner withdraws it: gone from the list, and its link says so.
    await owner.get('/console/members')
    const withdrawn = await owner.post('/console/members/invitations/withdraw', { invitation: coOwnerInvitation!.id })
    expect([withdrawn.statusCode, withdrawn.headers.location]).toEqual([303, '/console/members?done=withdrawn'])
    const after = (await owner.get('/console/members?done=withdrawn')).body
    expect(after).toContain('The invitation is withdrawn: its link no longer works.')
    expect(invitationRows(after).map((r) => r[0])).toEqual(['guest@example.com'])
    const visitor = new ConsoleClient(t.app)
    const link = await visitor.get(await linkTo('co-owner@example.com'))
    expect(link.statusCode).toBe(400)
    expect(link.body).toContain('Ask the owner who invited you for a new invitation.')
    // Withdrawing it again finds nothing; the other one still works.
    expect((await owner.post('/console/members/invitations/withdraw', { invitation: coOwnerInvitation!.id })).statusCode).toBe(404)
    expect(guestInvitation!.email).toBe('guest@example.com')
    expect((await visitor.get(await linkTo('guest@example.com'))).statusCode).toBe(200)
  })

  it('an owner made a member takes back the invitations they sent; they leave the list, and their links refuse', async () => {
    const first = new ConsoleClient(t.app)
    const key = await first.signUp('founder@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    await t.c.identity.createUser({ email: 'partner@example.com', password: 'partner password 1', accountId, role: 'owner' })
    const partner = new ConsoleClient(t.app)
    await partner.signIn('partner@example.com', 'partner password 1')
    await invite(partner, 'friend@example.com', 'owner')
    expect(invitationRows((await first.get('/console/members')).body).map((r) => [r[0], r[2]])).toEqual([['friend@example.com', 'partner@example.com']])

    const partnerId = (await t.c.identity.members(accountId)).find((m) => m.email === 'partner@example.com')!.userId
    expect((await first.post(`/console/members/${partnerId}/role`, { role: 'member' })).statusCode).toBe(303)
    const page = (await first.get('/console/members')).body
    expect(page).toContain('No invitation is waiting.')
    const visitor = new ConsoleClient(t.app)
    const link = await visitor.get(await linkTo('friend@example.com'))
    expect(link.statusCode).toBe(400)
    expect(link.body).toContain('This link is not valid, was used already or has expired.')
    // Nor does it work a week later when the partner is an owner again: it was withdrawn, not paused.
    t.clock.advance(DAY)
    await first.get('/console/members')
    expect((await first.post(`/console/members/${partnerId}/role`, { role: 'owner' })).statusCode).toBe(303)
    expect((await visitor.get(await linkTo('friend@example.com'))).statusCode).toBe(400)
    expect((await first.get('/console/members')).body).toContain('No invitation is waiting.')
  })
})
