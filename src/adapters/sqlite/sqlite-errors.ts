/**
 * SQLite failures that mean "retry shortly": the file is locked by another process (a long `pronet
 * ingest`) beyond the busy timeout. They become 503 SERVICE_UNAVAILABLE, never a 500.
 */
import { serviceUnavailable, type ApiError } from '../../domain/errors.ts'

const RETRYABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT'])

export function classifySqliteError(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && RETRYABLE.has(code) ? serviceUnavailable('The data store is busy.', 1) : undefined
}
