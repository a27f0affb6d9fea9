/**
 * `pronet upstream status`: the live source as the operator sees it. The upstream's own
 * subscription (asked with the operator's key) and the answers kept come from here; the budget in
 * use and the hit ratio are a running node's, read from its admin API (`--url`, default the node's
 * PRONET_PUBLIC_URL, with PRONET_ADMIN_TOKEN), and said to be missing when it cannot be reached.
 */
import type { Command } from 'commander'
import type { Container } from '../container.ts'
import { ApiError } from '../domain/errors.ts'
import type { UpstreamStatus } from '../live-source/live-wiring.ts'

export interface UpstreamCommandHelpers {
  withContainer(fn: (c: Container) => Promise<number | void>): Promise<void>
  print(json: boolean | undefined, value: unknown, human: string): void
}

const NODE_TIMEOUT_MS = 5_000

async function nodeStatus(url: string, token: string | undefined): Promise<{ status?: UpstreamStatus; unavailable?: string }> {
  if (!token) return { unavailable: 'PRONET_ADMIN_TOKEN is not set, so the running node cannot be asked' }
  try {
    const res = await fetch(new URL('/admin/v1/upstream', url), { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(NODE_TIMEOUT_MS) })
    if (res.status !== 200) return { unavailable: `the node at ${new URL(url).origin} answered ${res.status}` }
    return { status: (await res.json()) as UpstreamStatus }
  } catch {
    return { unavailable: `no node answered at ${new URL(url).origin}` }
  }
}

const pct = (ratio: number | null) => (ratio === null ? 'no answers yet' : `${(ratio * 100).toFixed(1)}%`)

export function registerUpstreamCommands(program: Command, { withContainer, print }: UpstreamCommandHelpers): void {
  const upstream = program.command('upstream').description('the live data source (PRONET_SOURCE=upstream or upstream-only)')
  upstream
    .command('status')
    .description("the upstream's subscription, the request budget in use, the cache hit ratio and the answers kept")
    .option('--url <url>', "a running node's address (default PRONET_PUBLIC_URL, itself by default http://HOST:PORT)")
    .option('--json', 'print JSON')
    .action(async (opts: { url?: string; json?: boolean }) =>
      withContainer(async (c) => {
        const live = c.live
        if (!live) throw new ApiError('INVALID_PARAMETER', 'This node has no live source: PRONET_SOURCE is store (set it to upstream or upstream-only).')
        const here = await live.status()
        const node = await nodeStatus(opts.url ?? c.config.publicUrl, c.config.adminToken)
        const out = {
          mode: here.mode,
          subscription: here.subscription,
          kept: here.kept,
          budget: node.status?.budget ?? { rps: here.budget.rps },
          node: node.status?.node ?? null,
          ...(node.unavailable ? { nodeUnavailable: node.unavailable } : {}),
        }
        const sub = here.subscription as { plan?: string; creditsRemaining?: number; error?: string; message?: string } | null
        const lines = [
          `mode: ${here.mode}`,
          sub?.error ? `upstream subscription: unavailable (${sub.error}: ${sub.message ?? ''})` : `upstream subscription: plan ${sub?.plan ?? '?'}, ${sub?.creditsRemaining ?? '?'} credits remaining`,
          `budget: ${here.budget.rps} requests per second for all nodes` +
            (node.status ? `; this node sent ${node.status.budget.sentLastSecond} in the last second, ${node.status.budget.waiting} waiting` : ''),
          node.status
            ? `this node: hit ratio ${pct(node.status.node.hitRatio)}, upstream credits spent ${node.status.node.creditsSpent}, coalesced ${node.status.node.coalesced.node + node.status.node.coalesced.cluster}`
            : `this node: ${node.unavailable}`,
          `answers kept: ${here.kept === null ? 'none (upstream-only keeps nothing)' : Object.entries(here.kept).map(([op, n]) => `${op} ${n}`).join(', ') || '0'}`,
        ]
        print(opts.json, out, lines.join('\n'))
      }),
    )
}
