import { defineConfig } from 'vitest/config'

// The HTTP suites that build their app with makeTestApp run twice: on the embedded store, and on
// PostgreSQL + Redis (PRONET_TEST_BACKEND=postgres: a fresh database per suite, the Redis limiter and
// key-revocation bus). One suite, every backend.
const EVERY_BACKEND = [
  'test/integration/admin.routes.test.ts',
  'test/integration/auth.routes.test.ts',
  'test/integration/client-gone.test.ts',
  'test/integration/company.routes.test.ts',
  'test/integration/console.routes.test.ts',
  'test/integration/engagement.routes.test.ts',
  'test/integration/errors.test.ts',
  'test/integration/metering-race.test.ts',
  'test/integration/metering.test.ts',
  'test/integration/openapi.test.ts',
  'test/integration/posts.routes.test.ts',
  'test/integration/profile.routes.test.ts',
  'test/integration/rate-budget.test.ts',
  'test/integration/real-names.test.ts',
  'test/integration/search-time-budget.test.ts',
  'test/property/billing-model.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres+redis', include: EVERY_BACKEND, env: { PRONET_TEST_BACKEND: 'postgres' } } },
    ],
  },
})
