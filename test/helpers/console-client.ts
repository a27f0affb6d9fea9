/**
 * A browser's part in console tests driven through app.inject: it keeps cookies, reads the form token
 * of the last page, and sends forms as a browser does (urlencoded, with the token).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export class ConsoleClient {
  readonly cookies = new Map<string, string>()
  csrf = ''
  /** Sent with every request (an X-Forwarded-For, say). */
  headers: Record<string, string> = {}
  constructor(private readonly app: FastifyInstance) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies) {
      // A cleared cookie comes back empty and dated 1970 (the clocks of tests run elsewhere in time).
      if (c.value === '' || (c.expires !== undefined && c.expires.getTime() < 86_400_000)) this.cookies.delete(c.name)
      else this.cookies.set(c.name, c.value)
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1]
    if (token !== undefined) this.csrf = token
    return res
  }

  private get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { ...this.headers, cookie: this.cookieHeader } }))
  }

  /**
   * Sends a form with the last page's token, unless `csrf: false` or another token is given. A
   * redirect to a console page is followed as a browser does (its form token is the one the next form
   * sends: tokens are bound to the session); the form's own answer is returned.
   */
  async post(url: string, fields: Record<string, string> = {}, o: { csrf?: string | false } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams(fields)
    if (o.csrf !== false) body.set('_csrf', o.csrf ?? this.csrf)
    const res = this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { ...this.headers, cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    )
    const to = res.headers.location
    if (res.statusCode === 303 && typeof to === 'string' && to.startsWith('/console')) await this.get(to)
    return res
  }

  /** Signs up through the pages; returns the first API key the answer shows. */
  async signUp(email: string, password = 'correct horse battery'): Promise<string> {
    await this.get('/console/sign-up')
    const res = await this.post('/console/sign-up', { email, password })
    if (res.statusCode !== 201) throw new Error(`sign-up answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
    return keyIn(res.body)
  }

  async signIn(email: string, password = 'correct horse battery'): Promise<LightMyRequestResponse> {
    await this.get('/console/sign-in')
    return this.post('/console/sign-in', { email, password })
  }
}

/** The API key a page shows (once, after it is made). */
export function keyIn(body: string): string {
  const key = /<code id="new-key-value">(pk_[A-Za-z0-9_-]+)<\/code>/.exec(body)?.[1]
  if (key === undefined) throw new Error('no new key on the page')
  return key
}
