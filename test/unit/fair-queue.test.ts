import { describe, expect, it } from 'vitest'
import { FairQueue } from '../../src/search-pool/fair-queue.ts'

function drain(q: FairQueue<string>): { accountId: string; item: string; passedBy: number }[] {
  const out = []
  for (let t = q.take(); t; t = q.take()) out.push(t)
  return out
}

describe('fair queue across accounts', () => {
  it('takes jobs of one account in arrival order', () => {
    const q = new FairQueue<string>()
    for (const x of ['a1', 'a2', 'a3']) q.push('a', 5, x)
    expect(drain(q).map((t) => t.item)).toEqual(['a1', 'a2', 'a3'])
    expect(q.size).toBe(0)
  })

  it('alternates between accounts of equal weight, whatever their backlogs', () => {
    const q = new FairQueue<string>()
    for (let i = 0; i < 6; i++) q.push('big', 10, `big${i}`)
    q.push('small', 10, 'small0')
    q.push('small', 10, 'small1')
    const order = drain(q).map((t) => t.item)
    expect(order.slice(0, 4).sort()).toEqual(['big0', 'big1', 'small0', 'small1'].sort())
    expect(order.indexOf('small1')).toBeLessThan(4)
  })

  it('gives a newcomer the next turn: it waits for at most one job of each other busy account', () => {
    const q = new FairQueue<string>()
    for (const a of ['n1', 'n2', 'n3', 'n4', 'n5']) for (let i = 0; i < 20; i++) q.push(a, 100, `${a}-${i}`)
    // Some of the backlog is served before the newcomer arrives.
    for (let i = 0; i < 37; i++) q.take()
    q.push('victim', 5, 'v')
    const rest = drain(q)
    const victim = rest.find((t) => t.accountId === 'victim')
    expect(victim?.passedBy).toBeLessThanOrEqual(5)
    expect(rest.indexOf(victim as (typeof rest)[number])).toBeLessThanOrEqual(5)
  })

  it('shares by weight while contended', () => {
    const q = new FairQueue<string>()
    for (let i = 0; i < 40; i++) q.push('heavy', 30, `h${i}`)
    for (let i = 0; i < 40; i++) q.push('light', 10, `l${i}`)
    const first40 = drain(q).slice(0, 40)
    const heavy = first40.filter((t) => t.accountId === 'heavy').length
    expect(heavy).toBe(30)
  })

  it('counts the other accounts\u2019 jobs taken while a job waited', () => {
    const q = new FairQueue<string>()
    q.push('a', 1, 'a0')
    q.push('a', 1, 'a1')
    q.push('b', 1, 'b0')
    const taken = drain(q)
    // b0 ties with a0 and goes first, its account having less waiting.
    expect(taken.map((t) => [t.item, t.passedBy])).toEqual([
      ['b0', 0],
      ['a0', 1],
      ['a1', 1],
    ])
  })
})
