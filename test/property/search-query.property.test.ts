/**
 * Properties of the post search query language: normalisation is idempotent, the echo
 * parses back to the same tree, no string makes the parser throw anything but a 400 naming `query`,
 * rendered trees parse back with the documented precedence, the tokenizer model agrees with SQLite,
 * and the compiled FTS5 expression of every accepted query selects exactly the documents the
 * reference evaluator selects on a real FTS5 table.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import {
  MAX_QUERY_DEPTH,
  MAX_QUERY_OPERATORS,
  normaliseSearchQuery,
  parseSearchQuery,
  type ParsedQuery,
  type QueryNode,
  type TermNode,
} from '../../src/domain/search/query-grammar.ts'
import { matches, tokenize, toFts5Match } from '../../src/domain/search/query-tokens.ts'
import { createFts5Index, type Fts5Index } from '../helpers/fts5-index.ts'

// ---------- vocabulary shared by documents and queries ----------

const WORDS = [
  'python', 'java', 'remote', 'hiring', 'machine', 'learning', 'data', 'engineer', 'ai', 'ml',
  'cafe', 'café', 'Zürich', 'zurich', 'naïve', "O'Neil", 'neil', 'o', "don't", 'C#', 'c', 'straße',
  'ΟΔΟΣ', 'οδος', '東京', 'R&D', 'e-mail',
]
const HASHTAGS = ['#hiring', '#Hiring', '#remote', '#AI', '#café']
const SEPARATORS = [' ', ' ', ' ', ', ', ' - ', '\n', '! ', '—', ' (', ') ', '"', "'", ' & ']

const casing = (word: string, style: number): string =>
  style === 1 ? word.toUpperCase() : style === 2 ? word.charAt(0).toUpperCase() + word.slice(1) : word

const vocabWord = fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 0, max: 3 })).map(([w, s]) => casing(w, s))

const documentArb = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 5, arbitrary: vocabWord }, { weight: 1, arbitrary: fc.constantFrom(...HASHTAGS) }),
      fc.constantFrom(...SEPARATORS),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.map(([w, sep]) => w + sep).join(''))

// ---------- whether a value is the one refusal allowed ----------

function isQueryRefusal(e: unknown): boolean {
  return (
    e instanceof ApiError &&
    e.code === 'INVALID_PARAMETER' &&
    e.status === 400 &&
    JSON.stringify(e.details) === JSON.stringify({ parameter: 'query' }) &&
    e.message.startsWith("Invalid parameter 'query': ")
  )
}

/** The parse, or undefined for a refusal; anything else thrown fails the property. */
function tryParse(raw: string): ParsedQuery | undefined {
  try {
    return parseSearchQuery(raw)
  } catch (e) {
    if (isQueryRefusal(e)) return undefined
    throw e
  }
}

// ---------- arbitrary strings: junk, grammar soup, huge and deeply nested ----------

const FRAGMENTS = [
  'AND', 'and', 'And', 'OR', 'or', 'oR', 'NOT', 'not', 'Not', '&', '&&', '|', '||', '(', ')', '((', '))',
  '"', '“', '”', '„', '″', "'", '‘', '’', '‚', '#', '##', '!!!', '-', '+', '*', '^', ':', 'NEAR', 'text:',
  ' ', ' ', ' ', '  ', '\t', '\n', '\u0000', '\u00a0', "O'Neil", "don't", "'90s", "students'", '""',
]

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u))
const fullUnicode = fc.string({ unit: 'binary', maxLength: 60 })
const soupOf = (junk: fc.Arbitrary<string>, maxLength = 40) =>
  fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) },
        { weight: 4, arbitrary: vocabWord },
        { weight: 1, arbitrary: fc.constantFrom(...HASHTAGS) },
        { weight: 2, arbitrary: junk },
      ),
      { maxLength },
    )
    .map((parts) => parts.join(''))
// Grammar pieces and ASCII junk only: terms the tokenizer model reads exactly as SQLite does.
const asciiSoup = soupOf(fc.string({ maxLength: 4 }))
const unicodeSoup = soupOf(fc.oneof(fc.string({ unit: anyUnit, maxLength: 4 }), fullUnicode))
const nested = fc
  .tuple(fc.nat({ max: 300 }), fc.nat({ max: 300 }), fc.constantFrom('a', 'a b', '', 'NOT a', '"x"'))
  .map(([open, close, inner]) => `${'('.repeat(open)}${inner}${')'.repeat(close)}`)
const huge = fc
  .tuple(fc.constantFrom('a ', '(', '"', "'a ", 'x AND ', '𝒜', ' '), fc.integer({ min: 400, max: 100_000 }))
  .map(([piece, times]) => piece.repeat(times))
const anyInput = fc.oneof(
  fc.string({ maxLength: 80 }),
  fullUnicode,
  fc.string({ unit: anyUnit, maxLength: 80 }),
  asciiSoup,
  unicodeSoup,
  nested,
  huge,
)

// ---------- queries rendered from a tree, with their expected parse ----------

