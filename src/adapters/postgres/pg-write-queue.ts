/**
 * Work that goes to PostgreSQL in batches, one batch in flight: what is pushed while a batch is being
 * written goes in the next, which starts on the event loop's next turn once the last has ended. A
 * call waiting for its batch pays its share of one round trip and one commit, so a client sending
 * many calls at once cannot make the database flush once per call.
 */

export interface WriteQueue<T> {
  push(item: T): void
}

/** `write` is handed each batch (at most `maxItems`, in the order pushed) and settles what it carries. */
export function createWriteQueue<T>(maxItems: number, write: (batch: T[]) => Promise<void>): WriteQueue<T> {
  const max = Math.max(1, maxItems)
  let waiting: T[] = []
  let writing = false
  let scheduled = false

  const schedule = (): void => {
    if (scheduled || writing || waiting.length === 0) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      void next()
    })
  }

  async function next(): Promise<void> {
    if (writing || waiting.length === 0) return
    writing = true
    const batch = waiting.length <= max ? waiting : waiting.slice(0, max)
    waiting = batch === waiting ? [] : waiting.slice(max)
    try {
      await write(batch)
    } finally {
      writing = false
      schedule()
    }
  }

  return {
    push(item) {
      waiting.push(item)
      schedule()
    },
  }
}
