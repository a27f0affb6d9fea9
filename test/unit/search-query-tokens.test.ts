import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import { hasSearchableToken, isTokenChar, matches, tokenize, toFts5Match } from '../../src/domain/search/query-tokens.ts'
import { createFts5Index, type Fts5Index } from '../helpers/fts5-index.ts'

describe('tokenize', () => {
  it.each([
    ['Hello, World!', ['hello', 'world']],
    ['  ', []],
    ['Café CAFÉ cafe\u0301', ['cafe', 'cafe', 'cafe']],
    ['#Hiring #hiring! C# a#b ##x # alone', ['#hiring', '#hiring', 'c#', 'a#b', '##x', '#', 'alone']],
    ["O'Neil don’t", ['o', 'neil', 'don', 't']],
    ['R&D e-mail foo_bar 3.14', ['r', 'd', 'e', 'mail', 'foo', 'bar', '3', '14']],
    ['Zürich Ærø Łódź straße ĳ', ['zurich', 'ærø', 'łodz', 'straße', 'ĳ']],
    ['ΟΔΟΣ ὁδός', ['οδοσ', 'ὁδόσ']],
    ['東京 한국어', ['東京', '한국어']],
    ['नमस्ते', ['नमस', 'त']],
    ['x🚀y x\u200by', ['x', 'y', 'x', 'y']],
  ])('%j → %j', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens)
  })

  it('isTokenChar: letters, digits, # and removable diacritics; not punctuation or space', () => {
    expect(['a', 'É', '7', '#', '\u0301', '東'].every(isTokenChar)).toBe(true)
    expect(["'", '-', ' ', '(', '"', '\u094d', '🚀'].some(isTokenChar)).toBe(false)
  })

  it('hasSearchableToken: something beyond #', () => {
    expect(hasSearchableToken(['#'])).toBe(false)
    expect(hasSearchableToken(['##', '#'])).toBe(false)
    expect(hasSearchableToken([])).toBe(false)
    expect(hasSearchableToken(['#', '#a'])).toBe(true)
  })
})

describe('the tokenizer model against SQLite FTS5', () => {
  let index: Fts5Index
  beforeAll(() => {
    index = createFts5Index()
  })
  afterAll(() => index.close())

  // Each code point between two ASCII letters shows whether it separates, joins or folds.
  function disagreements(ranges: readonly (readonly [number, number])[]): number[] {
    const codePoints = ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i))
    const scan = createFts5Index()
    try {
      const texts = codePoints.map((cp) => `a${String.fromCodePoint(cp)}b`)
      scan.insertAll(texts)
      const sqlite = scan.tokensByRow()
      return codePoints.filter((_, i) => {
        const expected = sqlite.get(i + 1) ?? []
        return JSON.stringify(tokenize(texts[i] as string)) !== JSON.stringify(expected)
      })
    } finally {
      scan.close()
    }
  }

  it('agrees on every code point of ASCII, Latin-1, Latin Extended A and B, IPA and combining diacritics', () => {
    expect(disagreements([[0x0000, 0x036f]])).toEqual([])
  })

  it('agrees on whole ASCII texts (the model reads them without folding code point by code point)', () => {
    const text = fc.string({ unit: fc.constantFrom(...'aZ9#-_ \'".,\t\n\u0000(){}&|é'), maxLength: 40 })
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 40 }), text), (t) => {
        expect(tokenize(t)).toEqual(index.tokensOf(t))
      }),
      { numRuns: 300 },
    )
  })

  it('agrees on Latin Extended Additional, kana, Hangul and a CJK block', () => {
    expect(
      disagreements([
        [0x1e00, 0x1eff],
        [0x3040, 0x30ff],
        [0x4e00, 0x4fff],
        [0xac00, 0xadff],
      ]),
    ).toEqual([])
  })

  it('differs on Greek and Cyrillic only where Unicode 7 added letters SQLite does not know', () => {
    expect(disagreements([[0x0370, 0x052f]])).toEqual([0x037f, 0x0528, 0x052a, 0x052c, 0x052e])
  })

  it.each([
    ["The CAFÉ's #Hiring: C# & O'Neil—naïve Zürich straße, ΟΔΟΣ 東京!"],
    ['cafe\u0301 e\u0301\u0323 a\u0305b ǡǣǯ ı İstanbul ſ µ ς'],
    ['tab\tnew\nline\u0000nul\u00a0nbsp\u2028sep'],
  ])('agrees on %j', (text) => {
    expect(tokenize(text)).toEqual(index.tokensOf(text))
  })
})

describe('compiled queries on a real FTS5 table', () => {
  const docs = [
    'Python and Java developer, remote',
    'We are #Hiring a machine-learning engineer',
    "Kevin O'Neil joins as CTO",
    'Le café de Zürich',
    'java only',
    'NEAR the text: column filters * ^',
  ]
  let index: Fts5Index
  beforeAll(() => {
    index = createFts5Index()
    index.insertAll(docs)
  })
  afterAll(() => index.close())

  const expected = (raw: string) => {
    const { tree } = parseSearchQuery(raw)
    return docs.flatMap((doc, i) => (matches(tree, tokenize(doc)) ? [i + 1] : []))
  }

  it.each([
    ['python', [1]],
    ['java NOT python', [5]],
    ['#hiring', [2]],
    ['hiring', []],
    ['"machine learning"', [2]],
    ["O'Neil OR o’neil", [3]],
    ['CAFE zurich', [4]],
    ['(python OR cto) remote', [1]],
    ['text:column', [6]],
    ['NEAR(text column)', [6]],
    ['column*', [6]],
    ['^near', [6]],
  ])('%j matches rows %j, as the evaluator says', (raw, rows) => {
    expect(index.match(toFts5Match(parseSearchQuery(raw).tree))).toEqual(rows)
    expect(expected(raw)).toEqual(rows)
  })
})
