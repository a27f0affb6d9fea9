/**
 * The StoreSettings port's contract, run against every adapter: an unknown name reads undefined, a
 * value written reads back as written (and from a second handle on the same store: the CLI and other
 * nodes read what the server wrote), a second write replaces it, names are independent.
 */
import { describe, expect, it } from 'vitest'
import type { StoreSettings } from '../../src/ports/store-settings.ts'

export interface StoreSettingsHandle {
  settings: StoreSettings
  /** Another handle on the same store. */
  other: StoreSettings
  dispose(): Promise<void>
}

export function runStoreSettingsContract(name: string, make: () => Promise<StoreSettingsHandle>): void {
  describe(`StoreSettings contract: ${name}`, () => {
    it('reads back what was written, from another handle too; a write replaces; names are independent', async () => {
      const h = await make()
      try {
        expect(await h.settings.get('test_clock_offset')).toBeUndefined()
        await h.settings.set('test_clock_offset', '-12345.5')
        expect(await h.settings.get('test_clock_offset')).toBe('-12345.5')
        expect(await h.other.get('test_clock_offset')).toBe('-12345.5')
        await h.other.set('test_clock_offset', '86400000')
        expect(await h.settings.get('test_clock_offset')).toBe('86400000')
        expect(await h.settings.get('something_else')).toBeUndefined()
        await h.settings.set('something_else', 'x')
        expect(await h.settings.get('test_clock_offset')).toBe('86400000')
      } finally {
        await h.dispose()
      }
    })
  })
}
