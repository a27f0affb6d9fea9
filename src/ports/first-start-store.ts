/**
 * What the first start (src/startup.ts) keeps in the store itself: whether it began and finished,
 * seen by every node of a shared store and by the next start after a crash.
 */
export interface FirstStartStore {
  /** The first start's record as written (JSON text); undefined before a first start began. */
  read(): Promise<string | undefined>
  /** Replaces the record (durably, before it returns). */
  write(record: string): Promise<void>
  /** The slug of the first profile by id, for the startup banner's example; undefined with none. */
  sampleProfileSlug(): Promise<string | undefined>
}
