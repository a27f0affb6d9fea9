/**
 * Starts the service: config → container → first-start preparation → app → listen, with a graceful
 * close on SIGINT/SIGTERM. Shared by `npm start` and `pronet serve`.
 */
import { buildApp } from './app.ts'
import type { Config } from './config/config.ts'
import { collectDefaultMetrics } from 'prom-client'
import { createContainer } from './container.ts'
import { seedSynthetic } from './seed.ts'
import { prepareStore } from './startup.ts'

export async function serve(config: Config): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`)
  const container = await createContainer(config)
  collectDefaultMetrics({ register: container.metrics, prefix: 'pronet_' })
  const report = await prepareStore(container, seedSynthetic, say)
  const app = await buildApp(container)
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    say(`${signal}: closing…`)
    await app.close()
    await container.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  say(`pronet listening on http://${config.host}:${port}  (docs: /docs, OpenAPI: /openapi.json)`)
  if (report.demoKey) {
    say(`Demo API key (shown once; also saved to ${report.demoKeyFile}):`)
    say(`  ${report.demoKey}`)
    say(`Try: curl -H "X-API-Key: ${report.demoKey}" "http://${config.host}:${port}/api/v1/profile?profileUrlOrUrn=hui-min-lee-175acd"`)
    say('(more in the README\'s five-minute tour)')
  } else if (report.demoKeyFile) {
    say(`Demo API key: see ${report.demoKeyFile}`)
  }
}
