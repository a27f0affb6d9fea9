/**
 * Seeded randomness for the synthetic network. Faker is far too slow for the hot loops (millions of
 * draws for a large network), so bulk choices go through this small generator (sfc32, seeded through
 * splitmix32). Every entity can get its own stream (`deriveSeed`), so the details of one profile do
 * not shift when another part of the generator draws one number more or less.
 */

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Uniform integer in [0, n). */
  int(n: number): number
  /** Uniform integer in [lo, hi], both included. */
  range(lo: number, hi: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  /** Standard normal draw. */
  gaussian(): number
  /** exp(mu + sigma·N(0,1)). */
  logNormal(mu: number, sigma: number): number
  /** Exponential draw with the given mean. */
  exponential(mean: number): number
  /** k distinct items in random order (k clamped to the list length). */
  sample<T>(items: readonly T[], k: number): T[]
  /** A string of `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string
}

/** splitmix32 step: spreads a 32-bit seed over the state words of sfc32. */
function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0
  let z = next
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return [next, (z ^ (z >>> 16)) >>> 0]
}

/** A 32-bit seed for a named stream: the same (seed, parts) always gives the same stream. */
export function deriveSeed(seed: number, ...parts: readonly (string | number)[]): number {
  let h = (Math.floor(seed) ^ 0x811c9dc5) >>> 0
  // FNV-1a over the parts, then murmur's finaliser so nearby indexes give unrelated seeds.
  for (const part of parts) {
    const s = typeof part === 'number' ? `#${part}` : part
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i)
      h = Math.imul(h, 0x01000193)
    }
    h ^= 0xff
    h = Math.imul(h, 0x01000193)
  }
  h ^= Math.floor(seed / 0x100000000)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

export function createRng(seed: number): Rng {
  let s = seed >>> 0
  let a: number, b: number, c: number
  ;[s, a] = splitmix32(s)
  ;[s, b] = splitmix32(s)
  ;[s, c] = splitmix32(s)
  let d = 1
  const u32 = (): number => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  // Warm up: the first outputs of sfc32 are correlated with the seed words.
  for (let i = 0; i < 12; i++) u32()
  const next = (): number => u32() / 4294967296
  const int = (n: number): number => Math.floor(next() * n)
  let spare: number | null = null
  const gaussian = (): number => {
    if (spare !== null) {
      const v = spare
      spare = null
      return v
    }
    let u = 0
    while (u === 0) u = next()
    const v = next()
    const r = Math.sqrt(-2 * Math.log(u))
    spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
  return {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    gaussian,
    logNormal: (mu, sigma) => Math.exp(mu + sigma * gaussian()),
    exponential: (mean) => -mean * Math.log(1 - next()),
    sample<T>(items: readonly T[], k: number): T[] {
      const pool = items.slice()
      const n = Math.min(k, pool.length)
      for (let i = 0; i < n; i++) {
        const j = i + int(pool.length - i)
        const tmp = pool[i] as T
        pool[i] = pool[j] as T
        pool[j] = tmp
      }
      return pool.slice(0, n)
    },
    chars(alphabet, length) {
      // One flat string: appending char by char would leave a rope of `length` nodes, which costs
      // about a kilobyte per id when millions of ids and URLs stay referenced.
      const codes = new Array<number>(length)
      for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt(int(alphabet.length))
      return String.fromCharCode(...codes)
    },
  }
}

/** Draws an index with probability proportional to its weight in O(1) (Walker's alias method). */
export interface AliasTable {
  readonly size: number
  sample(rng: Rng): number
}

export function createAliasTable(weights: ArrayLike<number>): AliasTable {
  const n = weights.length
  if (n === 0) throw new Error('alias table needs at least one weight')
  let total = 0
  for (let i = 0; i < n; i++) total += Math.max(0, weights[i] as number)
  if (!(total > 0)) throw new Error('alias table needs a positive total weight')
  const prob = new Float64Array(n)
  const alias = new Int32Array(n)
  const scaled = new Float64Array(n)
  const small: number[] = []
  const large: number[] = []
  for (let i = 0; i < n; i++) {
    scaled[i] = (Math.max(0, weights[i] as number) * n) / total
    if ((scaled[i] as number) < 1) small.push(i)
    else large.push(i)
  }
  while (small.length > 0 && large.length > 0) {
    const s = small.pop() as number
    const l = large.pop() as number
    prob[s] = scaled[s] as number
    alias[s] = l
    scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1
    if ((scaled[l] as number) < 1) small.push(l)
    else large.push(l)
  }
  for (const i of large) prob[i] = 1
  for (const i of small) prob[i] = 1
  return {
    size: n,
    sample(rng) {
      const i = rng.int(n)
      return rng.next() < (prob[i] as number) ? i : (alias[i] as number)
    },
  }
}

/** A small weighted choice over a fixed list (linear scan; for lists of a few dozen items). */
export interface WeightedList<T> {
  pick(rng: Rng): T
}

export function weighted<T>(entries: readonly (readonly [T, number])[]): WeightedList<T> {
  const items = entries.map((e) => e[0])
  const cumulative: number[] = []
  let total = 0
  for (const [, w] of entries) {
    total += w
    cumulative.push(total)
  }
  return {
    pick(rng) {
      const x = rng.next() * total
      for (let i = 0; i < cumulative.length; i++) if (x < (cumulative[i] as number)) return items[i] as T
      return items[items.length - 1] as T
    },
  }
}
