/**
 * The search cursor's codec: named positions in the code, the short keys of the cursors already handed
 * out on the wire. A position is written as the same text it always was, and every cursor form the
 * service has issued still opens.
 */
import { describe, expect, it } from 'vitest'
import { issueCursor, openCursor, packIds, readMarks, startPosition, type WalkPosition } from '../../src/domain/search/search-cursor.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'

const tokens = createTokenSigner('cursor-secret')
const scope = 'search|remote hiring'
const ID = '7300000000000000001'
const TOP = '7300000000000000099'

/** The position a cursor carries, as its text holds it. */
const payload = (cursor: string): string => JSON.stringify(JSON.parse(Buffer.from(cursor.split('.')[0] as string, 'base64url').toString()).p)

describe('search cursor codec', () => {
  it('writes a date position with the keys and order cursors have always had', () => {
    const position: WalkPosition = { order: 'date', shown: 20, since: null, below: ID }
    expect(payload(issueCursor(tokens, { scope, position }))).toBe(`{"m":"d","n":20,"s":null,"b":"${ID}"}`)
    expect(payload(issueCursor(tokens, { scope, position: startPosition(false, ID) }))).toBe(`{"m":"d","n":0,"s":"${ID}","b":null}`)
  })

  it('writes a relevance position with its plan, driver and marks in the order cursors have always had', () => {
    const position: WalkPosition = { order: 'relevance', shown: 10, since: ID, offset: 12, top: TOP, plan: 'all', driver: 'title' }
    const marks = { ranksAbove: [ID, TOP], shownBelow: [TOP] }
    expect(payload(issueCursor(tokens, { scope, position, marks }))).toBe(
      `{"m":"r","n":10,"s":"${ID}","o":12,"t":"${TOP}","k":"all","v":"t","a":"${packIds([ID, TOP])}","x":"${packIds([TOP])}"}`,
    )
    // Empty marks and an absent plan or driver are left out, as they always were.
    const bare: WalkPosition = { order: 'relevance', shown: 10, since: null, offset: 10, top: TOP }
    expect(payload(issueCursor(tokens, { scope, position: bare, marks: { ranksAbove: [], shownBelow: [] } }))).toBe(`{"m":"r","n":10,"s":null,"o":10,"t":"${TOP}"}`)
    expect(payload(issueCursor(tokens, { scope, position: { ...bare, driver: 'mentions' } }))).toBe(`{"m":"r","n":10,"s":null,"o":10,"t":"${TOP}","v":"m"}`)
  })

  it('opens what it writes, marks included', () => {
    const position: WalkPosition = { order: 'relevance', shown: 10, since: ID, offset: 12, top: TOP, plan: 'newest', driver: 'mentions' }
    const cursor = issueCursor(tokens, { scope, position, marks: { ranksAbove: [ID], shownBelow: [TOP] } })
    const opened = openCursor(tokens, cursor, { scope, relevance: true })
    expect(opened.position).toEqual(position)
    expect(readMarks(opened.carried)).toEqual({ ranksAbove: [ID], shownBelow: [TOP] })
    const date: WalkPosition = { order: 'date', shown: 3, since: null, below: ID }
    expect(openCursor(tokens, issueCursor(tokens, { scope, position: date }), { scope, relevance: false })).toEqual({ position: date, carried: {} })
  })

  it('opens the older forms: no plan, and the last results in place of packed ranks', () => {
    const older = openCursor(tokens, tokens.issue(scope, { m: 'r', n: 5, s: null, o: 5, t: TOP }), { scope, relevance: true })
    expect(older.position).toEqual({ order: 'relevance', shown: 5, since: null, offset: 5, top: TOP })
    expect(readMarks(older.carried)).toEqual({ ranksAbove: undefined, shownBelow: [] })
    const lastOne = openCursor(tokens, tokens.issue(scope, { m: 'r', n: 5, s: null, o: 5, t: TOP, k: 'all', l: ID }), { scope, relevance: true })
    expect(readMarks(lastOne.carried)).toEqual({ ranksAbove: [ID], shownBelow: [] })
    const lastThree = openCursor(tokens, tokens.issue(scope, { m: 'r', n: 5, s: null, o: 5, t: TOP, l: [ID, TOP, ID] }), { scope, relevance: true })
    expect(readMarks(lastThree.carried)).toEqual({ ranksAbove: [ID, TOP, ID], shownBelow: [] })
  })

  it('refuses a cursor of the other order, an unknown plan or driver, and marks that are not ids', () => {
    const refused = { code: 'INVALID_PARAMETER' }
    const date = tokens.issue(scope, { m: 'd', n: 0, s: null, b: ID })
    expect(() => openCursor(tokens, date, { scope, relevance: true })).toThrow(expect.objectContaining(refused))
    for (const forged of [{ k: 'best' }, { v: 'q' }, { n: '5' }]) {
      const cursor = tokens.issue(scope, { m: 'r', n: 5, s: null, o: 5, t: TOP, ...forged })
      expect(() => openCursor(tokens, cursor, { scope, relevance: true })).toThrow(expect.objectContaining(refused))
    }
    expect(() => openCursor(tokens, date, { scope: 'search|another', relevance: false })).toThrow(expect.objectContaining(refused))
    for (const marks of [{ a: 'AAAA' }, { x: '!!' }]) {
      const opened = openCursor(tokens, tokens.issue(scope, { m: 'r', n: 5, s: null, o: 5, t: TOP, ...marks }), { scope, relevance: true })
      expect(() => readMarks(opened.carried)).toThrow(expect.objectContaining(refused))
    }
  })
})
