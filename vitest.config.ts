import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const ROOT = fileURLToPath(new URL('.', import.meta.url))

/** Every suite, read from the file layout: test/**\/*.test.ts. */
const SUITES = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f.split('\\').join('/')}`)
  .sort()
const source = (suite: string) => readFileSync(join(ROOT, suite), 'utf8')

/**
 * The suites that build their app with makeTestApp run twice: on the embedded store, and on
 * PostgreSQL + Redis (PRONET_TEST_BACKEND=postgres: a fresh database per suite, the Redis limiter and
 * key-revocation bus). One suite, every backend. Found by reading the suites, so that a new one is on
 * both without being listed anywhere. A suite that is about one backend says so in a line of its own,
 * `// @one-backend: <why>`, and runs once.
 */
const ONE_BACKEND = /^\/\/ @one-backend: \S/m
const EVERY_BACKEND = SUITES.filter((f) => /\bmakeTestApp\(/.test(source(f)) && !ONE_BACKEND.test(source(f)))

/**
 * Suites that run the app or other programs as processes (servers, the CLI, redis-server, a browser):
 * their load is in their children, which the worker count does not see. They run in a group of their
 * own after the others, fewer at a time, each on a machine the in-process suites have left.
 */
const SPAWNS = /\b(startServer|runCliProcess|startRedisServer|spawn|execFile|launchBrowser)\(/
const PROCESSES = SUITES.filter((f) => SPAWNS.test(source(f)))

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The app compiled once for the suites that start it as a process (test/helpers/built.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: SUITES, exclude: PROCESSES, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'postgres+redis',
          include: EVERY_BACKEND,
          exclude: PROCESSES,
          env: { PRONET_TEST_BACKEND: 'postgres' },
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'processes', include: PROCESSES, maxWorkers: 2, sequence: { groupOrder: 1 } } },
    ],
  },
})
