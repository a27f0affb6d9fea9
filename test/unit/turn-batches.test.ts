/**
 * Calls gathered over one event-loop turn: sent together at its end, in order, split at the
 * maximum; a failed batch fails each of its calls; a later turn makes a new batch.
 */
import { describe, expect, it } from 'vitest'
import { turnBatches } from '../../src/adapters/redis/turn-batches.ts'

const nextTurn = () => new Promise((r) => setImmediate(r))

describe('turnBatches', () => {
  it('sends the calls of one turn together, in order, at the end of the turn', async () => {
    const sent: number[][] = []
    const batches = turnBatches<number, string>(async (items) => {
      sent.push(items)
      return items.map((n) => `r${n}`)
    })
    const replies = [1, 2, 3].map((n) => batches.add(n))
    expect(sent).toEqual([])
    expect(await Promise.all(replies)).toEqual(['r1', 'r2', 'r3'])
    expect(sent).toEqual([[1, 2, 3]])
    expect(await batches.add(4)).toBe('r4')
    expect(sent).toEqual([[1, 2, 3], [4]])
  })

  it('splits a turn at the maximum, every part sent at once', async () => {
    const sent: number[][] = []
    const batches = turnBatches<number, number>(async (items) => {
      sent.push(items)
      return items.map((n) => n * 10)
    }, 2)
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => batches.add(n)))).toEqual([10, 20, 30, 40, 50])
    expect(sent).toEqual([[1, 2], [3, 4], [5]])
  })

  it('fails every call of a failed batch with its error, and only those', async () => {
    let fail = true
    const batches = turnBatches<number, number>(async (items) => {
      if (fail) throw new Error('gone')
      return items
    })
    const failed = await Promise.allSettled([batches.add(1), batches.add(2)])
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['gone', 'gone'])
    fail = false
    await nextTurn()
    expect(await batches.add(3)).toBe(3)
  })

  it('fails the calls of a batch whose reply does not have one part per call', async () => {
    const batches = turnBatches<number, number>(async () => [1])
    const results = await Promise.allSettled([batches.add(1), batches.add(2)])
    expect(results.every((r) => r.status === 'rejected')).toBe(true)
  })
})
