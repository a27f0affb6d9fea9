/**
 * `pronet ingest FILE…`: streams NDJSON files (one `{kind, data}` record a line) through the content
 * writer in ordered batches. Files can be gigabytes, so no more than one batch of records (and a capped list of
 * errors) is ever held; a bad line is reported with its place and never stops the lines after it.
 */
import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { isUtf8 } from 'node:buffer'
import { MultiBar, type SingleBar } from 'cli-progress'
import { INGEST_KINDS } from '../contract/ingest.schemas.ts'
import type { ContentWriter } from '../domain/content/content-writer.ts'

export interface IngestIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  isTTY: boolean
}

export interface IngestError {
  file: string
  /** 1-based line; 0 when the whole file could not be opened. */
  line: number
  reason: string
}

export interface IngestSummary {
  files: number
  /** Files that could not be opened or broke off while being read (each also counts in `failed`). */
  filesFailed: number
  /** Records read: non-blank lines. */
  lines: number
  ok: number
  /** Refused lines plus unreadable files, so `failed === 0` means everything went in. */
  failed: number
  /** Per record kind; lines with no recognisable kind are counted under `invalid`. */
  byKind: Record<string, { ok: number; failed: number }>
  /** The first `maxErrorsShown` errors, in the order they happened. */
  errors: IngestError[]
  /** Errors past the cap (counted, not kept: a bad GB file must not fill memory). */
  errorsOmitted: number
}

export interface IngestOptions {
  json?: boolean
  batchSize?: number
  maxErrorsShown?: number
  /** The longest line read (default MAX_LINE_BYTES). */
  maxLineBytes?: number
}

export const INVALID_KIND = 'invalid'
/**
 * The longest line read: records are kilobytes, and this leaves room for any real one. A line of
 * 600 MiB stopped the whole ingest at V8's longest string (512 MiB), with a stack and no summary; a
 * line past this is refused as too long, without holding its bytes, and the lines after it are read.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024
const DEFAULT_BATCH_SIZE = 500
const DEFAULT_MAX_ERRORS_SHOWN = 1000

type FileSize = { size: number } | { error: string }

type Pending =
  | { line: number; kind: string; value: unknown }
  | { line: number; kind: string; reason: string }

/** Where errors go: straight to stderr, or above the progress bar so they do not tear it. */
interface Reporter {
  error(text: string): void
  /** Resolves once stderr has taken what was written (a slow pipe must not pile errors up in memory). */
  drained(): Promise<void>
  progress(bytes: number, summary: IngestSummary): void
  stop(): void
}

function kindOf(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return INVALID_KIND
  const kind = (value as { kind?: unknown }).kind
  return typeof kind === 'string' && Object.hasOwn(INGEST_KINDS, kind) ? kind : INVALID_KIND
}

/**
 * A string kind the writer does not know. Refused here because the writer's `kind in INGEST_KINDS`
 * accepts inherited names (`toString`, `__proto__`) and then throws, which would abort the batch.
 */
function foreignKind(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const kind = (value as { kind?: unknown }).kind
  return typeof kind === 'string' && !Object.hasOwn(INGEST_KINDS, kind)
}

/**
 * The lines of a byte stream, split at \n (NDJSON's separator; a \r before it is dropped, also when
 * the two arrive in different chunks), each decoded and told whether its bytes were UTF-8.
 */
async function* byteLines(
  input: AsyncIterable<Buffer>,
  onBytes: (n: number) => void,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<{ text: string; utf8: boolean; tooLong?: true }> {
  const line = (bytes: Buffer) => {
    const b = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes
    return { text: b.toString('utf8'), utf8: isUtf8(b) }
  }
  let parts: Buffer[] = []
  let held = 0
  // Past maxLineBytes a line's bytes are dropped until its end, which yields it as too long.
  let skipping = false
  const end = (last: Buffer) => {
    const out =
      skipping || held + last.length > maxLineBytes
        ? { text: '', utf8: true, tooLong: true as const }
        : line(parts.length === 0 ? last : Buffer.concat([...parts, last]))
    parts = []
    held = 0
    skipping = false
    return out
  }
  for await (const chunk of input) {
    onBytes(chunk.length)
    let start = 0
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      const last = chunk.subarray(start, i)
      start = i + 1
      yield end(last)
    }
    if (start < chunk.length && !skipping) {
      parts.push(chunk.subarray(start))
      held += chunk.length - start
      if (held > maxLineBytes) {
        parts = []
        held = 0
        skipping = true
      }
    }
  }
  if (parts.length > 0 || skipping) yield end(Buffer.alloc(0))
}

/** A line as a record for the writer, or the reason it never reaches it. */
function parseLine(text: string, line: number): Pending {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { line, kind: INVALID_KIND, reason: `invalid JSON: ${(e as Error).message}` }
  }
  if (foreignKind(value)) {
    return { line, kind: INVALID_KIND, reason: `kind must be one of ${Object.keys(INGEST_KINDS).join(', ')}` }
  }
  return { line, kind: kindOf(value), value }
}

