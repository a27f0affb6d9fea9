import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const ROOT = fileURLToPath(new URL('.', import.meta.url))

/** Every suite, from the file layout: test/**\/*.test.ts. No list of suites is kept by hand. */
const SUITES = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f.split('\\').join('/')}`)
  .sort()
const source = (suite: string) => readFileSync(join(ROOT, suite), 'utf8')

/**
 * The suites that build their app with makeTestApp run twice: on the embedded store, and on
 * PostgreSQL + Redis (PRONET_TEST_BACKEND=postgres: a fresh database per suite, the Redis limiter and
 * key-revocation bus). One suite, every backend. They are found by reading the suites, so a new one
 * runs on both without being listed anywhere. A suite about one backend says so, and why, in a line of
 * its own: `// @one-backend: <why>`; it then runs once, in the 'sqlite' project.
 */
const ONE_BACKEND = /^\/\/ @one-backend: \S/m
const EVERY_BACKEND = SUITES.filter((f) => /\bmakeTestApp\(/.test(source(f)) && !ONE_BACKEND.test(source(f)))

/**
 * The suites that run programs as processes of their own (the server, the CLI, redis-server, a
 * browser), found by reading the suites too. Their load is in their children, which a worker count
 * does not see, and some of them count on a process answering in time (a kill under load, a
 * shutdown, a browser): they run as a group after the others ('processes'), fewer at a time.
 */
const SPAWNS = /\b(startServer|runCliProcess|startRedisServer|spawn|execFile|launchBrowser)\(/
const PROCESSES = SUITES.filter((f) => SPAWNS.test(source(f)))

const CPUS = availableParallelism()

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The app compiled once for the suites that start it as a process (test/helpers/built.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      // In-process suites: one more worker than CPUs, as the PostgreSQL and Redis suites spend much of
      // their time waiting on the servers. A worker runs its files one after another in one process
      // (isolate: false), which spares each file loading the app anew: the suites build their own apps
      // and stores, and none mocks a module or changes a global.
      {
        extends: true,
        test: { name: 'sqlite', include: SUITES, exclude: PROCESSES, isolate: false, maxWorkers: CPUS + 1, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'postgres+redis',
          // All of them, those that also start processes included: none skips PostgreSQL.
          include: EVERY_BACKEND,
          env: { PRONET_TEST_BACKEND: 'postgres' },
          isolate: false,
          maxWorkers: CPUS + 1,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'processes', include: PROCESSES, maxWorkers: CPUS, sequence: { groupOrder: 1 } } },
    ],
  },
})
