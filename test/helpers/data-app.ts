/**
 * An app serving only the data routes, through the real gateway and error handling, over a test
 * container's services, with any of them replaced: a route list of the test's own, or a content
 * service over a store that watches who reads it. For tests of how routes are registered and
 * metered; makeTestApp builds the whole app.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import type { Container } from '../../src/container.ts'
import type { MeteringService } from '../../src/domain/billing/metering.service.ts'
import type { ContentService } from '../../src/domain/content/content.service.ts'
import type { DataRoute } from '../../src/http/data-route.ts'
import { registerErrorHandling } from '../../src/http/error-handler.ts'
import { createGateway } from '../../src/http/gateway.ts'
import { registerDataRoutes } from '../../src/http/routes/data.routes.ts'

export async function buildDataApp(
  c: Container,
  opts: { routes?: readonly DataRoute[]; content?: ContentService; metering?: MeteringService } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    ajv: { customOptions: { removeAdditional: false } },
    // Request ids name debits in the ledger: unique across the apps a test builds on one container.
    genReqId: () => randomUUID(),
  })
  app.decorateRequest('principal', null)
  app.decorateRequest('meter', null)
  const metering = opts.metering ?? c.metering
  const gateway = createGateway({
    accounts: c.accounts,
    metering,
    clock: c.clock,
    classifyError: c.classifyError,
    onSettleError: (err) => c.logger.error({ err }, 'settle failed'),
  })
  registerErrorHandling(app, c.logger, gateway.recordUnknown, c.classifyError)
  registerDataRoutes(app, {
    content: opts.content ?? c.content,
    search: c.search,
    gateway,
    metering,
    prices: c.config.prices,
    ...(opts.routes ? { routes: opts.routes } : {}),
  })
  await app.ready()
  return app
}
