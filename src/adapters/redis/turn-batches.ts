/**
 * Calls gathered over one turn of the event loop and sent together. Under load a node reads many
 * requests in one poll of its sockets; each would otherwise write its own command to Redis, and
 * that write (a system call that also wakes Redis) costs more than the command itself. Here the
 * calls of a turn leave at its end (setImmediate runs once every socket read in the turn is done),
 * as one command of at most `max` calls; a lone call leaves in the same turn, as before.
 *
 * A batch that fails fails each of its calls, with the same error.
 */
export interface TurnBatches<I, R> {
  /** Queues `item`; resolves with its part of its batch's reply. */
  add(item: I): Promise<R>
}

interface Waiting<I, R> {
  item: I
  resolve: (reply: R) => void
  reject: (e: unknown) => void
}

export function turnBatches<I, R>(send: (items: I[]) => Promise<R[]>, max = 256): TurnBatches<I, R> {
  let waiting: Waiting<I, R>[] = []
  let scheduled = false

  function flush(): void {
    scheduled = false
    const all = waiting
    waiting = []
    for (let i = 0; i < all.length; i += max) void sendPart(all.slice(i, i + max))
  }

  async function sendPart(part: Waiting<I, R>[]): Promise<void> {
    try {
      const replies = await send(part.map((w) => w.item))
      if (replies.length !== part.length) throw new Error(`a batch of ${part.length} calls got ${replies.length} replies`)
      part.forEach((w, i) => w.resolve(replies[i] as R))
    } catch (e) {
      for (const w of part) w.reject(e)
    }
  }

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject })
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
    },
  }
}
