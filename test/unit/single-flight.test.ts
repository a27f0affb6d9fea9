/**
 * Single-flight: concurrent calls for one key share one run of the work and its outcome; other keys
 * run apart; once a run settles, the next call for its key runs the work again.
 */
import { describe, expect, it } from 'vitest'
import { createSingleFlight } from '../../src/live-source/single-flight.ts'

/** A promise settled from outside, so a test decides when the work ends. */
function deferred<T>() {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('createSingleFlight', () => {
  it('runs the work once for 100 concurrent calls with one key, all getting its value', async () => {
    const flight = createSingleFlight<string, { n: number }>()
    const gate = deferred<{ n: number }>()
    let calls = 0
    const work = () => {
      calls++
      return gate.promise
    }
    const all = Promise.all(Array.from({ length: 100 }, () => flight.run('profile:ada', work)))
    gate.resolve({ n: 42 })
    const values = await all
    expect(calls).toBe(1)
    expect(new Set(values).size).toBe(1)
    expect(values[0]).toEqual({ n: 42 })
    expect(flight.stats()).toEqual({ started: 1, coalesced: 99 })
  })

  it('runs separately for different keys', async () => {
    const flight = createSingleFlight<string, string>()
    const seen: string[] = []
    const values = await Promise.all(
      ['a', 'b', 'a', 'c', 'b'].map((k) =>
        flight.run(k, async () => {
          seen.push(k)
          return `value of ${k}`
        }),
      ),
    )
    expect(seen.sort()).toEqual(['a', 'b', 'c'])
    expect(values).toEqual(['value of a', 'value of b', 'value of a', 'value of c', 'value of b'])
    expect(flight.stats()).toEqual({ started: 3, coalesced: 2 })
  })

  it('shares a rejection with every waiting call, then runs the work anew for a later call', async () => {
    const flight = createSingleFlight<string, string>()
    const gate = deferred<string>()
    let calls = 0
    const failing = () => {
      calls++
      return gate.promise
    }
    const waiting = Array.from({ length: 5 }, () => flight.run('k', failing))
    const failure = new Error('upstream failed')
    gate.reject(failure)
    const outcomes = await Promise.allSettled(waiting)
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason === failure)).toBe(true)
    expect(calls).toBe(1)

    const later = await flight.run('k', async () => {
      calls++
      return 'fresh'
    })
    expect(later).toBe('fresh')
    expect(calls).toBe(2)
    expect(flight.stats()).toEqual({ started: 2, coalesced: 4 })
  })

  it('shares work that throws before it awaits, as a rejection', async () => {
    const flight = createSingleFlight<string, string>()
    let calls = 0
    const throwsAtOnce = (): Promise<string> => {
      calls++
      throw new Error('bad input')
    }
    const outcomes = await Promise.allSettled([flight.run('k', throwsAtOnce), flight.run('k', throwsAtOnce)])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected'])
    expect(calls).toBe(1)
  })
})
