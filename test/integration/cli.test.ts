/**
 * The operator CLI against a data directory, as an operator runs it. The commands run in this
 * process through the binary's own entry (runCli of src/cli/main.ts, with this process's environment,
 * stdout, stderr and exit status as theirs for the run); 'the binary' below runs the compiled program
 * as a process and checks that it answers exactly as these runs do, and what only a process shows
 * (the store's log lines, written to file descriptor 2).
 */
import Database from 'better-sqlite3'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { addMonths } from '../../src/domain/billing/calendar.ts'
import { verifySignature } from '../../src/webhooks/webhook-signature.ts'
import { fixtureRecords, toNdjson } from '../helpers/ingest-fixtures.ts'
import { runCliHere } from '../helpers/cli-here.ts'
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts'
import { runCliProcess, type CliOutcome } from '../helpers/server-process.ts'

let dir: string
const baseEnv = (): Record<string, string> => ({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' })

async function pronet(...args: string[]): Promise<CliOutcome> {
  return pronetWith({}, ...args)
}

function pronetWith(env: Record<string, string>, ...args: string[]): Promise<CliOutcome> {
  return runCliHere(args, { ...baseEnv(), ...env })
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pronet CLI', () => {
  it('accounts and keys: create, show, keys create/revoke, suspend/resume, all as JSON', async () => {
    const created = await pronet('accounts', 'create', '--name', 'acme', '--plan', 'custom', '--credits-limit', '5000', '--rps-limit', '20', '--json')
    expect(created.code).toBe(0)
    const { account, apiKey } = JSON.parse(created.stdout)
    expect(account.name).toBe('acme')
    expect(apiKey.key).toMatch(/^pk_/)

    const key2 = JSON.parse((await pronet('keys', 'create', account.id, '--json')).stdout)
    expect(key2.key).toMatch(/^pk_/)
    expect((await pronet('keys', 'revoke', account.id, key2.id, '--json')).code).toBe(0)

    const shown = JSON.parse((await pronet('accounts', 'show', account.id, '--json')).stdout)
    expect(shown.keys).toHaveLength(2)
    expect(shown.keys[1].revokedAt).not.toBeNull()
    expect(created.stdout.includes(apiKey.key) && !JSON.stringify(shown).includes(apiKey.key)).toBe(true)
    // Without --json, text for a person: the account, its subscription and its keys, never a key itself.
    const text = await pronet('accounts', 'show', account.id)
    expect(text.code).toBe(0)
    const lines = text.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`account ${account.id} "acme", created ${shown.account.createdAt}`)
    expect(lines[1]).toBe('plan custom, status active (active), 20 requests per second')
    expect(lines).toContain('API keys (2):')
    expect(lines.filter((l) => l.startsWith(`  ${key2.id}  `))).toEqual([`  ${key2.id}  ${key2.prefix}…  created ${shown.keys[1].createdAt}, revoked ${shown.keys[1].revokedAt}`])
    expect(text.stdout.includes(apiKey.key) || text.stdout.trimStart().startsWith('{')).toBe(false)

    expect(JSON.parse((await pronet('accounts', 'suspend', account.id, '--json')).stdout).suspended).toBe(true)
    expect(JSON.parse((await pronet('accounts', 'resume', account.id, '--json')).stdout).suspended).toBe(false)
  }, 120_000)

  it("keys create/update with a monthly credit limit and endpoints: printed as the admin API answers, and in accounts show", async () => {
    const { account } = JSON.parse((await pronet('accounts', 'create', '--name', 'capped', '--json')).stdout)
    const id: string = account.id

    // For a person: the key's id and name, its secret once, then its controls.
    const made = await pronet('keys', 'create', id, '--name', 'nightly', '--monthly-credit-limit', '5000', '--endpoints', 'profile,search/posts')
    expect([made.code, made.stderr]).toEqual([0, ''])
    const [title, secret, ...controls] = made.stdout.trimEnd().split('\n')
    const keyId = /^key (key_\S+) "nightly"$/.exec(title ?? '')?.[1] as string
    const key = /^API key \(shown once\): (pk_\S+)$/.exec(secret ?? '')?.[1] as string
    expect([keyId, key]).toEqual([expect.any(String), expect.any(String)])
    expect(controls).toEqual(['monthly credit limit: 5000 (0 credits billed this month)', 'endpoints: profile, search/posts'])

    // With --json, the admin API's 201: the key's view and the key, never the stored record.
    const created = await pronet('keys', 'create', id, '--name', 'open', '--json')
    expect(created.code, created.stderr).toBe(0)
    const open = JSON.parse(created.stdout)
    const FIELDS = ['id', 'key', 'prefix', 'name', 'createdAt', 'revokedAt', 'lastUsedAt', 'monthlyCreditLimit', 'endpoints', 'creditsThisMonth']
    expect(Object.keys(open)).toEqual(FIELDS)
    expect(open).toMatchObject({ key: expect.stringMatching(/^pk_/), prefix: open.key.slice(0, 10), name: 'open', revokedAt: null, lastUsedAt: null, monthlyCreditLimit: null, endpoints: null, creditsThisMonth: 0 })

    // A server on the same store: the limited key's calls count toward its limit (a missing record
    // bills 1), an endpoint it may not call is refused; the admin API answers as the CLI prints.
    const c = await createContainer(loadConfig({ ...baseEnv(), PRONET_ADMIN_TOKEN: 'admin-token' }))
    const app = await buildApp(c)
    const admin = { authorization: 'Bearer admin-token' }
    let api: { created: Record<string, unknown>; patched: unknown; show: unknown }
    try {
      const get = (url: string) => app.inject({ url, headers: { 'x-api-key': key } })
      expect((await get('/api/v1/profile?profileUrlOrUrn=nobody-here')).statusCode).toBe(404)
      const refused = await get('/api/v1/company?companyUrlOrUrn=nobody-here')
      expect([refused.statusCode, refused.json().details]).toEqual([403, { endpoint: 'company' }])
      const post = await app.inject({ method: 'POST', url: `/admin/v1/accounts/${id}/keys`, headers: admin, payload: { name: 'open' } })
      const patch = await app.inject({ method: 'PATCH', url: `/admin/v1/accounts/${id}/keys/${open.id}`, headers: admin, payload: { monthlyCreditLimit: 7, endpoints: ['company'] } })
      expect([post.statusCode, patch.statusCode]).toEqual([201, 200])
      await c.accounts.flushKeyUses()
      api = { created: post.json(), patched: patch.json(), show: (await app.inject({ url: `/admin/v1/accounts/${id}`, headers: admin })).json() }
    } finally {
      await app.close()
      await c.close()
    }
    expect(Object.keys(api.created)).toEqual(FIELDS)
    const shown = JSON.parse((await pronet('accounts', 'show', id, '--json')).stdout)
    expect(shown).toEqual(api.show)
    // The same change again from the CLI prints what the admin PATCH answered.
    const same = await pronet('keys', 'update', id, open.id, '--monthly-credit-limit', '7', '--endpoints', 'company', '--json')
    expect([same.code, JSON.parse(same.stdout)]).toEqual([0, api.patched])

    // For a person: the change, then accounts show lists each key with its name and controls.
    const updated = await pronet('keys', 'update', id, keyId, '--monthly-credit-limit', '1', '--endpoints', 'company, profile')
    expect([updated.code, updated.stdout, updated.stderr]).toEqual([
      0,
      [`key ${keyId} "nightly" updated`, 'monthly credit limit: 1 (1 credit billed this month)', 'endpoints: company, profile', ''].join('\n'),
      '',
    ])
    const nightly = (shown.keys as { id: string; prefix: string; createdAt: string }[]).find((k) => k.id === keyId)!
    const text = (await pronet('accounts', 'show', id)).stdout.trimEnd().split('\n')
    const at = text.indexOf(`  ${keyId}  ${nightly.prefix}…  "nightly"  created ${nightly.createdAt}`)
    expect(text.slice(at - 3, at + 3)).toEqual([
      `  ${shown.keys[0].id}  ${shown.keys[0].prefix}…  created ${shown.keys[0].createdAt}`,
      '    monthly credit limit: none (0 credits billed this month)',
      '    endpoints: all',
      `  ${keyId}  ${nightly.prefix}…  "nightly"  created ${nightly.createdAt}`,
      '    monthly credit limit: 1 (1 credit billed this month)',
      '    endpoints: company, profile',
    ])
    expect(text).toContain('API keys (4):')

    // none and all remove the limit and the endpoint list; "" removes the name.
    const opened = await pronet('keys', 'update', id, keyId, '--monthly-credit-limit', 'none', '--endpoints', 'all', '--name', '')
    expect([opened.code, opened.stdout]).toEqual([0, `key ${keyId} updated\nmonthly credit limit: none (1 credit billed this month)\nendpoints: all\n`])
  }, 120_000)

  it('keys create/update refuse bad values as the admin API does, and change nothing', async () => {
    const { account } = JSON.parse((await pronet('accounts', 'create', '--name', 'bad values', '--json')).stdout)
    const id: string = account.id
    const k = JSON.parse((await pronet('keys', 'create', id, '--monthly-credit-limit', '10', '--endpoints', 'profile', '--json')).stdout)
    const [negative, huge, fraction, unknownEndpoint, noEndpoint, nothing, nothingJson, noKey, missingValue] = await Promise.all([
      pronet('keys', 'update', id, k.id, '--monthly-credit-limit', '-1'),
      pronet('keys', 'create', id, '--monthly-credit-limit', '1000000001', '--json'),
      pronet('keys', 'update', id, k.id, '--monthly-credit-limit', '1.5', '--json'),
      pronet('keys', 'create', id, '--endpoints', 'profile,profiles'),
      pronet('keys', 'update', id, k.id, '--endpoints', ''),
      pronet('keys', 'update', id, k.id),
      pronet('keys', 'update', id, k.id, '--json'),
      pronet('keys', 'update', id, 'key_nobody', '--monthly-credit-limit', '5'),
      pronet('keys', 'create', id, '--monthly-credit-limit', '--json'),
    ])
    // Refused by the service's rules: exit 1, the admin API's code naming the field.
    // With --json as the admin API says it; otherwise in the CLI's words (the option, none, all).
    const LIMIT = "Invalid parameter 'monthlyCreditLimit': must be a whole number of credits from 0 to 1,000,000,000, or null for no limit."
    expect([negative.code, negative.stdout, negative.stderr]).toEqual([
      1,
      '',
      'pronet: Invalid --monthly-credit-limit: must be a whole number of credits from 0 to 1,000,000,000, or none for no limit.\n',
    ])
    for (const r of [huge, fraction]) {
      expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([1, '', { error: LIMIT, code: 'INVALID_PARAMETER', details: { parameter: 'monthlyCreditLimit' } }])
    }
    expect([unknownEndpoint.code, unknownEndpoint.stdout, unknownEndpoint.stderr]).toEqual([
      1,
      '',
      "pronet: Invalid --endpoints: 'profiles' is not an endpoint; use the paths after /api/v1/: profile, profile/reactions, profile/articles, posts, posts/updates, company, company/batch, company/posts, post/engagement, post/comments, post/reactions, search/posts, usage, subscription.\n",
    ])
    expect([noEndpoint.code, noEndpoint.stderr]).toEqual([
      1,
      'pronet: Invalid --endpoints: must list at least one endpoint, such as profile,search/posts, or be all to allow every endpoint.\n',
    ])
    expect([noKey.code, noKey.stderr]).toEqual([1, `pronet: No live key 'key_nobody' on account '${id}'.\n`])
    // Usage errors: exit 2.
    expect([nothing.code, nothing.stdout, nothing.stderr]).toEqual([2, '', 'pronet: nothing to change: give at least one of --name, --monthly-credit-limit, --endpoints.\n'])
    expect([nothingJson.code, JSON.parse(nothingJson.stderr)]).toEqual([
      2,
      { error: 'nothing to change: give at least one of --name, --monthly-credit-limit, --endpoints.', code: 'INVALID_PARAMETER' },
    ])
    expect([missingValue.code, missingValue.stdout, JSON.parse(missingValue.stderr).error]).toEqual([2, '', expect.stringMatching(/a value is missing: '--json' is an option/)])

    // The key is as made, and no key was added.
    const shown = JSON.parse((await pronet('accounts', 'show', id, '--json')).stdout)
    expect(shown.keys).toHaveLength(2)
    expect(shown.keys[1]).toMatchObject({ id: k.id, monthlyCreditLimit: 10, endpoints: ['profile'] })
  }, 60_000)

  it('webhooks create/list/update/test/deliveries and alerts show/set: printed as the admin API answers; a test delivery reaches the receiver signed', async () => {
    // A receiver of our own on 127.0.0.1, which the CLI may reach with PRONET_WEBHOOK_PRIVATE_URLS=allow.
    const receiver = await startWebhookReceiver()
    const { url, received } = receiver
    const local = (...args: string[]) => pronetWith({ PRONET_WEBHOOK_PRIVATE_URLS: 'allow' }, ...args)
    let api: { list: unknown; deliveries: unknown; alerts: unknown; patched: unknown }
    try {
      const { account } = JSON.parse((await pronet('accounts', 'create', '--name', 'hooked', '--json')).stdout)
      const id: string = account.id

      // For a person: the endpoint's id, its secret once, then its settings.
      const made = await local('webhooks', 'create', id, '--url', url, '--events', 'credits.low, order.paid')
      expect([made.code, made.stderr]).toEqual([0, ''])
      const [title, secretLine, ...settings] = made.stdout.trimEnd().split('\n')
      const whId = /^webhook (wh_\S+)$/.exec(title ?? '')?.[1] as string
      const secret = /^signing secret \(shown once\): (whsec_\S+)$/.exec(secretLine ?? '')?.[1] as string
      expect([whId, secret]).toEqual([expect.any(String), expect.any(String)])
      expect(settings).toEqual([`url: ${url}`, 'events: credits.low, order.paid', 'enabled: yes'])

      // With --json, the admin API's 201: the endpoint and its secret.
      const second = await pronet('webhooks', 'create', id, '--url', 'https://hooks.example.com/pronet', '--events', 'pack.expired', '--json')
      expect(second.code, second.stderr).toBe(0)
      const other = JSON.parse(second.stdout)
      expect(Object.keys(other)).toEqual(['id', 'url', 'events', 'enabled', 'createdAt', 'secret'])
      expect(other).toMatchObject({ url: 'https://hooks.example.com/pronet', events: ['pack.expired'], enabled: true, secret: expect.stringMatching(/^whsec_/) })

      // Listed oldest first, never with a secret.
      const listed = JSON.parse((await pronet('webhooks', 'list', id, '--json')).stdout)
      expect(listed).toEqual({
        webhooks: [
          { id: whId, url, events: ['credits.low', 'order.paid'], enabled: true, createdAt: expect.any(String) },
          { id: other.id, url: other.url, events: ['pack.expired'], enabled: true, createdAt: other.createdAt },
        ],
      })
      const list = await pronet('webhooks', 'list', id)
      expect([list.code, list.stdout]).toEqual([
        0,
        [
          'webhooks (2):',
          `  ${whId}  created ${listed.webhooks[0].createdAt}`,
          `    url: ${url}`,
          '    events: credits.low, order.paid',
          '    enabled: yes',
          `  ${other.id}  created ${other.createdAt}`,
          '    url: https://hooks.example.com/pronet',
          '    events: pack.expired',
          '    enabled: yes',
          '',
        ].join('\n'),
      ])
      expect(list.stdout.includes(secret) || list.stdout.includes(other.secret)).toBe(false)

      // Disabled, then enabled again with other events.
      const disabled = await pronet('webhooks', 'update', id, whId, '--disable')
      expect([disabled.code, disabled.stdout, disabled.stderr]).toEqual([
        0,
        [`webhook ${whId} updated`, `url: ${url}`, 'events: credits.low, order.paid', 'enabled: no (its deliveries wait until it is enabled)', ''].join('\n'),
        '',
      ])
      const enabled = await pronet('webhooks', 'update', id, whId, '--enable', '--events', 'order.paid,credits.exhausted', '--json')
      expect([enabled.code, JSON.parse(enabled.stdout)]).toEqual([0, { id: whId, url, events: ['order.paid', 'credits.exhausted'], enabled: true, createdAt: listed.webhooks[0].createdAt }])

      // A test event: one signed POST of the documented body, and its delivery as every attempt shows it.
      const tested = await local('webhooks', 'test', id, whId)
      const testedBy = Date.now()
      expect([tested.code, tested.stderr]).toEqual([0, ''])
      expect(received).toHaveLength(1)
      const hit = received[0]!
      expect([hit.method, hit.headers['content-type'], hit.headers['user-agent']]).toEqual(['POST', 'application/json', 'pronet-webhooks/1.0'])
      const signature = String(hit.headers['pronet-signature'])
      expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(verifySignature(secret, signature, hit.body, Math.floor(hit.at / 1000))).toBe(true)
      expect(verifySignature(other.secret, signature, hit.body, Math.floor(hit.at / 1000))).toBe(false)
      const event = JSON.parse(hit.body)
      expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'account', 'data'])
      expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'webhook.test', account: id, data: { webhookId: whId } })

      // One test event an endpoint 10 seconds after the last: another at once is refused; one after them goes.
      const tooSoon = await local('webhooks', 'test', id, whId)
      expect([tooSoon.code, tooSoon.stdout, tooSoon.stderr]).toEqual([1, '', expect.stringMatching(/^pronet: A test event was sent to this endpoint moments ago; send another in \d+ s\.\n$/)])
      expect(received).toHaveLength(1)
      await new Promise((resolve) => setTimeout(resolve, testedBy + 10_050 - Date.now()))
      const again = await local('webhooks', 'test', id, whId, '--json')
      expect(again.code, again.stderr).toBe(0)
      const sent = JSON.parse(again.stdout)
      expect(sent).toEqual({
        id: `${sent.eventId}.${whId}`,
        eventId: expect.stringMatching(/^evt_/),
        event: 'webhook.test',
        state: 'delivered',
        createdAt: expect.any(String),
        nextAttemptAt: null,
        attempts: [{ at: expect.any(String), status: 204, error: null, durationMs: expect.any(Number) }],
      })
      expect(received).toHaveLength(2)
      expect(sent.eventId === event.id).toBe(false)

      // Newest first, each with its attempts; --limit takes the newest.
      const deliveries = JSON.parse((await pronet('webhooks', 'deliveries', id, whId, '--json')).stdout)
      expect(deliveries.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([sent.eventId, event.id])
      expect(deliveries.deliveries[0]).toEqual(sent)
      expect(JSON.parse((await pronet('webhooks', 'deliveries', id, whId, '--limit', '1', '--json')).stdout)).toEqual({ deliveries: [sent] })
      const [first] = deliveries.deliveries.slice(1) as { createdAt: string; attempts: { at: string; durationMs: number }[] }[]
      const firstLines = [`${first!.createdAt}  webhook.test  ${event.id}  delivered`, `  ${first!.attempts[0]!.at}  HTTP 204  ${first!.attempts[0]!.durationMs} ms`]
      expect(tested.stdout).toBe([`test event sent to webhook ${whId}:`, ...firstLines.map((l) => `  ${l}`), ''].join('\n'))
      const shown = await pronet('webhooks', 'deliveries', id, whId)
      expect([shown.code, shown.stdout]).toEqual([
        0,
        [
          'deliveries (2, newest first):',
          `  ${sent.createdAt}  webhook.test  ${sent.eventId}  delivered`,
          `    ${sent.attempts[0].at}  HTTP 204  ${sent.attempts[0].durationMs} ms`,
          ...firstLines.map((l) => `  ${l}`),
          '',
        ].join('\n'),
      ])
      expect((await pronet('webhooks', 'deliveries', id, other.id)).stdout).toBe('no deliveries\n')

      // The balance alert: none until set; none again with `none`.
      expect((await pronet('alerts', 'show', id)).stdout).toBe('low-balance alert (credits.low): none\n')
      const set = await pronet('alerts', 'set', id, '5000')
      expect([set.code, set.stdout, set.stderr]).toEqual([0, 'low-balance alert (credits.low): below 5000 credits\n', ''])
      expect(JSON.parse((await pronet('alerts', 'show', id, '--json')).stdout)).toEqual({ lowCredits: 5000 })
      expect(JSON.parse((await pronet('alerts', 'set', id, 'none', '--json')).stdout)).toEqual({ lowCredits: null })
      expect((await pronet('alerts', 'set', id, '1')).stdout).toBe('low-balance alert (credits.low): below 1 credit\n')

      // A server on the same store: the admin API answers as the CLI prints.
      const c = await createContainer(loadConfig({ ...baseEnv(), PRONET_ADMIN_TOKEN: 'admin-token', PRONET_WEBHOOK_PRIVATE_URLS: 'allow' }))
      const app = await buildApp(c)
      const admin = { authorization: 'Bearer admin-token' }
      try {
        const get = async (path: string) => {
          const res = await app.inject({ url: path, headers: admin })
          expect(res.statusCode, res.body).toBe(200)
          return res.json()
        }
        const patch = await app.inject({ method: 'PATCH', url: `/admin/v1/accounts/${id}/webhooks/${other.id}`, headers: admin, payload: { events: ['pack.expiring', 'pack.expired'] } })
        expect(patch.statusCode, patch.body).toBe(200)
        api = {
          list: await get(`/admin/v1/accounts/${id}/webhooks`),
          deliveries: await get(`/admin/v1/accounts/${id}/webhooks/${whId}/deliveries`),
          alerts: await get(`/admin/v1/accounts/${id}/alerts`),
          patched: patch.json(),
        }
      } finally {
        await app.close()
        await c.close()
      }
      expect(JSON.parse((await pronet('webhooks', 'list', id, '--json')).stdout)).toEqual(api.list)
      expect(JSON.parse((await pronet('webhooks', 'deliveries', id, whId, '--json')).stdout)).toEqual(api.deliveries)
      expect(JSON.parse((await pronet('alerts', 'show', id, '--json')).stdout)).toEqual(api.alerts)
      const same = await pronet('webhooks', 'update', id, other.id, '--events', 'pack.expiring,pack.expired', '--json')
      expect([same.code, JSON.parse(same.stdout)]).toEqual([0, api.patched])

      // Deleted: gone from the list, and a second delete finds nothing.
      const deleted = await pronet('webhooks', 'delete', id, other.id)
      expect([deleted.code, deleted.stdout]).toEqual([0, `webhook ${other.id} deleted\n`])
      expect(JSON.parse((await pronet('webhooks', 'delete', id, whId, '--json')).stdout)).toEqual({ deleted: whId })
      expect((await pronet('webhooks', 'list', id)).stdout).toBe('no webhooks\n')
      const gone = await pronet('webhooks', 'delete', id, whId)
      expect([gone.code, gone.stdout, gone.stderr]).toEqual([1, '', `pronet: No webhook '${whId}' on account '${id}'.\n`])
      // Nothing else reached the receiver: the CLI sends only what it is asked to.
      expect(received).toHaveLength(2)
    } finally {
      await receiver.close()
    }
  }, 120_000)

  it('webhooks and alerts refuse bad values as the admin API does, and change nothing', async () => {
    const { account } = JSON.parse((await pronet('accounts', 'create', '--name', 'bad hooks', '--json')).stdout)
    const id: string = account.id
    const wh = JSON.parse((await pronet('webhooks', 'create', id, '--url', 'https://hooks.example.com/a', '--events', 'order.paid', '--json')).stdout)
    expect((await pronet('alerts', 'set', id, '100')).code).toBe(0)
    const [plainHttp, loopback, unknownEvent, noEvent, noUrl, nothing, both, limitZero, limitHuge, negative, fraction, huge, noWebhook, noAccount, missingValue] = await Promise.all([
      pronet('webhooks', 'create', id, '--url', 'http://hooks.example.com/a', '--events', 'order.paid'),
      pronet('webhooks', 'create', id, '--url', 'https://127.0.0.1/hooks', '--events', 'order.paid', '--json'),
      pronet('webhooks', 'update', id, wh.id, '--events', 'order.paid,order.refunded'),
      pronet('webhooks', 'create', id, '--url', 'https://hooks.example.com/b', '--events', ' , '),
      pronet('webhooks', 'create', id, '--events', 'order.paid', '--json'),
      pronet('webhooks', 'update', id, wh.id),
      pronet('webhooks', 'update', id, wh.id, '--enable', '--disable', '--json'),
      pronet('webhooks', 'deliveries', id, wh.id, '--limit', '0'),
      pronet('webhooks', 'deliveries', id, wh.id, '--limit', '101', '--json'),
      pronet('alerts', 'set', id, '-1'),
      pronet('alerts', 'set', id, '1.5', '--json'),
      pronet('alerts', 'set', id, '1000000001'),
      pronet('webhooks', 'test', id, 'wh_nobody'),
      pronet('alerts', 'show', 'acc_nobody'),
      pronet('webhooks', 'create', id, '--url', '--json', '--events', 'order.paid'),
    ])
    // Refused by the service's rules: exit 1; with --json as the admin API says it, otherwise naming the option.
    expect([plainHttp.code, plainHttp.stdout, plainHttp.stderr]).toEqual([1, '', 'pronet: Invalid --url: must be an https address.\n'])
    expect([loopback.code, loopback.stdout, JSON.parse(loopback.stderr)]).toEqual([
      1,
      '',
      { error: "Invalid parameter 'url': must be an address on the public internet, not a private or local one.", code: 'INVALID_PARAMETER', details: { parameter: 'url' } },
    ])
    const EVENTS = 'credits.low, credits.exhausted, pack.expiring, pack.expired, subscription.renewed, subscription.changed, order.paid'
    expect([unknownEvent.code, unknownEvent.stderr]).toEqual([1, `pronet: Invalid --events: 'order.refunded' is not an event; use: ${EVENTS}.\n`])
    expect([noEvent.code, noEvent.stderr]).toEqual([1, `pronet: Invalid --events: must list at least one of: ${EVENTS}.\n`])
    const LOW = "Invalid parameter 'lowCredits': must be a whole number of credits from 0 to 1,000,000,000, or null for no alert."
    const LOW_CLI = 'Invalid <credits>: must be a whole number of credits from 0 to 1,000,000,000, or none for no alert.'
    expect([negative.code, negative.stdout, negative.stderr]).toEqual([1, '', `pronet: ${LOW_CLI}\n`])
    expect([fraction.code, JSON.parse(fraction.stderr)]).toEqual([1, { error: LOW, code: 'INVALID_PARAMETER', details: { parameter: 'lowCredits' } }])
    expect([huge.code, huge.stderr]).toEqual([1, `pronet: ${LOW_CLI}\n`])
    expect([noWebhook.code, noWebhook.stdout, noWebhook.stderr]).toEqual([1, '', `pronet: No webhook 'wh_nobody' on account '${id}'.\n`])
    expect([noAccount.code, noAccount.stderr]).toEqual([1, "pronet: No account 'acc_nobody'.\n"])
    // Usage errors: exit 2.
    expect([noUrl.code, noUrl.stdout, JSON.parse(noUrl.stderr)]).toEqual([2, '', { error: "required option '--url <url>' not specified", code: 'INVALID_PARAMETER' }])
    expect([nothing.code, nothing.stdout, nothing.stderr]).toEqual([2, '', 'pronet: nothing to change: give at least one of --url, --events, --enable, --disable.\n'])
    expect([both.code, JSON.parse(both.stderr)]).toEqual([2, { error: "option '--enable' cannot be used with option '--disable'", code: 'INVALID_PARAMETER' }])
    expect([limitZero.code, limitZero.stdout, limitZero.stderr]).toMatchObject([2, '', expect.stringMatching(/--limit must be an integer from 1 to 100\./)])
    expect([limitHuge.code, JSON.parse(limitHuge.stderr)]).toEqual([2, { error: expect.stringMatching(/--limit must be an integer from 1 to 100\.$/), code: 'INVALID_PARAMETER' }])
    expect([missingValue.code, missingValue.stdout, JSON.parse(missingValue.stderr).error]).toEqual([2, '', expect.stringMatching(/a value is missing: '--json' is an option/)])

    // The endpoint and the alert are as set, and no endpoint was added.
    expect(JSON.parse((await pronet('webhooks', 'list', id, '--json')).stdout)).toEqual({ webhooks: [{ id: wh.id, url: wh.url, events: ['order.paid'], enabled: true, createdAt: wh.createdAt }] })
    expect(JSON.parse((await pronet('alerts', 'show', id, '--json')).stdout)).toEqual({ lowCredits: 100 })
  }, 60_000)

  it('refuses bad input with a message and a non-zero exit', async () => {
    const missing = await pronet('accounts', 'show', 'acc_missing')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/No account/)
    const badPlan = await pronet('accounts', 'create', '--plan', 'gold')
    expect(badPlan.code).not.toBe(0)
    expect(badPlan.stderr).toMatch(/gold/)
  }, 60_000)

  it('ingest and seed write into the store', async () => {
    const file = join(dir, 'records.ndjson')
    writeFileSync(file, toNdjson(fixtureRecords()))
    const ingested = await pronet('ingest', file, '--json')
    expect(ingested.code).toBe(0)
    expect(JSON.parse(ingested.stdout)).toMatchObject({ failed: 0, ok: fixtureRecords().length })

    const seeded = await pronet('seed', '--size', '40', '--anchor', '2026-01-01T00:00:00Z', '--json')
    expect(seeded.code).toBe(0)
    const out = JSON.parse(seeded.stdout)
    expect(out.records).toBeGreaterThan(1000)
    expect(out.counts.profiles).toBe(40 + 2)

    // Another network onto this one is refused before anything is written (its names clashed part-way
    // through, leaving hundreds of its records behind); the same one again upserts.
    const other = await pronet('seed', '--size', '60', '--anchor', '2026-01-01T00:00:00Z', '--json')
    expect([other.code, other.stdout]).toEqual([1, ''])
    expect(JSON.parse(other.stderr)).toMatchObject({
      code: 'INVALID_PARAMETER',
      error: 'this store holds the synthetic network of seed 1, size 40, anchor 2026-01-01T00:00:00.000Z; another network\'s records would clash with its names part-way through. Seed an empty data dir, or give that seed, size and anchor again.',
    })
    const again = await pronet('seed', '--size', '40', '--anchor', '2026-01-01T00:00:00Z', '--json')
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).counts).toEqual(out.counts)
    // An anchor whose network would reach back before the ids can (19 digits: mid-1977) is refused.
    const early = await pronet('seed', '--size', '40', '--anchor', '1978-01-01T00:00:00Z')
    expect([early.code, early.stderr]).toEqual([2, expect.stringMatching(/^pronet: the anchor 1978-01-01T00:00:00\.000Z is before 2004-01-01T00:00:00\.000Z/)])

    const future = await pronet('seed', '--size', '40', '--anchor', '2999-01-01T00:00:00Z')
    expect([future.code, future.stderr]).toEqual([2, 'pronet: the anchor 2999-01-01T00:00:00.000Z is in the future.\n'])
    // Refused options are told before the store is opened: a data dir that did not exist is not made
    // (it was, with an empty store and a secret, for an anchor refused).
    const fresh = join(dir, 'not-made')
    for (const args of [['--anchor', '1978-01-01T00:00:00Z'], ['--anchor', '2999-01-01T00:00:00Z'], ['--size', 'huge'], ['--anchor', '2025-02-30T10:00:00Z']]) {
      const refused = await pronetWith({ PRONET_DATA_DIR: fresh }, 'seed', ...args)
      expect(refused.code, refused.stderr).toBe(2)
      expect(existsSync(fresh), args.join(' ')).toBe(false)
    }
    // A day that does not exist is refused as a usage error, not rolled over into March (it seeded
    // a network anchored at 2025-03-02).
    const rolled = await pronet('seed', '--size', '40', '--anchor', '2025-02-30T10:00:00Z')
    expect([rolled.code, rolled.stdout]).toEqual([2, ''])
    expect(rolled.stderr).toMatch(/^pronet: --anchor must be an ISO 8601 instant/)
  }, 120_000)

  it('subscription set, packs add and quote, and accounts show with the subscription', async () => {
    const { account } = JSON.parse((await pronet('accounts', 'create', '--name', 'billing', '--json')).stdout)
    const id: string = account.id

    const added = await pronet('packs', 'add', id, '--credits', '50000', '--json')
    expect(added.code).toBe(0)
    const pack = JSON.parse(added.stdout)
    expect(Object.keys(pack)).toEqual(['id', 'credits', 'purchasedAt', 'expiresAt', 'price'])
    expect(pack).toMatchObject({ credits: 50000, price: 75 })
    expect(pack.expiresAt).toBe(new Date(addMonths(Date.parse(pack.purchasedAt), 12)).toISOString())

    // A pack whose twelve months are already over is refused, naming the date, and adds nothing.
    const stale = await pronet('packs', 'add', id, '--credits', '100000', '--purchased-at', '2024-02-29T12:00:00Z')
    expect(stale.code).not.toBe(0)
    expect(stale.stderr).toMatch(/purchasedAt|purchased-at/)

    const shown = JSON.parse((await pronet('accounts', 'show', id, '--json')).stdout)
    expect(Object.keys(shown)).toEqual(['account', 'subscription', 'keys'])
    expect(shown.subscription).toMatchObject({
      plan: 'free',
      status: 'free',
      active: true,
      creditsLimit: 1000,
      subscriptionCreditsRemaining: 1000,
      paygCreditsRemaining: 50000,
      creditsRemaining: 51000,
      paygExpiresAt: pack.expiresAt,
      rpsLimit: 5,
      cancelAtPeriodEnd: false,
    })

    const [q50k, q200k, q60k] = await Promise.all([
      pronet('packs', 'quote', '50000', '--json'),
      pronet('packs', 'quote', '--credits', '200000'),
      pronet('packs', 'quote', '--credits', '60000', '--json'),
    ])
    expect(JSON.parse(q50k.stdout)).toEqual({ credits: 50000, price: 75 })
    expect(q200k.stdout.trim()).toBe('200000 credits cost 270.00')
    expect([q60k.code, q60k.stdout, q60k.stderr]).toEqual([1, '', expect.stringMatching(/'credits'.*steps of 50,000/)])

    const renewal = new Date(Date.now() + 10 * 86_400_000).toISOString()
    const set = await pronet(
      'subscription', 'set', id, '--plan', 'custom', '--credits-limit', '5000', '--rps-limit', '20',
      '--renewal-date', renewal, '--cancel-at-period-end', 'true', '--json',
    )
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toEqual({
      plan: 'custom',
      active: true,
      status: 'active',
      creditsRemaining: 55000,
      subscriptionCreditsRemaining: 5000,
      paygCreditsRemaining: 50000,
      paygExpiresAt: pack.expiresAt,
      creditsLimit: 5000,
      creditsUsed: 0,
      renewalDate: renewal,
      rpsLimit: 20,
      cancelAtPeriodEnd: true,
    })

    const [contradictory, badDate, unknown] = await Promise.all([
      pronet('subscription', 'set', id, '--plan', 'free', '--status', 'active'),
      pronet('subscription', 'set', id, '--renewal-date', 'next tuesday'),
      pronet('subscription', 'set', 'acc_missing', '--status', 'past_due'),
    ])
    expect([contradictory.code, contradictory.stderr]).toEqual([1, expect.stringMatching(/'status'.*plan 'free' takes status free/)])
    expect([badDate.code, badDate.stderr]).toEqual([2, expect.stringMatching(/--renewal-date must be an ISO 8601 instant/)])
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', "pronet: No account 'acc_missing'.\n"])

    // Human output: the status changes, the plan still ends at the period end.
    const pastDue = await pronet('subscription', 'set', id, '--status', 'past_due')
    expect(pastDue.code).toBe(0)
    expect(pastDue.stdout).toMatch(/^plan custom, status past_due \(not active\), 20 requests per second$/m)
    expect(pastDue.stdout).toContain(`plan ends ${renewal} (cancel at period end)`)
  }, 120_000)

  it('usage prints the usage report; show, quote and usage print what the admin API and GET /api/v1/usage return', async () => {
    // A server on the same data dir: one billed 404, one unknown path, account endpoints (not counted).
    const c = await createContainer(
      loadConfig({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_ADMIN_TOKEN: 'admin-token' }),
    )
    const { account, apiKey } = await c.accounts.create({ name: 'usage' })
    const id = account.id
    const app = await buildApp(c)
    const admin = { authorization: 'Bearer admin-token' }
    let api: { show: unknown; quote: unknown; usage: unknown }
    try {
      const get = (url: string) => app.inject({ url, headers: { 'x-api-key': apiKey.key } })
      expect((await get('/api/v1/profile?profileUrlOrUrn=nobody-here')).statusCode).toBe(404)
      expect((await get('/api/v1/no-such-path')).statusCode).toBe(404)
      expect((await get('/api/v1/subscription')).statusCode).toBe(200)
      const usage = await get('/api/v1/usage')
      expect(usage.statusCode).toBe(200)
      // When a key was last used is written a few seconds late; the server would write it as it closes.
      await c.accounts.flushKeyUses()
      api = {
        show: (await app.inject({ url: `/admin/v1/accounts/${id}`, headers: admin })).json(),
        quote: (await app.inject({ url: '/admin/v1/packs/quote?credits=1250000', headers: admin })).json(),
        usage: usage.json(),
      }
    } finally {
      await app.close()
      await c.close()
    }

    const before = new Date().toISOString().slice(0, 10)
    const [show, quote, usage] = await Promise.all([
      pronet('accounts', 'show', id, '--json'),
      pronet('packs', 'quote', '--credits', '1250000', '--json'),
      pronet('usage', id, '--json'),
    ])
    const today = new Date().toISOString().slice(0, 10)
    expect(JSON.parse(show.stdout)).toEqual(api.show)
    expect(JSON.parse(quote.stdout)).toEqual(api.quote)
    const report = JSON.parse(usage.stdout)
    if (before === today) expect(report).toEqual(api.usage)

    // Defaults: from the first of this month to today, one entry per day; the account endpoints' calls are not counted.
    expect(report).toMatchObject({
      from: `${today.slice(0, 8)}01`,
      to: today,
      requests: 2,
      billableRequests: 1,
      creditsUsed: 1,
      creditsRemaining: 999,
      subscriptionCreditsRemaining: 999,
      paygCreditsRemaining: 0,
    })
    expect(report.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 1, billableRequests: 1, creditsUsed: 1, statusCodes: { '404': 1 } },
      { endpoint: 'unknown', requests: 1, billableRequests: 0, creditsUsed: 0, statusCodes: { '404': 1 } },
    ])
    expect(report.days).toHaveLength(Number(today.slice(8)))
    expect(report.days[0].date).toBe(report.from)
    expect(report.days.at(-1)).toEqual({ date: today, requests: 2, billableRequests: 1, creditsUsed: 1 })

    const from = new Date(Date.parse(`${today}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10)
    const [human, badDay, reversed, missing] = await Promise.all([
      pronet('usage', id, '--from', from),
      pronet('usage', id, '--from', '2026-02-30'),
      pronet('usage', id, '--from', '2026-07-10', '--to', '2026-07-01'),
      pronet('usage', 'acc_missing'),
    ])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`usage of ${id} from ${from} to ${today}`)
    expect(human.stdout).toContain('requests 2, billable 1, credits used 1')
    expect(human.stdout).toMatch(/^\/api\/v1\/profile +1 +1 +1 +404:1$/m)
    expect(human.stdout).toMatch(new RegExp(`^${from} +0 +0 +0\n.*\n${today} +2 +1 +1$`, 'm'))
    expect([badDay.code, badDay.stderr]).toEqual([2, expect.stringMatching(/--from must be a date in YYYY-MM-DD form/)])
    expect([reversed.code, reversed.stderr]).toEqual([1, expect.stringMatching(/after 'to'/)])
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([1, '', "pronet: No account 'acc_missing'.\n"])
  }, 120_000)

  it('an option whose value is left out does not take the next option as its value (--name --json)', async () => {
    expect((await pronet('accounts', 'create', '--name', 'the store exists')).code).toBe(0)
    const r = await pronet('accounts', 'create', '--name', '--json')
    expect([r.code, r.stdout]).toEqual([2, ''])
    expect(r.stderr).toMatch(/a value is missing: '--json' is an option/)
    // Nothing was created: no account named '--json' in the store.
    const db = new Database(join(dir, 'pronet.db'), { readonly: true })
    expect(db.prepare("SELECT count(*) FROM accounts WHERE name = '--json'").pluck().get()).toBe(0)
    db.close()
  })

  it("with --json, stdout holds the command's JSON alone: the store's log lines go to stderr (a Redis out of reach logged into it)", async () => {
    // A process of its own: the log is written to file descriptor 2, past process.stderr.
    const r = await runCliProcess(['accounts', 'create', '--name', 'beside an absent redis', '--json'], { ...baseEnv(), REDIS_URL: 'redis://127.0.0.1:1/0', LOG_LEVEL: 'warn' })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ account: { name: 'beside an absent redis' } })
    expect(r.stderr).toMatch(/Redis/)
  }, 60_000)

  it('with --json, a failing command prints one JSON error envelope on stderr and keeps its exit code', async () => {
    /** stderr must be exactly one JSON object `{error, code, details?}` and nothing else. */
    const envelope = (r: { stderr: string }) => {
      const body = JSON.parse(r.stderr) as Record<string, unknown>
      expect(Object.keys(body).every((k) => ['error', 'code', 'details'].includes(k))).toBe(true)
      expect(typeof body.error).toBe('string')
      return body
    }
    const { account } = JSON.parse((await pronet('accounts', 'create', '--json')).stdout)
    const [missing, badChoice, unknownOption, badArg, noSize, badPack, rules, missingArg, noSubcommand, earlyJson, zeroSize, hugeAllowance, hugeSize] = await Promise.all([
      pronet('accounts', 'show', 'acc_nope', '--json'),
      pronet('accounts', 'create', '--plan', 'gold', '--json'),
      pronet('keys', 'create', account.id, '--bogus', '--json'),
      pronet('subscription', 'set', account.id, '--renewal-date', 'next tuesday', '--json'),
      pronet('packs', 'quote', '--json'),
      pronet('packs', 'quote', '--credits', '60000', '--json'),
      pronet('subscription', 'set', account.id, '--plan', 'free', '--status', 'active', '--json'),
      pronet('usage', '--json'),
      pronet('--json', 'accounts'),
      pronet('--json', 'accounts', 'show', 'acc_nope'),
      // A network of no profiles (it reached the planner, which threw: exit 1, INTERNAL_ERROR, a stack trace without --json).
      pronet('seed', '--size', '0', '--json'),
      pronet('accounts', 'create', '--plan', 'custom', '--credits-limit', '1000000000000', '--json'),
      // Past what the generator can plan in memory (it failed with "Invalid array length" and a stack).
      pronet('seed', '--size', '99999999999', '--json'),
    ])
    // Refused by the service's rules: exit 1, the HTTP API's envelope and code.
    expect([missing.code, missing.stdout]).toEqual([1, ''])
    expect(envelope(missing)).toMatchObject({ error: "No account 'acc_nope'.", code: 'NOT_FOUND' })
    expect([badPack.code, envelope(badPack)]).toEqual([1, expect.objectContaining({ code: 'INVALID_PARAMETER', error: expect.stringMatching(/steps of 50,000/) })])
    expect([rules.code, envelope(rules)]).toEqual([1, expect.objectContaining({ code: 'INVALID_PARAMETER', error: expect.stringMatching(/plan 'free' takes status free/) })])
    // Usage errors (commander's and the commands' own): exit 2, INVALID_PARAMETER, no usage text.
    for (const [r, message] of [
      [badChoice, /gold/],
      [unknownOption, /--bogus/],
      [badArg, /--renewal-date must be an ISO 8601 instant/],
      [noSize, /give the pack size/],
      [missingArg, /missing required argument 'accountId'/],
      [noSubcommand, /--json/],
      [zeroSize, /--size must be small, medium, large or a profile count from 20 to 500,000/],
      [hugeSize, /--size must be small, medium, large or a profile count from 20 to 500,000/],
      [hugeAllowance, /--credits-limit must be an integer from 0 to 1000000000/],
    ] as const) {
      expect([r.code, r.stdout], r.stderr).toEqual([2, ''])
      expect(envelope(r)).toMatchObject({ code: 'INVALID_PARAMETER', error: expect.stringMatching(message) })
      expect(r.stderr).not.toMatch(/Usage:|^error:/m)
    }
    // A number with no bound of its own says its least value only.
    const badQuote = await pronet('packs', 'quote', 'abc', '--json')
    expect([badQuote.code, envelope(badQuote)]).toEqual([2, { error: expect.stringMatching(/credits must be an integer of at least 1\.$/), code: 'INVALID_PARAMETER' }])
    // --json before the command is the command's own, as after it.
    expect([earlyJson.code, earlyJson.stdout, envelope(earlyJson)]).toEqual([1, '', { error: "No account 'acc_nope'.", code: 'NOT_FOUND' }])
    const earlyQuote = await pronet('--json', 'packs', 'quote', '200000')
    expect([earlyQuote.code, JSON.parse(earlyQuote.stdout)]).toEqual([0, { credits: 200_000, price: 270 }])

    // A bad environment (exit 2) and an unexpected failure (exit 1, INTERNAL_ERROR) are JSON too.
    const badEnv = await pronetWith({ PRONET_SEED: 'huge' }, 'accounts', 'show', 'acc_nope', '--json')
    expect([badEnv.code, envelope(badEnv)]).toEqual([2, expect.objectContaining({ code: 'INVALID_PARAMETER', error: expect.stringMatching(/PRONET_SEED/) })])
    const notADir = join(dir, 'records-file')
    writeFileSync(notADir, '')
    const broken = await pronetWith({ PRONET_DATA_DIR: join(notADir, 'data') }, 'accounts', 'show', 'acc_nope', '--json')
    expect([broken.code, envelope(broken).code]).toEqual([1, 'INTERNAL_ERROR'])
    // A store that cannot be opened is told in one line naming the setting, as `npm start` tells it,
    // never as a driver's stack trace; a quote needs no store at all.
    const unusable = await pronetWith({ PRONET_DATA_DIR: join(notADir, 'data') }, 'accounts', 'show', 'acc_nope')
    expect([unusable.code, unusable.stdout, unusable.stderr]).toEqual([1, '', `pronet: PRONET_DATA_DIR ${join(notADir, 'data')} cannot be used: a part of the path is not a directory (ENOTDIR)\n`])
    const unreachable = await pronetWith({ DATABASE_URL: 'postgres://pronet:secret@127.0.0.1:1/none' }, 'accounts', 'show', 'acc_nope')
    expect([unreachable.code, unreachable.stdout, unreachable.stderr]).toEqual([
      1,
      '',
      'pronet: DATABASE_URL postgres://pronet:***@127.0.0.1:1/none cannot be used: connection refused (ECONNREFUSED)\n',
    ])
    const quoted = await pronetWith({ DATABASE_URL: 'postgres://pronet@127.0.0.1:1/none' }, 'packs', 'quote', '200000', '--json')
    expect([quoted.code, JSON.parse(quoted.stdout)]).toEqual([0, { credits: 200_000, price: 270 }])

    // Without --json the output is as before.
    const plain = await pronet('accounts', 'show', 'acc_nope')
    expect([plain.code, plain.stderr]).toEqual([1, "pronet: No account 'acc_nope'.\n"])
    const plainUsage = await pronet('accounts', 'create', '--plan', 'gold')
    expect(plainUsage.code).toBe(2)
    expect(plainUsage.stderr).toMatch(/^error: option '--plan <plan>' argument 'gold' is invalid/)
    expect(plainUsage.stderr).toMatch(/Usage: pronet accounts create/)
  }, 120_000)
})

describe('the binary', () => {
  it('as a process of its own, answers as the runs in this process do: output, errors and exit status (0 at the end, 1 and 2 at once)', async () => {
    const notADir = join(dir, 'binary-not-a-dir')
    writeFileSync(notADir, '')
    const cases: { env: Record<string, string>; args: string[] }[] = [
      // Done: exit 0 once the work is over (process.exitCode unset), help included.
      { env: {}, args: ['packs', 'quote', '--credits', '200000'] },
      { env: {}, args: ['accounts', '--help'] },
      // Refused by the service's rules: exit 1 through process.exitCode.
      { env: {}, args: ['accounts', 'show', 'acc_missing'] },
      // Usage errors, commander's and the commands' own, with and without --json: exit 2 at once.
      { env: {}, args: ['accounts', 'create', '--plan', 'gold'] },
      { env: {}, args: ['accounts', 'create', '--plan', 'gold', '--json'] },
      { env: {}, args: ['--json', 'accounts'] },
      { env: { PRONET_SEED: 'huge' }, args: ['accounts', 'show', 'acc_missing', '--json'] },
      // A store that cannot be opened: exit 1 at once, one line.
      { env: { PRONET_DATA_DIR: join(notADir, 'data') }, args: ['accounts', 'show', 'acc_missing'] },
    ]
    const processes = await Promise.all(cases.map((c) => runCliProcess(c.args, { ...baseEnv(), ...c.env })))
    const here = await Promise.all(cases.map((c) => pronetWith(c.env, ...c.args)))
    expect(processes.map((r) => r.code)).toEqual([0, 0, 1, 2, 2, 2, 2, 1])
    expect(processes).toEqual(here)
    // And a command that writes: the account the process made is in the store.
    const made = await runCliProcess(['accounts', 'create', '--name', 'by the binary', '--json'], baseEnv())
    expect(made.code, made.stderr).toBe(0)
    const { account } = JSON.parse(made.stdout)
    const shown = await pronet('accounts', 'show', account.id, '--json')
    expect(JSON.parse(shown.stdout).account).toEqual(account)
  }, 60_000)
})

describe('the test clock (PRONET_TEST_CLOCK=1) is kept in the store', () => {
  it('a restart and the CLI keep to the instant the operator set; without PRONET_TEST_CLOCK, real time', async () => {
    const clockDir = mkdtempSync(join(tmpdir(), 'pronet-clock-'))
    const env = { PRONET_DATA_DIR: clockDir, PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_TEST_CLOCK: '1', PRONET_ADMIN_TOKEN: 'clock-admin' }
    const SET = Date.UTC(2030, 0, 31, 12)
    const serve = async () => {
      const c = await createContainer(loadConfig(env), { commitInWorker: false })
      const app = await buildApp(c)
      return { c, app, close: async () => (await app.close(), await c.close()) }
    }
    const near = (iso: string) => Math.abs(Date.parse(iso) - SET) < 60_000
    try {
      const first = await serve()
      const put = await first.app.inject({ method: 'PUT', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' }, payload: { now: new Date(SET).toISOString() } })
      expect(put.statusCode, put.body).toBe(200)
      await first.close()

      // The next start reads the clock where it was set (and running since).
      const second = await serve()
      const now = (await second.app.inject({ method: 'GET', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' } })).json() as { now: string }
      expect(near(now.now), now.now).toBe(true)
      // Epoch milliseconds set it too, as a JSON number.
      const byNumber = await second.app.inject({ method: 'PUT', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' }, payload: { now: SET } })
      expect(byNumber.statusCode, byNumber.body).toBe(200)
      expect(near((byNumber.json() as { now: string }).now), byNumber.body).toBe(true)
      // Past the year 9999 it is refused and changes nothing (it used to be set, and every call failed).
      // So is the last year: a pack bought then would expire in the year 10000, which the API cannot write
      // in ISO 8601's four digits ("+010000-…" was served); its last instant is accepted.
      for (const now of ['99999999999999999', '2030-02-30T00:00:00Z', '9999-01-01T00:00:00Z', '9999-12-31T12:00:00Z']) {
        const far = await second.app.inject({ method: 'PUT', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' }, payload: { now } })
        expect(far.statusCode, far.body).toBe(400)
        expect(far.json()).toMatchObject({ code: 'INVALID_PARAMETER', error: expect.stringContaining("'now'") })
      }
      const still = (await second.app.inject({ method: 'GET', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' } })).json() as { now: string }
      expect(near(still.now), still.now).toBe(true)
      const last = await second.app.inject({ method: 'PUT', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' }, payload: { now: '9998-12-31T23:59:59Z' } })
      expect(last.statusCode, last.body).toBe(200)
      const { apiKey, account: late } = (
        await second.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: 'Bearer clock-admin' }, payload: { plan: 'custom', creditsLimit: 10 } })
      ).json() as { apiKey: { key: string }; account: { id: string } }
      const pack = await second.app.inject({ method: 'POST', url: `/admin/v1/accounts/${late.id}/packs`, headers: { authorization: 'Bearer clock-admin' }, payload: { credits: 50_000 } })
      expect(pack.json().expiresAt).toMatch(/^9999-12-31T/)
      const sub = (await second.app.inject({ method: 'GET', url: '/api/v1/subscription', headers: { 'x-api-key': apiKey.key } })).json() as { renewalDate: string; paygExpiresAt: string }
      expect([sub.renewalDate, sub.paygExpiresAt]).toEqual([expect.stringMatching(/^9999-01-31T/), expect.stringMatching(/^9999-12-31T/)])
      await second.app.inject({ method: 'PUT', url: '/admin/v1/clock', headers: { authorization: 'Bearer clock-admin' }, payload: { now: SET } })
      await second.close()

      // The CLI on the same store, with PRONET_TEST_CLOCK=1, stamps with that clock.
      const created = await pronetWith(env, 'accounts', 'create', '--name', 'clocked', '--json')
      expect(created.code, created.stderr).toBe(0)
      const { account } = JSON.parse(created.stdout) as { account: { createdAt: string } }
      expect(near(account.createdAt), account.createdAt).toBe(true)
      // Without it, the CLI is on real time.
      const real = JSON.parse((await pronetWith({ ...env, PRONET_TEST_CLOCK: '' }, 'accounts', 'create', '--json')).stdout) as { account: { createdAt: string } }
      expect(Math.abs(Date.parse(real.account.createdAt) - Date.now()) < 60_000, real.account.createdAt).toBe(true)
    } finally {
      rmSync(clockDir, { recursive: true, force: true })
    }
  }, 120_000)
})
