import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import {
  MAX_QUERY_DEPTH,
  MAX_QUERY_LENGTH,
  MAX_QUERY_OPERATORS,
  MAX_QUERY_PHRASES,
  normaliseSearchQuery,
  parseSearchQuery,
  type QueryNode,
  type TermNode,
} from '../../src/domain/search/query-grammar.ts'
import { matches, tokenize, toFts5Match } from '../../src/domain/search/query-tokens.ts'

function refusal(raw: string): ApiError {
  try {
    parseSearchQuery(raw)
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    const error = e as ApiError
    expect(error.code).toBe('INVALID_PARAMETER')
    expect(error.status).toBe(400)
    expect(error.details).toEqual({ parameter: 'query' })
    return error
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`)
}

const echo = (raw: string): string => parseSearchQuery(raw).query
const tree = (raw: string): QueryNode => parseSearchQuery(raw).tree

const word = (text: string): TermNode => ({ kind: 'word', text, tokens: tokenize(text) })
const phrase = (text: string): TermNode => ({ kind: 'phrase', text, tokens: tokenize(text) })
const hashtag = (text: string): TermNode => ({ kind: 'hashtag', text, tokens: tokenize(text) })
/** The term children of an AND or OR node. */
function termsOf(node: QueryNode): TermNode[] {
  if (node.kind !== 'and' && node.kind !== 'or') throw new Error(`not a group: ${node.kind}`)
  return node.children.filter((c): c is TermNode => c.kind === 'word' || c.kind === 'phrase' || c.kind === 'hashtag')
}
const and = (...children: QueryNode[]): QueryNode => ({ kind: 'and', children })
const or = (...children: QueryNode[]): QueryNode => ({ kind: 'or', children })
const not = (include: QueryNode, exclude: QueryNode): QueryNode => ({ kind: 'not', include, exclude })

it('exports the query limits: 500 characters, 5 operators, 20 phrases, 5 levels of nesting', () => {
  expect([MAX_QUERY_LENGTH, MAX_QUERY_OPERATORS, MAX_QUERY_PHRASES, MAX_QUERY_DEPTH]).toEqual([500, 5, 20, 5])
})

describe('parseSearchQuery: terms and structure', () => {
  it('a single word, with its tokens', () => {
    expect(parseSearchQuery('Python')).toEqual({
      query: 'Python',
      tree: { kind: 'word', text: 'Python', tokens: ['python'] },
      operators: 0,
      phrases: 0,
      depth: 0,
      hasHashtag: false,
    })
  })

  it('two terms side by side mean AND, echoed as a space', () => {
    const parsed = parseSearchQuery('machine learning')
    expect(parsed.tree).toEqual(and(word('machine'), word('learning')))
    expect(parsed.query).toBe('machine learning')
    expect(parsed.operators).toBe(0)
  })

  it('explicit AND and implicit AND give the same tree', () => {
    expect(tree('a AND b AND c')).toEqual(tree('a b c'))
    expect(tree('a AND b c')).toEqual(and(word('a'), word('b'), word('c')))
  })

  it('AND binds tighter than OR', () => {
    expect(tree('a OR b AND c')).toEqual(or(word('a'), and(word('b'), word('c'))))
    expect(tree('a b OR c d')).toEqual(or(and(word('a'), word('b')), and(word('c'), word('d'))))
  })

  it('NOT binds tighter than AND, implicit or explicit', () => {
    expect(tree('a AND b NOT c')).toEqual(and(word('a'), not(word('b'), word('c'))))
    // FTS5 would read this as python NOT (java remote); here it is (python NOT java) AND remote.
    expect(tree('python NOT java remote')).toEqual(and(not(word('python'), word('java')), word('remote')))
    expect(tree('a OR b NOT c')).toEqual(or(word('a'), not(word('b'), word('c'))))
  })

  it('operators are left-associative', () => {
    expect(tree('a NOT b NOT c')).toEqual(not(not(word('a'), word('b')), word('c')))
    expect(tree('a OR b OR c')).toEqual(or(word('a'), word('b'), word('c')))
  })

  it('parentheses group, and nested groups of one kind flatten', () => {
    expect(tree('(a OR b) c')).toEqual(and(or(word('a'), word('b')), word('c')))
    expect(tree('a NOT (b OR c)')).toEqual(not(word('a'), or(word('b'), word('c'))))
    expect(tree('(a b) (c d)')).toEqual(and(word('a'), word('b'), word('c'), word('d')))
    expect(tree('((a))')).toEqual(word('a'))
    expect(parseSearchQuery('((a))').depth).toBe(2)
  })

  it('phrases, with their tokens', () => {
    const parsed = parseSearchQuery('"machine learning" python')
    expect(parsed.tree).toEqual(and(phrase('machine learning'), word('python')))
    expect(parsed.phrases).toBe(1)
    expect(termsOf(parsed.tree)[0]?.tokens).toEqual(['machine', 'learning'])
  })

  it('hashtag terms', () => {
    const parsed = parseSearchQuery('#hiring OR #Remote!')
    expect(parsed.tree).toEqual(or(hashtag('#hiring'), hashtag('#Remote!')))
    expect(parsed.hasHashtag).toBe(true)
    expect(termsOf(parsed.tree).map((c) => c.tokens)).toEqual([['#hiring'], ['#remote']])
  })

  it.each([
    ['C#', 'word', ['c#']],
    ['##x', 'word', ['##x']],
    ['#foo-bar', 'word', ['#foo', 'bar']],
    ['#2024', 'hashtag', ['#2024']],
    ['#Zürich', 'hashtag', ['#zurich']],
  ])('%s is a %s with tokens %j', (raw, kind, tokens) => {
    expect(tree(raw)).toEqual({ kind, text: raw, tokens })
  })

  it('a quoted hashtag is a phrase, and does not count as a hashtag term', () => {
    const parsed = parseSearchQuery('"#hiring" now')
    expect(parsed.tree).toEqual(and(phrase('#hiring'), word('now')))
    expect(parsed.hasHashtag).toBe(false)
  })

  it('a mid-word apostrophe stays in its word; the index splits it into a phrase of tokens', () => {
    expect(tree("O'Neil")).toEqual({ kind: 'word', text: "O'Neil", tokens: ['o', 'neil'] })
    expect(echo("don't panic")).toBe("don't panic")
    expect(tree("don't panic")).toEqual(and(word("don't"), word('panic')))
  })
})

describe('normalisation', () => {
  it.each([
    // curly double quotes
    ['“machine learning”', '"machine learning"'],
    ['„machine learning“', '"machine learning"'],
    ['‟a b” ″c d″ ＂e f＂ 〝g h〞', '"a b" "c d" "e f" "g h"'],
    // curly single quotes outside phrases
    ['O’Neil', "O'Neil"],
    ['‘machine learning’', '"machine learning"'],
    ['‚a b‛', '"a b"'],
    // operators in any case
    ['a and b', 'a AND b'],
    ['a And b oR c nOt d', 'a AND b OR c NOT d'],
    ['(a and b)', '(a AND b)'],
    // bare ampersands
    ['a & b', 'a AND b'],
    ['a && b', 'a AND b'],
    ['R&D', 'R&D'],
    ['a &b', 'a &b'],
    // single-quoted phrases at word boundaries
    ["'machine learning'", '"machine learning"'],
    ["('AI' OR 'ML')", '("AI" OR "ML")'],
    ["python 'machine learning' remote", 'python "machine learning" remote'],
    ["'AI', ok", '"AI" ok'],
    // apostrophes that are not a matched pair
    ["don't", "don't"],
    ["'90s", "'90s"],
    ["students'", "students'"],
    ["O'Neil's 'big' idea", `O'Neil's "big" idea`],
    ["'a (b) c'", "'a (b) c'"],
    ["'a b", "'a b"],
    ["'x y'z", "'x y'z"],
    ["'a b'c d'", `"a b'c d"`],
    ["'a 'b c'", `"a 'b c"`],
    ["x'a b'", "x'a b'"],
    ["!'a b'", '"a b"'],
    // spacing and parentheses
    ['  a \t\n b  ', 'a b'],
    ['a\u0000b', 'a b'],
    ['( a OR b )c', '(a OR b) c'],
    ['f(x)', 'f (x)'],
    ['foo"bar baz"qux', 'foo "bar baz" qux'],
    // terms with nothing to search for, beside other terms
    ['C++ - remote', 'C++ remote'],
    ['!!! a', 'a'],
    ['a !!!', 'a'],
    ['a !!! ??? b', 'a b'],
    ['a AND !!! b', 'a AND b'],
    ['a !!! AND b', 'a AND b'],
    ['"" a', 'a'],
    ['a "!!!"', 'a'],
    ['# hiring', 'hiring'],
    ['🚀 launch', 'launch'],
    ["a ' b", 'a b'],
  ])('%j is read as %j', (raw, expected) => {
    expect(echo(raw)).toBe(expected)
    expect(normaliseSearchQuery(raw)).toBe(expected)
    expect(normaliseSearchQuery(expected)).toBe(expected)
  })

  it('nothing is rewritten inside a double-quoted phrase', () => {
    const inside = "a and b OR ‘c’ & (d) not 'e f' “g”"
    const raw = `"${inside.replace('“g”', 'g')}"`
    const parsed = parseSearchQuery(raw)
    expect(parsed.tree).toEqual(phrase("a and b OR ‘c’ & (d) not 'e f' g"))
    expect(parsed.query).toBe(raw)
    expect(parsed.operators).toBe(0)
    expect(parsed.depth).toBe(0)
  })

  it('inner spacing of a phrase is kept', () => {
    expect(echo('"  a   b "')).toBe('"  a   b "')
  })

  it('a curly quote closes a phrase opened with a straight one', () => {
    expect(tree('"machine learning” python')).toEqual(and(phrase('machine learning'), word('python')))
  })

  it('the echo parses to the same query and tree', () => {
    for (const raw of ["‘ai’ and (ml & “deep learning”) not #Hype", "C++ - O’Neil's 'x y' OR z"]) {
      const first = parseSearchQuery(raw)
      const second = parseSearchQuery(first.query)
      expect(second).toEqual(first)
    }
  })

  it('normalises without validating: refused queries normalise too', () => {
    expect(normaliseSearchQuery('not a')).toBe('NOT a')
    expect(normaliseSearchQuery('“open')).toBe('"open')
    expect(normaliseSearchQuery('a || b')).toBe('a || b')
    expect(normaliseSearchQuery('(and)')).toBe('(AND)')
    // An empty term whose dropping would change how the rest reads is kept (and the query refused).
    expect(normaliseSearchQuery("’python\"\"students'")).toBe(`'python "" students'`)
    expect(normaliseSearchQuery(`'python "" students'`)).toBe(`'python "" students'`)
    expect(normaliseSearchQuery('')).toBe('')
  })
})

describe('limits', () => {
  const ops = (n: number, op = 'AND') => Array.from({ length: n + 1 }, (_, i) => `w${i}`).join(` ${op} `)

  it('5 operators are accepted, a sixth is refused', () => {
    expect(parseSearchQuery(ops(5)).operators).toBe(5)
    expect(refusal(ops(6)).message).toBe(
      "Invalid parameter 'query': at most 5 boolean operators (AND, OR, NOT); this query has 6",
    )
  })

  it('every kind of explicit operator counts, normalised ones too', () => {
    const five = 'a AND b OR c NOT d and e & f'
    expect(parseSearchQuery(five).operators).toBe(5)
    expect(refusal(`${five} && g`).message).toContain('this query has 6')
    expect(refusal(`${five} or g`).message).toContain('this query has 6')
    expect(refusal(`${five} not g`).message).toContain('this query has 6')
  })

  it('implicit AND, parentheses, phrases and terms count 0', () => {
    const parsed = parseSearchQuery(`${ops(5)} ${Array.from({ length: 30 }, (_, i) => `x${i}`).join(' ')} ("p q") (r)`)
    expect(parsed.operators).toBe(5)
  })

  it('operators inside phrases do not count', () => {
    expect(parseSearchQuery(`${ops(5)} "a AND b OR c NOT d"`).operators).toBe(5)
  })

  it('20 phrases are accepted, a 21st is refused; single-quoted phrases count', () => {
    const phrases = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? `"p${i} q"` : `'p${i} q'`)).join(' ')
    expect(parseSearchQuery(phrases(20)).phrases).toBe(20)
    expect(refusal(phrases(21)).message).toBe("Invalid parameter 'query': at most 20 quoted phrases; this query has 21")
  })

  it('dropped empty phrases do not count', () => {
    expect(parseSearchQuery(`${'"" '.repeat(25)}a`).phrases).toBe(0)
  })

  it('5 levels of parentheses are accepted, 6 refused', () => {
    expect(parseSearchQuery('a (b (c (d (e (f)))))').depth).toBe(5)
    expect(refusal('a (b (c (d (e (f (g))))))').message).toBe(
      "Invalid parameter 'query': at most 5 levels of parentheses; this query has 6",
    )
    expect(parseSearchQuery('(a) (b) (c) (d) (e) (f) (g)').depth).toBe(1)
  })

  it('500 characters are accepted, 501 refused', () => {
    expect(parseSearchQuery('x'.repeat(500)).query).toHaveLength(500)
    expect(parseSearchQuery(`${'ab '.repeat(166)}ab`).tree.kind).toBe('and')
    expect(refusal('x'.repeat(501)).message).toBe("Invalid parameter 'query': at most 500 characters; this query has 501")
  })

  it('counts characters as code points, so 500 astral letters are accepted', () => {
    expect(parseSearchQuery('𝒜'.repeat(500)).tree).toEqual(word('𝒜'.repeat(500)))
    expect(refusal('𝒜'.repeat(501)).message).toContain('this query has 501')
  })

  it('counts the raw input, spaces included', () => {
    expect(refusal(`${' '.repeat(499)}ab`).message).toContain('this query has 501')
  })

  it('refuses a huge input by its length', () => {
    expect(refusal('('.repeat(1_000_000)).message).toContain('this query has 1000000')
  })
})

describe('refusals name what is wrong', () => {
  it.each([
    ['', 'the query is empty'],
    ['   \t\n ', 'the query is empty'],
    ['NOT a', "a query cannot only exclude: 'NOT' needs a term on its left, as in 'python NOT java'"],
    ['not a', 'a query cannot only exclude'],
    ['(NOT a) b', 'a query cannot only exclude'],
    ['b (NOT a)', 'a query cannot only exclude'],
    ['a OR NOT b', "'OR' needs a term on both sides; 'NOT' is not a term"],
    ['a AND NOT b', "'AND' needs a term on both sides; 'NOT' is not a term"],
    ['a NOT NOT b', "'NOT' needs a term on both sides; 'NOT' is not a term"],
    ['a AND', "'AND' needs a term on both sides"],
    ['AND a', "'AND' needs a term on both sides"],
    ['a OR', "'OR' needs a term on both sides"],
    ['OR a', "'OR' needs a term on both sides"],
    ['a NOT', "'NOT' needs a term on both sides"],
    ['a AND OR b', "'AND' needs a term on both sides"],
    ['a OR AND b', "'OR' needs a term on both sides"],
    ['(a OR) b', "'OR' needs a term on both sides"],
    ['a (AND b)', "'AND' needs a term on both sides"],
    ['a &', "'AND' needs a term on both sides"],
    ['&&', "'AND' needs a term on both sides"],
    ['and', "'AND' needs a term on both sides"],
    ['(a', "unbalanced parenthesis: a '(' is never closed"],
    ['a)', "unbalanced parenthesis: a ')' has no matching '('"],
    [')a(', "unbalanced parenthesis: a ')' has no matching '('"],
    ['(a))', "unbalanced parenthesis: a ')' has no matching '('"],
    ['nice :)', "unbalanced parenthesis: a ')' has no matching '('"],
    ['a ()', "empty parentheses '()'"],
    ['(())', "empty parentheses '()'"],
    ['"machine learning', 'unbalanced double quote: the phrase starting "machine learning" is never closed'],
    ['a “open', 'unbalanced double quote'],
    ['!!!', "'!!!' has no letters or digits to search for"],
    ['#', "'#' has no letters or digits to search for"],
    ['a AND !!!', "'!!!' has no letters or digits to search for"],
    ['(-)', "'-' has no letters or digits to search for"],
    ['a OR !!! ???', "'!!!' has no letters or digits to search for"],
    ['""', 'the phrase "" has no letters or digits to search for'],
    ['a OR "?!"', 'the phrase "?!" has no letters or digits to search for'],
    // Dropping the "" would let the first quote pair with the last and read a phrase the input is not.
    ["’python\"\"students'", 'the phrase "" has no letters or digits to search for'],
    ['a || b', "'||' is not an operator; write OR"],
    ['a | b', "'|' is not an operator; write OR"],
  ])('%j: %s', (raw, why) => {
    expect(refusal(raw).message).toContain(`Invalid parameter 'query': ${why}`)
  })

  it('a non-string is a 400, not a crash', () => {
    expect(refusal(42 as unknown as string).message).toContain('must be a string')
  })

  it('a message quotes at most 40 characters of the query', () => {
    const message = refusal(`"${'x'.repeat(300)}`).message
    expect(message).toContain(`"${'x'.repeat(40)}…"`)
    expect(message).not.toContain('x'.repeat(41))
  })
})

