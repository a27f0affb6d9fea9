/**
 * The fuzzer's raw material: values at and past the edges of what a field takes, and text that
 * parsers, encoders and stores tend to get wrong (unicode of every width, surrogate halves, NUL,
 * numbers written as text, exponent notation). Pure fast-check arbitraries, so every value comes from
 * the run's seed.
 */
import fc from 'fast-check'

/** A single UTF-16 surrogate half: valid in a JavaScript string and JSON text, not in UTF-8. */
export const surrogateHalf = fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD83D', '\uDE00b')

/** Text that is valid but unusual: scripts, combining marks, emoji sequences, bidi controls, wide characters. */
export const oddUnicode = fc.constantFrom(
  'Zürich',
  'naïve café',
  'straße',
  '東京都',
  'ΟΔΟΣ',
  'مرحبا',
  'שלום',
  'नमस्ते',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '\u202Eevil\u202C',
  '\u200B\u200C\u200D\uFEFF',
  '\uFFFD',
  '\uFFFF',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'Ａｂｃ１２３',
)

/** Control characters, NUL first. */
export const controlText = fc.constantFrom('\u0000', 'a\u0000b', '\u0001\u0002', '\t', '\r\n', '\n', '\u007F', '\u001B[31m', '\u0085', '\u2028')

/** Text shaped like an attack on some layer: paths, SQL, markup, templates, prototype keys, format strings. */
export const hostileText = fc.constantFrom(
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '..\\..\\windows\\win.ini',
  "' OR 1=1 --",
  '"; DROP TABLE accounts; --',
  "'); SELECT 1; --",
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '%s%s%s%n',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '*',
  '%',
  '\\',
  '"',
)

/** Numbers as text, in every way a lenient parser might read them. */
export const numericText = fc.constantFrom(
  '0',
  '-0',
  '00',
  '007',
  '1',
  '-1',
  '+1',
  '1.0',
  '1.5',
  '.5',
  '1e1',
  '1E2',
  '1e-1',
  '-1e3',
  '1e309',
  '0x10',
  '0b1',
  '0o7',
  ' 10',
  '10 ',
  '1_000',
  '1,000',
  'Infinity',
  '-Infinity',
  'NaN',
  '٣',
  '９',
  '9007199254740993',
  '99999999999999999999999999999999',
  '-99999999999999999999999999999999',
)

/** Any of the odd texts above, or random text of any code point. */
export const oddText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 2, arbitrary: oddUnicode },
  { weight: 2, arbitrary: surrogateHalf },
  { weight: 2, arbitrary: controlText },
  { weight: 2, arbitrary: hostileText },
  { weight: 2, arbitrary: numericText },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom(' ', '   ', '\u00A0') },
)

/** A long run of one character or of a pattern: past any length limit, up to `max` characters. */
export const hugeText = (max: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('a', 'é', '😀', 'ab,', '%', '0', ' ', 'urn:li:x:'), fc.integer({ min: 1_000, max }))
    .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length))

/** Strings around a length limit: empty, at the bounds and one past them. */
export function stringsAround(minLength: number | undefined, maxLength: number | undefined): fc.Arbitrary<string> {
  const lengths = [0, 1, minLength ?? 0, Math.max(0, (minLength ?? 0) - 1)]
  if (maxLength !== undefined) lengths.push(maxLength, maxLength + 1, maxLength * 2 + 7)
  return fc.tuple(fc.constantFrom(...new Set(lengths)), fc.constantFrom('x', 'é', '😀')).map(([n, unit]) => unit.repeat(n))
}

/** Integers around a range, and the numbers JSON can hold that an integer field must refuse. */
export function numbersAround(minimum: number | undefined, maximum: number | undefined): fc.Arbitrary<number> {
  const edges = [0, -1, 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 2 ** 31, 2 ** 53, 2 ** 63, 1e308, -1e308, 5e-324]
  if (minimum !== undefined) edges.push(minimum, minimum - 1, minimum + 1)
  if (maximum !== undefined) edges.push(maximum, maximum + 1, maximum - 1)
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: fc.constantFrom(0.5, 1.5, -0.5, 2.000001, 1e-7, -0) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  )
}

/** A JSON value of another type than the field's: the usual wrong guesses of a client. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, 1, -1, 1.5, '', 'x', '1', 'true', [], {}, [null], ['x'], [1], { a: 1 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
)

/** A value nested `depth` levels deep in arrays or objects: what recursive code meets last. */
export const deepNesting = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`))

/** Bytes that are not UTF-8, or not valid percent-escapes, as they would stand in a URL. */
export const oddEscapes = fc.constantFrom(
  '%',
  '%%',
  '%2',
  '%zz',
  '%G0',
  '%00',
  '%0A',
  '%0D%0A',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%C0%AF',
  '%C0%80',
  '%FF',
  '%FE%FF',
  '%E2%80%AE',
  '%F0%9F%98',
  '%uD800',
  '%2e%2e%2f',
  '%252e',
  '+',
  '%2B',
  '%20',
  '%23',
  '%26',
  '%3D',
  '%3F',
)

/**
 * A value as it stands in a query string: mostly percent-encoded as a client would, sometimes raw
 * (spaces, `+`, `#`, `&`) or with a broken escape spliced in. A string holding a surrogate half
 * cannot be percent-encoded as UTF-8, so its half goes in as the bytes a careless encoder would write.
 */
export function queryText(value: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(encodeLoosely(value)) },
    { weight: 1, arbitrary: fc.constant(value.replace(/[^\x21-\x7E]|[&#%]/gu, (c) => encodeLoosely(c))) },
    { weight: 1, arbitrary: fc.tuple(oddEscapes, fc.nat()).map(([escape, at]) => spliceText(encodeLoosely(value), escape, at)) },
  )
}

/** encodeURIComponent, with each surrogate half written as its three CESU-8 bytes. */
export function encodeLoosely(value: string): string {
  let out = ''
  for (const c of value) {
    const code = c.charCodeAt(0)
    if (c.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`
    } else out += encodeURIComponent(c)
  }
  return out
}

export function spliceText(text: string, insert: string, at: number): string {
  const i = text.length === 0 ? 0 : at % (text.length + 1)
  return text.slice(0, i) + insert + text.slice(i)
}

/** Field names no operation takes: near misses of real ones, other casings, prototype members, random names. */
export const unknownNames = fc.oneof(
  fc.constantFrom('foo', 'Count', 'COUNT', 'count ', ' count', 'profileurlorurn', 'api_key', 'apiKey', 'x-api-key', '', ' ', 'a.b', 'a[b]', 'é', '__defineGetter__', 'valueOf'),
  fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/),
)

/** Bodies that are not JSON: cut short, JavaScript rather than JSON, escapes JSON has not, or random bytes. */
export const malformedJson = fc.oneof(
  fc.constantFrom('{', '}', '{"companies": [', '{"query": "a",}', "{'query': 'a'}", '{query: "a"}', 'undefined', 'NaN', '{"a": NaN}', '{"a": Infinity}', '\uFEFF', '{"a": 01}', '{"a": .5}', '{"a": "\\x41"}', '{"a": "\\uD8"}', '{"a":1}{"b":2}', '[1,]', '"unterminated', '{"a" 1}', '{,}', 'nul', 'tru', '\u0000'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => !isJson(s)),
)

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Content types other than JSON, or JSON with a charset or suffix the API does not read. */
export const wrongContentTypes = fc.constantFrom(
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'json',
  '*/*',
  ';',
  '',
)
