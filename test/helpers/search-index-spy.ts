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

/**
 * A gate in front of a search index: once armed, the next call of any of its methods stops until
 * `open()`; `arm()` resolves when that call has arrived (a search is then in flight, past admission).
 */
export function searchGate() {
  let armed = false
  let entered = () => {}
  let release = () => {}
  return {
    wrap(index: SearchIndex): SearchIndex {
      return new Proxy(index, {
        get(target, name, receiver) {
          const fn = Reflect.get(target, name, receiver) as unknown
          if (typeof fn !== 'function') return fn
          return async (...args: unknown[]) => {
            if (armed) {
              armed = false
              const released = new Promise<void>((resolve) => (release = resolve))
              entered()
              await released
            }
            return (fn as (...a: unknown[]) => unknown).apply(target, args)
          }
        },
      })
    },
    arm(): Promise<void> {
      armed = true
      return new Promise<void>((resolve) => (entered = resolve))
    },
    open(): void {
      release()
    },
  }
}
