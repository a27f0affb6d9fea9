/**
 * PRONET_PAYMENTS=manual (the default): an order waits for the operator, who approves it once paid
 * (an invoice, a bank transfer) or rejects it; approval grants the pack.
 */
import type { PaymentProvider } from './payment-provider.ts'

export function createManualProvider(): PaymentProvider {
  return {
    name: 'manual',
    test: false,
    async startCheckout() {
      return { kind: 'pending' }
    },
  }
}
