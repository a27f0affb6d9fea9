/**
 * The upstream's page tokens, sealed inside ours: encrypted and authenticated (AES-256-GCM) under a
 * key derived from the server secret, so a customer can neither read an upstream token out of our
 * token nor make one up. Our token's own signature still says which request it belongs to.
 */
import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto'

export interface TokenSeal {
  seal(text: string): string
  /** The sealed text, or undefined when it was not sealed under this secret. */
  open(sealed: string): string | undefined
}

const IV_BYTES = 12
const TAG_BYTES = 16

export function createTokenSeal(secret: string | Buffer): TokenSeal {
  const key = hash('sha256', Buffer.concat([Buffer.from('pronet live-source token seal|'), Buffer.from(secret)]), 'buffer')
  return {
    seal(text) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
    },
    open(sealed) {
      const raw = Buffer.from(sealed, 'base64url')
      if (raw.length < IV_BYTES + TAG_BYTES) return undefined
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
      } catch {
        return undefined
      }
    },
  }
}
