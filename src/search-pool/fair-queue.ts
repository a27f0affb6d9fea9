/**
 * Fair order of the work waiting for the search pool, across accounts: start-time fair queueing.
 * Each job is tagged on arrival with a virtual start, the later of the queue's virtual time and its
 * account's last virtual finish, and a finish one job's worth (1 / weight) after it; the pool takes
 * the smallest start first. An account that has been idle starts at the current virtual time, so its
 * job runs before any backlog: it waits for at most one job of each other busy account, however much
 * they have queued. Weights are the plans' rates, so a larger plan gets a larger share when the pool
 * is contended, and any account gets all of it when alone.
 */

interface Tagged<T> {
  item: T
  start: number
  finish: number
  /** Jobs of other accounts taken between this one's arrival and its own taking (the fairness check). */
  passedBy: number
}

interface Lane<T> {
  jobs: Tagged<T>[]
  /** Index of the first job still waiting in `jobs` (taken ones are dropped in bulk). */
  head: number
  lastFinish: number
  weight: number
}

export interface Taken<T> {
  accountId: string
  item: T
  /** How many jobs of other accounts were taken while this one waited. */
  passedBy: number
}

export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>()
  private virtualTime = 0
  private waiting = 0

  /** Jobs waiting, over all accounts. */
  get size(): number {
    return this.waiting
  }

  /** Queues a job of the account; `weight` (> 0) is its share when the pool is contended. */
  push(accountId: string, weight: number, item: T): void {
    let lane = this.lanes.get(accountId)
    if (!lane) {
      lane = { jobs: [], head: 0, lastFinish: 0, weight }
      this.lanes.set(accountId, lane)
    }
    lane.weight = weight
    const start = Math.max(this.virtualTime, lane.lastFinish)
    const finish = start + 1 / weight
    lane.lastFinish = finish
    lane.jobs.push({ item, start, finish, passedBy: 0 })
    this.waiting++
  }

  /** The next job in fair order, or undefined when none waits. */
  take(): Taken<T> | undefined {
    let best: Lane<T> | undefined
    let bestId = ''
    for (const [id, lane] of this.lanes) {
      const job = lane.jobs[lane.head]
      if (!job) continue
      const top = best?.jobs[best.head]
      // Ties go to the smaller finish, then to the account with less waiting: a single search is not
      // put behind a backlog that arrived at the same virtual instant.
      const ahead =
        !top ||
        job.start < top.start ||
        (job.start === top.start && (job.finish < top.finish || (job.finish === top.finish && lane.jobs.length - lane.head < best!.jobs.length - best!.head)))
      if (ahead) {
        best = lane
        bestId = id
      }
    }
    if (!best) return undefined
    const job = best.jobs[best.head] as Tagged<T>
    best.head++
    this.waiting--
    this.virtualTime = job.start
    for (const [id, lane] of this.lanes) {
      if (id === bestId) continue
      for (let i = lane.head; i < lane.jobs.length; i++) (lane.jobs[i] as Tagged<T>).passedBy++
      if (lane.head === lane.jobs.length && lane.lastFinish <= this.virtualTime) this.lanes.delete(id)
    }
    this.compact(bestId, best)
    return { accountId: bestId, item: job.item, passedBy: job.passedBy }
  }

  /** Lanes with nothing waiting are forgotten once the virtual time has passed their last finish. */
  private compact(accountId: string, lane: Lane<T>): void {
    if (lane.head === lane.jobs.length) {
      lane.jobs = []
      lane.head = 0
      if (lane.lastFinish <= this.virtualTime) this.lanes.delete(accountId)
    } else if (lane.head > 64 && lane.head * 2 > lane.jobs.length) {
      lane.jobs = lane.jobs.slice(lane.head)
      lane.head = 0
    }
  }
}
