/**
 * Calls made with an Idempotency-Key: the claim of the key before the call runs, the wait of a repeat
 * while the first call still runs, and the end of the claim once the call has settled.
 *
 * A call claims its key after authentication and before anything is held or read. A repeat of an
 * answered request is answered with the kept answer (the gateway sends it, free); a repeat of a
 * request still running waits for it, on this node for its end and on another by asking the store
 * again (a claim whose holder died lapses: see the ledger's claimKey), then is answered the same way;
 * a key already used with another request is refused, free. The call's settle keeps its answer with
 * its debit in one transaction (Ledger.settle), so a call billed and then cut off by a crash can be
 * fetched again with its key. An answer worth a retry (a refusal for rate, credits or an outage, a
 * client that left) is not kept: the claim is released and a retry runs afresh.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../ports/clock.ts'
import type { AnswerToKeep, Hold, KeptAnswer, KeyClaim, KeyUse, Ledger, SettleResult, UsageLine } from '../ports/ledger.ts'
import { ApiError, invalidParameter, serviceUnavailable } from '../domain/errors.ts'
import { clientGone, connectionClosed } from '../http/client-connection.ts'
import { fingerprint, IDEMPOTENCY_HEADER, readKey } from './idempotency-key.ts'
import { keyedCall, replay, sentBody, type KeyedCall } from './keyed-answer.ts'

/** How long a repeat waits for the first call with its key before it is refused (503, free): longer than any call runs. */
export const KEY_WAIT_MS = 120_000
/** The first and the longest pause between a waiting repeat's looks at the store (the first call runs on another node). */
const FIRST_POLL_MS = 20
const LONGEST_POLL_MS = 1_000
/**
 * How long an answer waits for its key's release. A store that does not answer (the outage that
 * refused the call) must not hold up the refusal: the release goes on without it, or the claim lapses.
 */
const RELEASE_WAIT_MS = 1_000

export interface KeyedCallsDeps {
  ledger: Ledger
  clock: Clock
  /** Waits `ms` of real time (default a timer): a repeat's pause between looks at the store. */
  wait?: (ms: number) => Promise<void>
  /** Real milliseconds, for how long a repeat has waited (default Date.now). */
  now?: () => number
}

/** How a call with a key begins: it runs holding the claim, or it is answered with the kept answer. */
export type Begun = { claim: KeyClaim } | { answer: KeptAnswer }

export type KeyedCalls = ReturnType<typeof createKeyedCalls>

const idOf = (accountId: string, key: string): string => `${accountId}\u0000${key}`

export const keyReused = (): ApiError =>
  invalidParameter(IDEMPOTENCY_HEADER, 'this key was used with another request (method, path, query or body) in the last 24 hours; send a new key with a new request.')

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

export function createKeyedCalls(deps: KeyedCallsDeps) {
  const { ledger, clock } = deps
  const wait = deps.wait ?? realWait
  const now = deps.now ?? Date.now
  /** The keys claimed by calls running on this node, with what ends their wait. */
  const running = new Map<string, { fingerprint: string; ended: Promise<void>; end(): void }>()

  /**
   * Claims the key for the call, or finds the answer to repeat. Waits while the same request runs;
   * throws the 400 of a key used with another request, `gone()`'s error once the client has left
   * while it waited, and a 503 after KEY_WAIT_MS.
   */
  async function begin(use: Omit<KeyUse, 'at'>, gone: () => ApiError | undefined): Promise<Begun> {
    const id = idOf(use.accountId, use.key)
    const since = now()
    let pause = FIRST_POLL_MS
    for (;;) {
      const here = running.get(id)
      if (!here) {
        const found = await ledger.claimKey({ ...use, at: clock.now() })
        if (found.state === 'claimed') {
          let end!: () => void
          const ended = new Promise<void>((resolve) => (end = resolve))
          running.set(id, { fingerprint: use.fingerprint, ended, end })
          return { claim: found.claim }
        }
        if (found.state === 'answered') return { answer: found.answer }
        if (found.state === 'mismatch') throw keyReused()
      } else if (here.fingerprint !== use.fingerprint) throw keyReused()
      const left = gone()
      if (left) throw left
      if (now() - since > KEY_WAIT_MS) {
        throw serviceUnavailable(`The first call with this ${IDEMPOTENCY_HEADER} is still running.`, 5)
      }
      // On this node: until the first call ends (looking now and then whether the client is still there).
      // Elsewhere: ask the store again, less and less often.
      const mine = running.get(id)
      if (mine) await Promise.race([mine.ended, wait(LONGEST_POLL_MS)])
      else {
        await wait(pause)
        pause = Math.min(pause * 2, LONGEST_POLL_MS)
      }
    }
  }

  /**
   * Claims the call's key, or finds the kept answer of the same request: then its status and headers
   * are set on `reply` and its body returned, to send as the call's answer (free).
   */
  async function start(request: FastifyRequest, reply: FastifyReply, accountId: string, keyed: KeyedCall): Promise<Buffer | undefined> {
    const begun = await begin(
      { accountId, key: keyed.key, fingerprint: fingerprint(request, sentBody(request, keyed)) },
      () => (connectionClosed(request) ? clientGone() : undefined),
    )
    if ('claim' in begun) {
      keyed.claim = begun.claim
      return undefined
    }
    keyed.replayed = true
    return replay(reply, begun.answer)
  }

  return {
    /**
     * A call whose rate units are taken and whose header is `sent`: the 400 of a bad key is thrown;
     * a call without a body claims its key now (so its answers to a bad query are kept too), and a
     * repeat is sent the kept answer on `reply` (`replayed`). A call with a body claims its key once
     * the body is read: `start`, from the handler.
     */
    async arrive(request: FastifyRequest, reply: FastifyReply, accountId: string, sent: string | string[]): Promise<KeyedCall> {
      const key = readKey(sent, request.raw.rawHeaders)
      if (typeof key !== 'string') throw key
      const keyed = keyedCall(key)
      if (request.method !== 'GET') return keyed
      const kept = await start(request, reply, accountId, keyed)
      if (kept) reply.send(kept)
      return keyed
    },

    start,

    /** Settles the call (Ledger.settle), keeping its answer under its key in the same transaction when given one. */
    settle(hold: Hold | null, line: UsageLine, keep: AnswerToKeep): Promise<SettleResult> {
      return ledger.settle(hold, line, keep)
    },

    /**
     * Ends the claim once the call has settled: `kept` when its settle stored the answer, else the
     * key is released so that a retry runs afresh. Repeats waiting on this node look again.
     */
    async end(claim: KeyClaim, kept: boolean): Promise<void> {
      const id = idOf(claim.accountId, claim.key)
      if (!kept) {
        // A store that cannot be reached to release it lets the claim lapse (see the ledger's claimKey);
        // the answer, not kept, is the refusal the call got.
        const released = ledger.releaseKey(claim).catch(() => {})
        await Promise.race([released, wait(RELEASE_WAIT_MS)])
      }
      const here = running.get(id)
      running.delete(id)
      here?.end()
    },
  }
}
