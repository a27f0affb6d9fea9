/**
 * Which addresses a webhook delivery must not reach: anything but the public internet. An IPv6
 * address is read in every spelling (compressed, with a dotted IPv4 tail, in hex), and one that
 * carries an IPv4 address inside it (mapped, compatible, translated, NAT64, 6to4) is judged by that
 * address, so `[::ffff:7f00:1]` is loopback as `127.0.0.1` is.
 */
import { isIP } from 'node:net'

/** IPv4 ranges that are not the public internet: [first address, prefix length]. */
const V4_RANGES: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 3], // multicast, reserved and broadcast
]

const v4Number = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0)
const V4_MASKED = V4_RANGES.map(([base, bits]) => ({ base: v4Number(base), size: 2 ** (32 - bits) }))

function privateV4(n: number): boolean {
  return V4_MASKED.some(({ base, size }) => n >= base && n < base + size)
}

/** The eight 16-bit groups of a valid IPv6 address (isIP already said it is one); a zone is dropped. */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().replace(/%.*$/, '')
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const n = v4Number(dotted[1] as string)
    text = `${text.slice(0, -(dotted[1] as string).length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined]
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)))
  if (tail === undefined) return part(head)
  const left = part(head)
  const right = part(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

function privateV6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g
  const embedded = g6 * 65536 + g7
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  // ::, ::1, and IPv4-compatible ::a.b.c.d: nothing public.
  if (zeroTo(6)) return true
  // IPv4-mapped ::ffff:a.b.c.d and translated ::ffff:0:a.b.c.d
  if (zeroTo(5) && g5 === 0xffff) return privateV4(embedded)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return privateV4(embedded)
  // NAT64, well-known prefix 64:ff9b::/96 (and the local-use 64:ff9b:1::/48)
  if (g0 === 0x64 && g1 === 0xff9b) return g2 !== 0 || g3 !== 0 || g4 !== 0 || g5 !== 0 ? true : privateV4(embedded)
  // 6to4, 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
  if (g0 === 0x2002) return privateV4(g1 * 65536 + g2)
  // Teredo 2001:0::/32, documentation 2001:db8::/32, discard-only 100::/64
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0xdb8)) return true
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true
  // Unique local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0 || (g0 & 0xff00) === 0xff00
}

/** Whether an IP address is one a delivery must not reach; anything that is not an IP address counts as one. */
export function privateAddress(ip: string): boolean {
  const version = isIP(ip)
  if (version === 4) return privateV4(v4Number(ip))
  if (version === 6) return privateV6(v6Groups(ip))
  return true
}
