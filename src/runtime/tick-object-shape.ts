/**
 * Keeps one of Node's `process.nextTick` objects alive for the life of the process.
 *
 * Node builds each tick object with an object literal whose first keys are symbols, so V8 reaches its
 * shape by transitions from the shape shared by all such literals rather than from a boilerplate of
 * its own. Those transitions are weak: a full garbage collection that finds no tick object alive (an
 * idle moment of a server) drops them, and the next tick builds the shape anew. After a few such
 * collections the literal's inline caches have seen several shapes and go megamorphic for good, so
 * every nextTick (several per HTTP request) takes V8's slow path. A live tick object keeps its shape,
 * and with it the transitions, so the caches keep seeing one shape.
 */
import { executionAsyncResource } from 'node:async_hooks'

/** Held here, for the life of the process, by design: it is the whole point. */
let kept: object | undefined

/** Keeps a tick object alive (once per process); resolves with it once it is kept. */
export function keepTickObjectShape(): Promise<object> {
  if (kept) return Promise.resolve(kept)
  return new Promise((resolve) =>
    // While a tick's callback runs, Node gives its tick object as the current async resource.
    process.nextTick(() => {
      kept ??= executionAsyncResource()
      resolve(kept)
    }),
  )
}
