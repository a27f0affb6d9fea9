/**
 * Characters as the API's limits count them: code points, as TypeBox's maxLength counts them (an emoji
 * is one, not the two UTF-16 units `.length` counts).
 */
export function codePointLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}
