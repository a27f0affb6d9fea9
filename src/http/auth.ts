/**
 * X-API-Key authentication (spec 5): runs first on every API route, before validation, so a request
 * without a valid key learns nothing else. The principal is attached to the request.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { AccountsService } from '../domain/accounts/accounts.service.ts'

export interface Principal {
  accountId: string
  keyId: string
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
  }
  interface FastifyContextConfig {
    /** D3 operation name of a data route (metering prices and records by it). */
    operation?: import('../domain/billing/prices.ts').Operation
    price?: import('../domain/billing/prices.ts').PriceRule
  }
}

export interface Authenticator {
  hook: onRequestAsyncHookHandler
}

export function createAuthenticator(accounts: AccountsService): Authenticator {
  return {
    async hook(request: FastifyRequest, _reply: FastifyReply) {
      const header = request.headers['x-api-key']
      // A repeated header is ambiguous: treat it as no valid key rather than guess.
      const key = Array.isArray(header) ? '\u0000' : header
      request.principal = await accounts.authenticate(key?.trim())
    },
  }
}