type Rendered = { text: string; tree: QueryNode; ops: number; depth: number; phrases: number }

const term = (kind: TermNode['kind'], text: string): TermNode => ({ kind, text, tokens: tokenize(text) })

const wordTerm: fc.Arbitrary<Rendered> = vocabWord.map((w) => ({
  text: w,
  tree: term('word', w),
  ops: 0,
  depth: 0,
  phrases: 0,
}))
const hashtagTerm: fc.Arbitrary<Rendered> = fc.constantFrom(...HASHTAGS).map((h) => ({
  text: h,
  tree: term('hashtag', h),
  ops: 0,
  depth: 0,
  phrases: 0,
}))
const QUOTES: readonly (readonly [string, string])[] = [['"', '"'], ['“', '”'], ['„', '“'], ["'", "'"], ['‘', '’']]
const phraseTerm: fc.Arbitrary<Rendered> = fc
  .tuple(fc.array(vocabWord, { minLength: 1, maxLength: 3 }), fc.constantFrom(...QUOTES))
  .map(([words, [open, close]]) => {
    const content = words.join(' ')
    return { text: `${open}${content}${close}`, tree: term('phrase', content), ops: 0, depth: 0, phrases: 1 }
  })

const PRECEDENCE = { or: 1, and: 2, not: 3, word: 4, phrase: 4, hashtag: 4 } as const

function group(r: Rendered): Rendered {
  return { ...r, text: `(${r.text})`, depth: r.depth + 1 }
}
/** Parenthesised when its precedence is below `min`, or when `always` (an optional redundant group). */
const operand = (r: Rendered, min: number, always: boolean): Rendered =>
  always || PRECEDENCE[r.tree.kind] < min ? group(r) : r

const flatten = (kind: 'and' | 'or', parts: readonly QueryNode[]): QueryNode => ({
  kind,
  children: parts.flatMap((p) => (p.kind === kind ? p.children : [p])),
})

const combineRendered = (parts: readonly Rendered[], separators: readonly string[], kind: 'and' | 'or'): Rendered => ({
  text: parts.map((p, i) => (i === 0 ? p.text : `${separators[i - 1]}${p.text}`)).join(''),
  tree: flatten(
    kind,
    parts.map((p) => p.tree),
  ),
  ops: parts.reduce((n, p) => n + p.ops, 0) + separators.filter((s) => s.trim() !== '').length,
  depth: Math.max(...parts.map((p) => p.depth)),
  phrases: parts.reduce((n, p) => n + p.phrases, 0),
})

/** Now and then a group the precedence does not need, which must not change the tree. */
const redundantGroup = fc.integer({ min: 0, max: 4 }).map((n) => n === 0)
const AND_SEPARATORS = [' ', ' ', ' AND ', ' and ', ' & ', ' && ', '  ']
const OR_SEPARATORS = [' OR ', ' or ', ' Or ']
const NOT_SEPARATORS = [' NOT ', ' not ', ' NoT ']

const renderedQuery: fc.Arbitrary<Rendered> = fc.letrec<{ node: Rendered }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    { weight: 3, arbitrary: fc.oneof({ weight: 3, arbitrary: wordTerm }, phraseTerm, hashtagTerm) },
    fc
      .tuple(fc.array(fc.tuple(tie('node'), redundantGroup, fc.constantFrom(...AND_SEPARATORS)), { minLength: 2, maxLength: 3 }))
      .map(([items]) =>
        combineRendered(
          items.map(([r, extra]) => operand(r, PRECEDENCE.and, extra)),
          items.slice(1).map(([, , sep]) => sep),
          'and',
        ),
      ),
    fc
      .tuple(fc.array(fc.tuple(tie('node'), redundantGroup, fc.constantFrom(...OR_SEPARATORS)), { minLength: 2, maxLength: 3 }))
      .map(([items]) =>
        combineRendered(
          items.map(([r, extra]) => operand(r, PRECEDENCE.and, extra)),
          items.slice(1).map(([, , sep]) => sep),
          'or',
        ),
      ),
    fc
      .tuple(tie('node'), tie('node'), redundantGroup, fc.constantFrom(...NOT_SEPARATORS))
      .map(([include, exclude, extra, sep]) => {
        const left = operand(include, PRECEDENCE.not, extra)
        // The right side of a left-associative operator needs a group unless it is a single term.
        const right = operand(exclude, PRECEDENCE.word, false)
        return {
          text: `${left.text}${sep}${right.text}`,
          tree: { kind: 'not', include: left.tree, exclude: right.tree },
          ops: left.ops + right.ops + 1,
          depth: Math.max(left.depth, right.depth),
          phrases: left.phrases + right.phrases,
        } satisfies Rendered
      }),
  ),
})).node.filter((r) => r.ops <= MAX_QUERY_OPERATORS && r.depth <= MAX_QUERY_DEPTH)

// ---------- properties ----------

