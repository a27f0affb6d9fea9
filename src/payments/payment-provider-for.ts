/** The provider PRONET_PAYMENTS names, built from the configuration. */
import type { PaymentProvider } from './payment-provider.ts'
import { createManualProvider } from './manual-provider.ts'
import { createStripeProvider } from './stripe-provider.ts'
import { createTestProvider } from './test-provider.ts'

export function paymentProviderFor(config: {
  payments: 'manual' | 'stripe' | 'test'
  stripe: { secretKey: string; webhookSecret: string } | undefined
}): PaymentProvider {
  switch (config.payments) {
    case 'test':
      return createTestProvider()
    case 'stripe':
      // The configuration refuses PRONET_PAYMENTS=stripe without both keys.
      if (!config.stripe) throw new Error('PRONET_PAYMENTS=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET')
      return createStripeProvider(config.stripe)
    case 'manual':
      return createManualProvider()
  }
}