describe('toFts5Match', () => {
  const fts = (raw: string) => toFts5Match(tree(raw))

  it('quotes every term and parenthesises every group', () => {
    expect(fts('python')).toBe('"python"')
    expect(fts('a b OR c')).toBe('("a" AND "b") OR "c"')
    expect(fts('python NOT java remote')).toBe('("python" NOT "java") AND "remote"')
    expect(fts('a NOT (b OR c)')).toBe('"a" NOT ("b" OR "c")')
    expect(fts('"machine learning" #hiring')).toBe('"machine learning" AND "#hiring"')
  })

  it('user text cannot reach FTS5 syntax', () => {
    expect(fts('text:secret')).toBe('"text:secret"')
    expect(fts('NEAR(a b, 2)')).toBe('"NEAR" AND "a" AND "b," AND "2"')
    expect(fts('pyth* ^start +x -y {a b}:c')).toBe('"pyth*" AND "^start" AND "+x" AND "-y" AND "{a" AND "b}:c"')
  })

  it('doubles a double quote, and turns control characters into spaces', () => {
    const node: TermNode = { kind: 'phrase', text: 'a"b\u0000c', tokens: ['a', 'b', 'c'] }
    expect(toFts5Match(node)).toBe('"a""b c"')
  })
})

describe('matches', () => {
  const doc = (text: string) => tokenize(text)
  const m = (raw: string, text: string) => matches(tree(raw), doc(text))

  it('a word matches its token anywhere', () => {
    expect(m('python', 'I write Python daily')).toBe(true)
    expect(m('python', 'pythonic code')).toBe(false)
  })

  it('a phrase matches its tokens contiguously and in order', () => {
    expect(m('"machine learning"', 'Machine-learning rocks')).toBe(true)
    expect(m('"machine learning"', 'learning machine')).toBe(false)
    expect(m('"machine learning"', 'machine deep learning')).toBe(false)
  })

  it('a word with inner punctuation is a phrase of its tokens', () => {
    expect(m("O'Neil", 'met o neil today')).toBe(true)
    expect(m("O'Neil", 'neil o')).toBe(false)
  })

  it('hashtags match only the hashtag token', () => {
    expect(m('#hiring', 'We are #Hiring!')).toBe(true)
    expect(m('#hiring', 'we are hiring')).toBe(false)
    expect(m('hiring', 'we are #hiring')).toBe(false)
  })

  it('diacritics and case fold away', () => {
    expect(m('cafe', 'Le CAFÉ')).toBe(true)
    expect(m('Zürich', 'zurich')).toBe(true)
  })

  it('AND, OR and NOT are boolean', () => {
    expect(m('a b', 'b x a')).toBe(true)
    expect(m('a b', 'a x')).toBe(false)
    expect(m('a OR b', 'x b')).toBe(true)
    expect(m('a NOT b', 'a x')).toBe(true)
    expect(m('a NOT b', 'a b')).toBe(false)
    expect(m('(a OR b) NOT c', 'b')).toBe(true)
  })

  it('an accepted query never matches an empty document (no query only excludes)', () => {
    for (const raw of ['a NOT b', 'a NOT b NOT c', '(a NOT b) OR (c NOT d)', 'a NOT (b OR c)']) {
      expect(matches(tree(raw), [])).toBe(false)
    }
  })
})