describe('normalisation and the echo', () => {
  it('normalising is idempotent, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(anyInput, renderedQuery.map((r) => r.text)), (raw) => {
        const once = normaliseSearchQuery(raw)
        expect(normaliseSearchQuery(once)).toBe(once)
      }),
      { numRuns: 600 },
    )
  })

  it("an accepted query's echo is its normalised text and parses to the same result", () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(asciiSoup, unicodeSoup, renderedQuery.map((r) => r.text)), (raw) => {
        const parsed = tryParse(raw)
        if (parsed === undefined) return
        accepted++
        expect(parsed.query).toBe(normaliseSearchQuery(raw))
        expect(parseSearchQuery(parsed.query)).toEqual(parsed)
      }),
      { numRuns: 600 },
    )
    // The property is only as good as the share of inputs that reach it.
    expect(accepted).toBeGreaterThan(200)
  })
})

describe('refusals', () => {
  it('no input throws anything but INVALID_PARAMETER naming query', () => {
    fc.assert(
      fc.property(anyInput, (raw) => {
        tryParse(raw)
      }),
      { numRuns: 800 },
    )
  })

  it('no accepted query only excludes: none matches an empty document', () => {
    fc.assert(
      fc.property(fc.oneof(asciiSoup, renderedQuery.map((r) => r.text)), (raw) => {
        const parsed = tryParse(raw)
        if (parsed !== undefined) expect(matches(parsed.tree, [])).toBe(false)
      }),
      { numRuns: 400 },
    )
  })
})

describe('rendered trees', () => {
  it('parse back to the tree they were rendered from, with their operator count and depth', () => {
    fc.assert(
      fc.property(renderedQuery, (r) => {
        const parsed = parseSearchQuery(r.text)
        expect(parsed.tree).toEqual(r.tree)
        expect(parsed.operators).toBe(r.ops)
        expect(parsed.depth).toBe(r.depth)
        expect(parsed.phrases).toBe(r.phrases)
      }),
      { numRuns: 500 },
    )
  })
})

describe('against SQLite FTS5', () => {
  let index: Fts5Index
  let docTokens: string[][]
  beforeAll(() => {
    const docs = ['', ...fc.sample(documentArb, { numRuns: 400, seed: 4_12 })]
    index = createFts5Index()
    index.insertAll(docs)
    docTokens = docs.map(tokenize)
  })
  afterAll(() => index.close())

  const evaluated = (tree: QueryNode): number[] =>
    docTokens.flatMap((tokens, i) => (matches(tree, tokens) ? [i + 1] : []))

  it('the tokenizer model reads the generated documents as FTS5 does', () => {
    const stored = index.tokensByRow()
    docTokens.forEach((tokens, i) => expect(tokens).toEqual(stored.get(i + 1) ?? []))
  })

  it('the tokenizer model agrees with FTS5 on random text over letters, marks, digits and punctuation', () => {
    const alphabet = fc.constantFrom(
      ...'aZ09#_-\'"’“(),.:;!?&|*^+ \t\n'.split(''),
      ...'éÉüÜßẞøØłŁıİſµςΣæÆœŒñçÇåÅ'.split(''),
      '\u0301', '\u0308', '\u0323', '\u0327', '\u0305', '\u20dd',
      'α', 'Ω', 'ά', 'Ж', 'й', 'ї', '東', '京', 'ア', '한', 'ก', 'ि', '्', 'ي', 'آ', '🚀', '\u200b', '\u00a0', '\u0000',
    )
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 30 }), (text) => {
        expect(tokenize(text)).toEqual(index.tokensOf(text))
      }),
      { numRuns: 500 },
    )
  })

  it('FTS5 returns exactly the documents the evaluator matches, for rendered queries', () => {
    let informative = 0
    fc.assert(
      fc.property(renderedQuery, (r) => {
        const { tree } = parseSearchQuery(r.text)
        const expected = evaluated(tree)
        expect(index.match(toFts5Match(tree))).toEqual(expected)
        if (expected.length > 0 && expected.length < docTokens.length) informative++
      }),
      { numRuns: 400 },
    )
    // Most queries should select some documents and not all, or set equality proves little.
    expect(informative).toBeGreaterThan(200)
  })

  it('FTS5 returns exactly the documents the evaluator matches, for accepted grammar soup', () => {
    let accepted = 0
    fc.assert(
      fc.property(asciiSoup, (raw) => {
        const parsed = tryParse(raw)
        if (parsed === undefined) return
        accepted++
        expect(index.match(toFts5Match(parsed.tree))).toEqual(evaluated(parsed.tree))
      }),
      { numRuns: 500 },
    )
    expect(accepted).toBeGreaterThan(120)
  })

  it('FTS5 accepts the compiled expression of every accepted query, whatever its characters', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(unicodeSoup, fullUnicode, fc.string({ unit: anyUnit, maxLength: 80 })), (raw) => {
        const parsed = tryParse(raw)
        if (parsed === undefined) return
        accepted++
        expect(() => index.match(toFts5Match(parsed.tree))).not.toThrow()
      }),
      { numRuns: 500 },
    )
    expect(accepted).toBeGreaterThan(150)
  })
})