/**
 * One line per error, and no control characters: a reason can quote the file (a JSON parse error
 * does), and a hostile file must not move the operator's cursor or split one report into two.
 */
const printable = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f]/g, (ch) => (ch === '\n' || ch === '\r' ? ' ' : JSON.stringify(ch).slice(1, -1)))

function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`
}

function createReporter(io: IngestIo, totalBytes: number): Reporter {
  let pendingDrain: Promise<unknown> | undefined
  const write = (text: string): void => {
    // Listen at once: 'drain' may fire before the next batch boundary awaits it.
    if (!io.stderr.write(text) && pendingDrain === undefined) pendingDrain = once(io.stderr, 'drain')
  }
  const drained = async (): Promise<void> => {
    if (pendingDrain === undefined) return
    await pendingDrain
    pendingDrain = undefined
  }

  if (!io.isTTY) {
    return { error: (text) => write(`${text}\n`), drained, progress: () => {}, stop: () => {} }
  }

  const multi = new MultiBar({
    stream: io.stderr,
    // The caller decides what a terminal is (io.isTTY); cli-progress would otherwise ask the stream.
    noTTYOutput: true,
    format: 'ingest [{bar}] {percentage}% | {read} of {size} | {records} records, {failed} failed | ETA {eta_formatted}',
    barCompleteChar: '=',
    barIncompleteChar: '-',
    etaBuffer: 50,
  })
  // A total of 0 (empty files, pipes) would make the percentage NaN.
  const total = Math.max(1, totalBytes)
  const size = formatBytes(totalBytes)
  const bar: SingleBar = multi.create(total, 0, { read: formatBytes(0), size, records: 0, failed: 0 })
  return {
    error: (text) => multi.log(`${text}\n`),
    drained,
    progress(bytes, summary) {
      bar.update(Math.min(bytes, total), {
        read: formatBytes(bytes),
        size,
        records: summary.lines,
        failed: summary.failed,
      })
    },
    stop() {
      // update() flushes errors logged since the last redraw; stop() alone would drop them.
      multi.update()
      multi.stop()
    },
  }
}

function emptySummary(files: number): IngestSummary {
  return { files, filesFailed: 0, lines: 0, ok: 0, failed: 0, byKind: {}, errors: [], errorsOmitted: 0 }
}

function renderHuman(summary: IngestSummary): string {
  const kinds = [...Object.keys(INGEST_KINDS), INVALID_KIND].filter((k) => summary.byKind[k] !== undefined)
  const width = Math.max(8, ...kinds.map((k) => k.length))
  const out: string[] = []
  const unreadable = summary.filesFailed > 0 ? ` (${summary.filesFailed} could not be read)` : ''
  out.push(`Files:   ${summary.files}${unreadable}`)
  out.push(`Records: ${summary.lines} read, ${summary.ok} written, ${summary.failed - summary.filesFailed} failed`)
  if (kinds.length > 0) {
    out.push(`  ${'kind'.padEnd(width)}  ${'written'.padStart(9)}  ${'failed'.padStart(9)}`)
    for (const k of kinds) {
      const c = summary.byKind[k] as { ok: number; failed: number }
      out.push(`  ${k.padEnd(width)}  ${String(c.ok).padStart(9)}  ${String(c.failed).padStart(9)}`)
    }
  }
  out.push(summary.failed === 0 ? 'No failures.' : `Failures: ${summary.failed} (reported on stderr)`)
  return `${out.join('\n')}\n`
}

/**
 * A run stopped by the store (a database gone, a full disk): says where, and what was written before,
 * so an operator knows the run can simply be repeated. The store's own error is the `cause`.
 */
export class IngestAborted extends Error {
  constructor(file: string, line: number, written: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(
      `the store failed while writing ${file} from line ${line} (${why}); ${written} records were written before it. ` +
        'Records are upserts: running the same files again is safe.',
      { cause },
    )
    this.name = 'IngestAborted'
  }
}

/**
 * Ingests NDJSON files in the order given, each line a `{kind, data}` record. Records go to the
 * writer in batches of `batchSize` in file order, so a record may link to any earlier line.
 * Exit code 0 when every line of every file was written, 1 otherwise.
 */
export async function runIngest(
  deps: { writer: ContentWriter },
  files: string[],
  io: IngestIo,
  opts: IngestOptions = {},
): Promise<{ exitCode: number; summary: IngestSummary }> {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE
  const maxErrorsShown = opts.maxErrorsShown ?? DEFAULT_MAX_ERRORS_SHOWN
  const maxLineBytes = opts.maxLineBytes ?? MAX_LINE_BYTES
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer')
  if (!Number.isInteger(maxErrorsShown) || maxErrorsShown < 0) {
    throw new RangeError('maxErrorsShown must be a non-negative integer')
  }

  const summary = emptySummary(files.length)

  // Sizes up front, for the progress bar's total; an unreadable file is reported in its turn.
  const sizes = await Promise.all(
    files.map(async (file): Promise<FileSize> => {
      try {
        const s = await stat(file)
        return s.isDirectory() ? { error: 'it is a directory' } : { size: s.size }
      } catch (e) {
        return { error: (e as Error).message }
      }
    }),
  )
  const totalBytes = sizes.reduce((sum, s) => sum + ('size' in s ? s.size : 0), 0)
  const reporter = createReporter(io, totalBytes)
  let bytesBefore = 0

  const recordError = (file: string, line: number, reason: string): void => {
    if (summary.errors.length < maxErrorsShown) summary.errors.push({ file, line, reason })
    else summary.errorsOmitted++
    if (!opts.json) reporter.error(line > 0 ? `${file}:${line}: ${printable(reason)}` : `${file}: ${printable(reason)}`)
  }

  const tally = (kind: string, ok: boolean): void => {
    const c = (summary.byKind[kind] ??= { ok: 0, failed: 0 })
    summary.lines++
    if (ok) {
      c.ok++
      summary.ok++
    } else {
      c.failed++
      summary.failed++
    }
  }

  const flush = async (file: string, pending: Pending[]): Promise<void> => {
    if (pending.length === 0) return
    const values = pending.flatMap((p) => ('value' in p ? [p.value] : []))
    const outcomes = values.length > 0 ? await deps.writer.write(values) : []
    if (outcomes.length !== values.length) {
      throw new Error(`content writer returned ${outcomes.length} outcomes for ${values.length} records`)
    }
    // Walk the batch in line order so errors come out in the order of the file.
    let next = 0
    for (const p of pending) {
      const outcome = 'value' in p ? outcomes[next++] : { ok: false as const, reason: p.reason }
      if (outcome === undefined) throw new Error('content writer returned too few outcomes')
      tally(p.kind, outcome.ok)
      if (!outcome.ok) recordError(file, p.line, outcome.reason)
    }
    pending.length = 0
    await reporter.drained()
  }

  try {
    for (const [i, file] of files.entries()) {
      const size = sizes[i] as FileSize
      if ('error' in size) {
        summary.filesFailed++
        summary.failed++
        recordError(file, 0, `cannot read file (${size.error})`)
        continue
      }

      const input = createReadStream(file, { highWaterMark: 1 << 20 })
      let fileBytes = 0
      let readError: unknown
      input.on('error', (e) => {
        readError = e
      })
      const pending: Pending[] = []
      let lineNo = 0
      try {
        for await (const raw of byteLines(input, (n) => (fileBytes += n), maxLineBytes)) {
          lineNo++
          if (raw.tooLong) {
            pending.push({ line: lineNo, kind: INVALID_KIND, reason: `the line is longer than ${formatBytes(maxLineBytes)}` })
            continue
          }
          // A BOM from Windows editors is not part of the JSON.
          const text = lineNo === 1 && raw.text.charCodeAt(0) === 0xfeff ? raw.text.slice(1) : raw.text
          if (text.trim() === '') continue
          // Decoding would turn bytes that are not UTF-8 into U+FFFD and store the damage silently.
          pending.push(raw.utf8 ? parseLine(text, lineNo) : { line: lineNo, kind: INVALID_KIND, reason: 'the line is not valid UTF-8; save the file as UTF-8' })
          if (pending.length >= batchSize) {
            await flush(file, pending)
            reporter.progress(bytesBefore + fileBytes, summary)
          }
        }
        await flush(file, pending)
      } catch (e) {
        // Only a failure of the file itself (reading rethrows the stream's error) is reported and
        // skipped; a writer or store failure is not about this file and aborts the run.
        if (readError === undefined || e !== readError) throw new IngestAborted(file, pending[0]?.line ?? lineNo, summary.ok, e)
        await flush(file, pending)
        summary.filesFailed++
        summary.failed++
        const message = (e as Error).message
        // Nothing read: the file went away (or lost its permissions) after the sizes were taken.
        if (fileBytes === 0) recordError(file, 0, `cannot read file (${message})`)
        else recordError(file, lineNo + 1, `read failed (${message})`)
      } finally {
        input.destroy()
      }
      bytesBefore += size.size
      reporter.progress(bytesBefore, summary)
    }
  } finally {
    reporter.stop()
  }

  if (opts.json) {
    io.stdout.write(`${JSON.stringify(summary)}\n`)
  } else {
    io.stdout.write(renderHuman(summary))
  }
  return { exitCode: summary.failed === 0 ? 0 : 1, summary }
}
