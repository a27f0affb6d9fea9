/**
 * Starts the service: config → container → first-start preparation → app → listen, with a graceful
 * close on SIGINT/SIGTERM. Shared by `npm start` and `pronet serve`.
 *
 * What the operator can fix (data dir, database, address) fails as a StartupError: one line naming
 * the setting, no stack (see config/startup-failure.ts).
 */
import { accessSync, constants } from 'node:fs'
import { createServer } from 'node:net'
import { buildApp } from './app.ts'
import { startWebhookWork } from './webhooks/webhook-runner.ts'
import { ConfigError, isWildcardHost, urlHost, type Config } from './config/config.ts'
import { makeDirs } from './config/make-dirs.ts'
import { claimDataDir } from './config/serving-claim.ts'
import { dataDirFailure, listenFailure, StartupError } from './config/startup-failure.ts'
import { collectDefaultMetrics } from 'prom-client'
import { openContainer } from './container.ts'
import { keepTickObjectShape } from './runtime/tick-object-shape.ts'
import { seedSynthetic } from './seed.ts'
import { prepareStore } from './startup.ts'
import { weakSecretNotes } from './config/weak-secrets.ts'
import { METRICS_HOST, metricsListenFailure, startMetricsServer, type MetricsServer } from './observability/metrics-server.ts'

/** How often housekeeping runs (console sessions, old upstream answers). */
const HOUSEKEEPING_MS = 60 * 60 * 1000

export async function serve(config: Config): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`)
  await keepTickObjectShape()
  // Both checked before the first start, which may take minutes, rather than failing after it.
  if (!config.databaseUrl) checkDataDir(config.dataDir)
  await checkBindable(config.host, config.port)
  const metricsPort = config.metricsPort
  if (metricsPort !== undefined) await checkBindable(METRICS_HOST, metricsPort, metricsListenFailure)
  const release = config.databaseUrl ? () => {} : claim(config.dataDir)
  let container: Awaited<ReturnType<typeof openContainer>>
  try {
    container = await openContainer(config)
  } catch (e) {
    release()
    throw e
  }
  collectDefaultMetrics({ register: container.metrics, prefix: 'pronet_' })
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  let metricsServer: MetricsServer | undefined
  let report: Awaited<ReturnType<typeof prepareStore>>
  try {
    report = await prepareStore(container, seedSynthetic, say)
    app = await buildApp(container)
    await app.listen({ port: config.port, host: config.host }).catch((e: unknown) => {
      throw listenFailure(config.host, config.port, e)
    })
    if (metricsPort !== undefined) {
      metricsServer = await startMetricsServer({
        registry: container.metrics,
        port: metricsPort,
        onError: (err) => container.logger.error({ err }, 'metrics could not be rendered for a scrape'),
      }).catch((e: unknown) => {
        throw metricsListenFailure(metricsPort, e)
      })
    }
  } catch (e) {
    // Release the store (a PostgreSQL session, the commit worker) before the caller exits.
    await app?.close().catch(() => {})
    await container.close().catch(() => {})
    release()
    throw e
  }
  const server = app
  // Expired console sessions, used links and old sign-in counters are cleared now and then.
  const housekeeping = setInterval(() => {
    container.identity.purge().catch((err: unknown) => container.logger.warn({ err }, 'could not clear expired console sessions; tried again later'))
    container.live?.prune().catch((err: unknown) => container.logger.warn({ err }, 'could not delete old upstream answers; tried again later'))
  }, HOUSEKEEPING_MS)
  housekeeping.unref()
  const webhookWork = startWebhookWork(container.webhooks, (err, what) => container.logger.warn({ err }, `could not ${what}; tried again shortly`))
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    clearInterval(housekeeping)
    say(`${signal}: closing…`)
    await webhookWork.stop()
    await metricsServer?.close()
    await server.close()
    await container.close()
    release()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const base = `http://${urlHost(config.host)}:${port}`
  say(`pronet listening on ${base}  (docs: /docs, OpenAPI: /openapi.json)`)
  if (metricsServer) say(`Metrics: http://${METRICS_HOST}:${metricsServer.port}/metrics (this machine only, no token)`)
  if (isWildcardHost(config.host) && !config.buyCreditsUrlSet) {
    say(`Note: the console's links and 402 answers name ${config.publicUrl}; set PRONET_PUBLIC_URL to the address customers reach this service at.`)
  }
  for (const note of weakSecretNotes(config)) say(note)
  if (report.demoKey) {
    say(`Demo API key (shown once; also saved to ${report.demoKeyFile}):`)
    say(`  ${report.demoKey}`)
    // A profile of this store: the network depends on PRONET_SEED and PRONET_PLATFORM_HOST, and
    // PRONET_SEED=none has none (a tip to a missing profile would be a billed 404).
    if (report.exampleProfile !== undefined) {
      say(`Try: curl -H "X-API-Key: ${report.demoKey}" "${base}/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(report.exampleProfile)}"`)
    }
    say('(more in the README\'s five-minute tour)')
  } else if (report.demoKeyFile) {
    say(`Demo API key: see ${report.demoKeyFile}`)
  }
  if (report.demoUser) {
    say(`Console: ${config.publicUrl}/console/  sign in as ${report.demoUser.email} with password ${report.demoUser.password} (shown once; also saved to ${report.demoUserFile})`)
  } else {
    say(`Console: ${config.publicUrl}/console/${report.demoUserFile ? `  (demo user: see ${report.demoUserFile})` : ''}`)
  }
}

/** The data dir claimed for this process (serving-claim.ts); a file system's refusal is told as the data dir's. */
function claim(dataDir: string): () => void {
  try {
    return claimDataDir(dataDir)
  } catch (e) {
    if (e instanceof StartupError) throw e
    throw dataDirFailure(dataDir, e)
  }
}

/** The embedded store's directory exists (or can be made) and can be written. */
function checkDataDir(dataDir: string): void {
  try {
    makeDirs(dataDir)
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK)
  } catch (e) {
    throw dataDirFailure(dataDir, e)
  }
}

/** Binds HOST:PORT (or the metrics port) once and lets go, so a bad HOST or a taken port is told before any seeding. */
async function checkBindable(host: string, port: number, failure: (port: number, e: unknown) => Error = (p, e) => listenFailure(host, p, e)): Promise<void> {
  const probe = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen({ host, port, exclusive: true }, resolve)
    })
  } catch (e) {
    throw failure(port, e)
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
}

