/**
 * The SQLite ledger's commit worker: its own connection to the data file, writing the batches the
 * event-loop thread sends, in order. The fsync of each commit (synchronous=FULL) waits here, so the
 * event loop keeps serving while a batch is made durable.
 *
 * SQLite's automatic checkpoint stays on this connection: a separate PASSIVE checkpointer lets the WAL
 * grow without bound under load, because the log can only restart when the writer finds it fully
 * copied back, which a checkpoint running beside a busy writer rarely leaves it.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads'
import { openSqlite } from './database.ts'
import { createLedgerWrites, fromWire, type WireJob } from './ledger-writes.ts'

const port = parentPort
if (!port) throw new Error('ledger-commit.worker must run as a worker thread')
const db = openSqlite((workerData as { path: string }).path)
serveCommits(port)

function serveCommits(port: MessagePort): void {
  const writes = createLedgerWrites(db)
  type Message = { id: number; jobs: WireJob[] } | { close: true }

  // Group commit on this side too: every batch that queued while the last transaction was being
  // written and synced goes into the next one, so commits never queue behind each other.
  port.on('message', (first: Message) => {
    const batches: { id: number; jobs: WireJob[] }[] = []
    let close = false
    for (let m: Message | undefined = first; m; m = (receiveMessageOnPort(port)?.message as Message | undefined)) {
      if ('close' in m) close = true
      else batches.push(m)
    }
    if (batches.length > 0) {
      const result = writes.write(batches.flatMap((b) => b.jobs.map(fromWire)))
      let at = 0
      const replies = batches.map((b) => {
        const outcomes = result.outcomes?.slice(at, at + b.jobs.length)
        at += b.jobs.length
        return { ...result, id: b.id, ...(outcomes ? { outcomes } : {}) }
      })
      port.postMessage({ replies })
    }
    if (close) {
      db.close()
      port.postMessage({ closed: true })
    }
  })
}
