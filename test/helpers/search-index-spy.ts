/** Wraps a search index so that `before` sees each call (its method's name and arguments) before it runs. */
import type { SearchIndex } from '../../src/ports/search-index.ts'

export function beforeEachCall(index: SearchIndex, before: (name: string, args: unknown[]) => void): SearchIndex {
  return new Proxy(index, {
    get(target, name, receiver) {
      const fn = Reflect.get(target, name, receiver) as unknown
      if (typeof fn !== 'function') return fn
      return (...args: unknown[]) => {
        before(String(name), args)
        return (fn as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}
