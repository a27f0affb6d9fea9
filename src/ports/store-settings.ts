/**
 * Named facts kept in the store itself (its `settings` table), so every process on the store (each
 * node, the CLI, the next start) reads the same: the operator's test clock offset.
 */
export interface StoreSettings {
  get(name: string): Promise<string | undefined>
  /** Durable when it resolves. */
  set(name: string, value: string): Promise<void>
}
