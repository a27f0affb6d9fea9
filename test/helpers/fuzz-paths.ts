/**
 * Calls that miss the API's routes: a documented path with a method it does not take, a documented
 * path bent out of shape (trailing and doubled slashes, case, percent-encoded letters and slashes,
 * dot segments, NUL, broken escapes), and paths that do not exist at all. Each is answered as an
 * unknown path in the error envelope, never by a route it merely resembles.
 */
import fc from 'fast-check'
import { keyAuth, adminAuth } from './fuzz-auth.ts'
import { matchesDocumentedPath, type Operation } from './fuzz-operations.ts'
import { draftOf, render, type FuzzRequest, type Pools } from './fuzz-requests.ts'
import { encodeLoosely, oddEscapes, oddText } from './fuzz-values.ts'

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']

/** Ways to bend a path (no query), each keeping most of it recognisable. */
const BENDS: ((path: string) => string)[] = [
  (p) => `${p}/`,
  (p) => `${p}//`,
  (p) => p.replace('/v1/', '/v1//'),
  (p) => `/${p}`,
  (p) => p.toUpperCase(),
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (p) => p.replace(/\/([^/]*)$/, '%2F$1'),
  (p) => `${p}%2F`,
  (p) => `${p}/..`,
  (p) => `${p}/.`,
  (p) => p.replace('/v1/', '/v1/./'),
  (p) => p.replace('/v1/', '/v2/../v1/'),
  (p) => p.replace('/v1/', '/v1/%2e%2e/v1/'),
  (p) => `${p}/../../admin/v1/accounts`,
  (p) => `${p}/..%2F..%2Fadmin`,
  (p) => `${p};jsessionid=1`,
  (p) => `${p}%00`,
  (p) => `${p}%`,
  (p) => `${p}%zz`,
  (p) => `${p}.json`,
  (p) => `${p}\\`,
  (p) => `${p}%20`,
  (p) => `${p}#fragment`,
  (p) => p.replace(/\/([^/]+)$/, '/$1/$1'),
  (p) => p.replaceAll('/', '%2F'),
  (p) => p.replace(/^\/api\//, '/api%2F'),
  (p) => `${p}${'/x'.repeat(500)}`,
]

/** Segments of paths that do not exist. */
const SEGMENT = fc.oneof(
  fc.constantFrom('profiles', 'users', 'v2', 'posts', 'account', 'accounts', 'keys', 'internal', 'debug', 'metrics', 'health', 'config', '.env', '.git', 'index.php', 'wp-admin', 'graphql', 'x'.repeat(300)),
  fc.stringMatching(/^[a-z0-9_-]{1,20}$/),
  oddText.map(encodeLoosely),
  oddEscapes,
)

const PREFIXES = ['/api/v1/', '/api/v2/', '/api/', '/admin/v1/', '/admin/', '/v1/', '/', '/API/V1/', '/api/v1/profile/', '/admin/v1/accounts/x/']

/** The fixed paths of the app that are not API operations (its reference page, the console, the health check). */
const NOT_API = /^\/(docs|console|openapi\.json|healthz)(\/|$|\?)/

export function offRouteRequests(ops: readonly Operation[], pools: Pools): fc.Arbitrary<FuzzRequest> {
  const methodsAt = new Map<string, Set<string>>()
  for (const op of ops) methodsAt.set(op.path, new Set([...(methodsAt.get(op.path) ?? []), op.method]))
  const op = fc.constantFrom(...ops)

  const wrongMethod = op.chain((o) =>
    fc
      .tuple(draftOf(o, pools), fc.constantFrom(...METHODS.filter((m) => !methodsAt.get(o.path)?.has(m))))
      .map(([d, method]) => render(o, d, { kind: 'wrong-method', method, exact: false })),
  )

  const pathOddity = op.chain((o) =>
    fc.tuple(draftOf(o, pools), fc.nat({ max: BENDS.length - 1 })).map(([d, bend]) => {
      const r = render(o, d, { kind: 'path-oddity', exact: false })
      const [path, query] = splitUrl(r.url)
      return { ...r, url: `${(BENDS[bend] as (p: string) => string)(path)}${query}` }
    }),
  )

  const anyAuth = fc.oneof(keyAuth(pools.credentials), adminAuth(pools.credentials))
  const unknownPath = fc
    .tuple(fc.constantFrom(...PREFIXES), fc.array(SEGMENT, { minLength: 1, maxLength: 3 }), fc.constantFrom(...METHODS), anyAuth, fc.option(fc.constantFrom('a=1', 'count=5&count=6', '%', '__proto__=1'), { nil: undefined }))
    .map(([prefix, segments, method, auth, query]): FuzzRequest => {
      const path = prefix + segments.join('/')
      return {
        target: 'unknown',
        kind: 'unknown-path',
        who: auth.who,
        method,
        url: query === undefined ? path : `${path}?${query}`,
        headers: auth.headers,
        exact: false,
        advanceMs: 0,
      }
    })
    .filter((r) => {
      const path = decodedPath(r.url)
      return !matchesDocumentedPath(ops, path) && !NOT_API.test(path)
    })

  return fc.oneof({ weight: 3, arbitrary: wrongMethod }, { weight: 3, arbitrary: pathOddity }, { weight: 4, arbitrary: unknownPath })
}

/** A URL's path as the router reads it (percent-escapes decoded where they can be). */
function decodedPath(url: string): string {
  const [path] = splitUrl(url)
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** A URL's path and its query (with its `?`). */
export function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?')
  return i < 0 ? [url, ''] : [url.slice(0, i), url.slice(i)]
}
