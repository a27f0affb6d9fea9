/**
 * PRONET_PAYMENTS=test: every order is paid at once, with no money, and marked test. For trying the
 * console and for tests; never the default.
 */
import type { PaymentProvider } from './payment-provider.ts'

export function createTestProvider(): PaymentProvider {
  return {
    name: 'test',
    test: true,
    async startCheckout() {
      return { kind: 'paid' }
    },
  }
}
