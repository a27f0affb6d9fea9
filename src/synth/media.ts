/**
 * CDN-style media URLs. The real service hands out signed URLs that expire; ours look the same
 * (an expiry `e` and a signature `t`) so clients written against the real thing are not surprised.
 * Everything is drawn from the caller's generator, so URLs are part of the deterministic stream.
 */
import type { Rng } from './prng.ts'

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const SIG_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'

export interface MediaUrls {
  /** An image of a given rendition name (e.g. `feedshare-shrink_1280`, `profile-displayphoto-shrink_800_800`). */
  image(rng: Rng, rendition: string, createdMs: number): string
  video(rng: Rng, createdMs: number, height: number): string
  document(rng: Rng, createdMs: number): string
}

export function createMediaUrls(platformHost: string, anchorMs: number): MediaUrls {
  const root = platformHost.replace(/^www\./, '')
  const host = `https://media.${root}`
  const dmsHost = `https://dms.${root}`
  // Signed URLs expire a few weeks after the network's "now", like freshly fetched ones.
  const expiry = Math.floor(anchorMs / 1000) + 60 * 86400
  const signed = (rng: Rng) => `e=${expiry}&v=beta&t=${rng.chars(SIG_ALPHABET, 43)}`
  return {
    image: (rng, rendition, createdMs) =>
      `${host}/dms/image/v2/${rng.chars(TOKEN_ALPHABET, 15)}/${rendition}/0/${createdMs}?${signed(rng)}`,
    video: (rng, createdMs, height) =>
      `${dmsHost}/playlist/vid/v2/${rng.chars(TOKEN_ALPHABET, 15)}/mp4-${height}p-30fp-crf28/0/${createdMs}?${signed(rng)}`,
    document: (rng, createdMs) =>
      `${host}/dms/document/media/v2/${rng.chars(TOKEN_ALPHABET, 15)}/feedshare-document-pdf-analyzed/0/${createdMs}?${signed(rng)}`,
  }
}
