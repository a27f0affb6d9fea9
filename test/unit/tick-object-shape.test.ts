import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { keepTickObjectShape } from '../../src/runtime/tick-object-shape.ts'

const MODULE = fileURLToPath(new URL('../../src/runtime/tick-object-shape.ts', import.meta.url))

/**
 * In a process of its own, with V8's natives and manual collections: the kept object is one of
 * Node's tick objects, and tick objects made after full collections (with no other tick object
 * alive) still have its shape, so nextTick's caches keep seeing one.
 */
const CHILD = `
import { executionAsyncResource } from 'node:async_hooks'
const { keepTickObjectShape } = await import(${JSON.stringify(MODULE)})
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)')
const kept = await keepTickObjectShape()
const again = await keepTickObjectShape()
const tickObject = () => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())))
const shared = []
for (let i = 0; i < 4; i++) {
  await new Promise((resolve) => setTimeout(resolve, 1))
  globalThis.gc()
  globalThis.gc()
  shared.push(sameShape(kept, await tickObject()))
}
process.stdout.write(JSON.stringify({
  again: again === kept,
  symbols: Object.getOwnPropertySymbols(kept).map(String),
  keys: Object.keys(kept),
  shared,
}))
`

describe('keeping a tick object alive', () => {
  it('keeps one of Node\'s tick objects, and later tick objects keep its shape across full collections', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', CHILD],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    )
    const seen = JSON.parse(stdout) as { again: boolean; symbols: string[]; keys: string[]; shared: boolean[] }
    expect(seen.again).toBe(true)
    expect(seen.symbols).toEqual(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)'])
    expect(seen.keys).toEqual(['callback', 'args'])
    expect(seen.shared).toEqual([true, true, true, true])
  })

  it('gives the same object every time in one process', async () => {
    const first = await keepTickObjectShape()
    expect(await keepTickObjectShape()).toBe(first)
    expect(Object.keys(first)).toEqual(['callback', 'args'])
  })
})
