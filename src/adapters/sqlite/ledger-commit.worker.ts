/**
 * The SQLite ledger's commit worker: its own connection to the data file, writing the batches the
 * event-loop thread sends, in order. The fsync of each commit (synchronous=FULL) waits here, so the
 * event loop keeps serving while a batch is made durable.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openSqlite } from './database.ts'
import { createLedgerWrites, type WriteJob } from './ledger-writes.ts'

const port = parentPort
if (!port) throw new Error('ledger-commit.worker must run as a worker thread')
const db = openSqlite((workerData as { path: string }).path)
const writes = createLedgerWrites(db)

port.on('message', (message: { id: number; jobs: WriteJob[] } | { close: true }) => {
  if ('close' in message) {
    db.close()
    port.postMessage({ closed: true })
    return
  }
  port.postMessage({ id: message.id, ...writes.write(message.jobs) })
})
