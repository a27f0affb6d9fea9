/**
 * Posts and their engagement, streamed in time order. Time runs oldest to newest over about two years
 * before the anchor, denser in the last weeks (so "past 24 hours" and "past week" searches find
 * plenty). Each post is followed by its comments, reactions and the members' matching profile
 * reactions, so every link points backwards in the stream and the post's counts are exactly the
 * records that follow it. Memory stays bounded: only a small window of recent posts is kept, as
 * candidates for reposts and reshares.
 */
import type {
  CommentRecord,
  IngestRecord,
  PostReactionRecord,
  PostRecord,
  ProfileReactionRecord,
} from '../contract/ingest.schemas.ts'
import { REACTION_TYPES, type ReactionType } from '../contract/resources.schemas.ts'
import type { CompanyInfo } from './company-factory.ts'
import type { NetworkPlan } from './network-plan.ts'
import { composePost, composeReshare, commentText, pickCategory, replyText, type PostCategory, type Voice } from './post-text.ts'
import type { JobSpan, ProfileCore } from './profile-factory.ts'
import { createAliasTable, createRng, deriveSeed, weighted, type Rng } from './prng.ts'
import type { SynthContext } from './synth-context.ts'
import { DAY_MS } from './synth-context.ts'
import type { TimeIdAllocator } from './time-ids.ts'
import { JOB_FUNCTIONS } from './vocabulary/careers.vocabulary.ts'
import { TOPICS, type Topic } from './vocabulary/topics.vocabulary.ts'

/** Days of history before the anchor. */
const HISTORY_DAYS = 730
/** Share of post rows that are reposts without commentary, and reshares with commentary. */
const REPOST_RATE = 0.035
const RESHARE_RATE = 0.03
const EDITED_RATE = 0.06
const COMMENTS_DISABLED_RATE = 0.03
/** Members in remembrance stopped posting and reacting a while before the anchor. */
const MEMORIAL_QUIET_MS = 400 * DAY_MS
const RECENT_WINDOW = 400
const COMPANY_POST_SHARE = 0.12

type Mode = 'original' | 'repost' | 'reshare'

interface Author {
  readonly kind: 'person' | 'company'
  readonly person: ProfileCore | undefined
  readonly company: CompanyInfo
  readonly urn: string
  readonly card: PostRecord['profile']
  readonly firstName: string
  readonly name: string
  readonly topics: readonly (keyof typeof TOPICS)[]
  readonly popularity: number
}

interface RecentPost {
  readonly id: string
  readonly author: Author
  readonly topic: Topic
  readonly subject: string
  readonly reactions: number
}

interface Slot {
  ms: number
  forced?: { author: Author; mode: Mode }
}

const POST_TYPES = {
  person: weighted([['text', 42], ['image', 30], ['linkedinVideo', 9], ['document', 7], ['article', 12]] as const),
  company: weighted([['text', 22], ['image', 48], ['linkedinVideo', 14], ['document', 8], ['article', 8]] as const),
}
const REACTIONS_NORMAL = weighted<ReactionType>([['LIKE', 62], ['PRAISE', 10], ['EMPATHY', 8], ['INTEREST', 11], ['APPRECIATION', 6], ['ENTERTAINMENT', 3]])
const REACTIONS_CELEBRATE = weighted<ReactionType>([['LIKE', 45], ['PRAISE', 35], ['EMPATHY', 12], ['INTEREST', 2], ['APPRECIATION', 5], ['ENTERTAINMENT', 1]])
const CELEBRATORY: ReadonlySet<PostCategory> = new Set(['newJob', 'milestone', 'learning', 'shoutout', 'launch'])
const IMAGE_SIZES: readonly (readonly [number, number])[] = [[1200, 627], [1080, 1080], [1080, 1350], [1600, 900], [800, 800], [1280, 720]]
const IMAGE_RENDITIONS = ['feedshare-shrink_2048_1536', 'feedshare-shrink_1280', 'feedshare-shrink_800'] as const

/** Public posts everyone may react to and share; only the author's comment setting varies. */
function permissions(commentsDisabled: boolean, rootShare: boolean): PostRecord['permissions'] {
  return {
    canReact: true,
    canPostComments: !commentsDisabled,
    canShare: true,
    commentingDisabled: commentsDisabled,
    allowedCommentersScope: commentsDisabled ? 'NONE' : 'ALL',
    shareAudience: 'PUBLIC',
    isActivity: true,
    // A repost or a reshare points at another post's share, so it is not a root share itself.
    rootShare,
  }
}

function personAuthor(core: ProfileCore): Author {
  return {
    kind: 'person',
    person: core,
    company: core.primaryCompany,
    urn: core.urn,
    card: { urn: core.urn, name: core.name, headline: core.headline, url: core.url, imageUrl: core.pictureUrl === '' ? null : core.pictureUrl },
    firstName: core.firstName,
    name: core.name,
    topics: core.topics,
    popularity: core.popularity,
  }
}

function companyAuthor(page: CompanyInfo): Author {
  const name = page.name as string
  return {
    kind: 'company',
    person: undefined,
    company: page,
    urn: page.urn,
    card: { urn: page.urn, name, headline: page.cardHeadline, url: page.url, imageUrl: page.logoUrl ?? null },
    firstName: name,
    name,
    topics: page.topics,
    popularity: Math.max(0.5, Math.min(5, (Math.log10(page.followerCount + 10) - 1.5) / 1.2)),
  }
}

/** Posts per day, oldest first: a flat base plus a bump over the last weeks and days; quieter weekends. */
function dailyCounts(anchorMs: number, total: number): number[] {
  const weights: number[] = []
  for (let d = HISTORY_DAYS - 1; d >= 0; d--) {
    const dayStart = anchorMs - (d + 1) * DAY_MS
    const weekday = new Date(dayStart).getUTCDay()
    const weekend = weekday === 0 || weekday === 6 ? 0.45 : 1
    weights.push((1 + 5 * Math.exp(-d / 21) + 2 * Math.exp(-d / 3)) * weekend)
  }
  const sum = weights.reduce((a, b) => a + b, 0)
  const counts: number[] = []
  let cumulative = 0
  let assigned = 0
  for (const w of weights) {
    cumulative += (w / sum) * total
    const upTo = Math.round(cumulative)
    counts.push(upTo - assigned)
    assigned = upTo
  }
  return counts
}

export function* generateActivity(
  ctx: SynthContext,
  plan: NetworkPlan,
  deps: { pages: readonly CompanyInfo[]; cores: readonly ProfileCore[]; ids: TimeIdAllocator },
): Generator<IngestRecord> {
  const rng = createRng(deriveSeed(ctx.seed, 'activity'))
  const { cores, ids } = deps
  const anchor = ctx.anchorMs
  const host = ctx.platformHost

  // Authors: members weighted by how much they post, pages by audience; pages write ~12% of posts.
  const personAuthors = cores.map(personAuthor)
  const namedPages = deps.pages.filter((p) => p.name !== undefined)
  const pageAuthors = namedPages.map(companyAuthor)
  const pageRng = createRng(deriveSeed(ctx.seed, 'page-activity'))
  const pageRaw = namedPages.map((p) => (1 + Math.log10(p.followerCount + 1)) * pageRng.logNormal(0, 0.6) * (p.pageType === 'school' ? 0.5 : 1))
  const personTotal = cores.reduce((a, c) => a + c.postWeight, 0)
  const pageTotal = pageRaw.reduce((a, b) => a + b, 0)
  const pageScale = pageTotal > 0 ? (personTotal * COMPANY_POST_SHARE) / (1 - COMPANY_POST_SHARE) / pageTotal : 0
  const authors: Author[] = [...personAuthors, ...pageAuthors]
  const authorTable = createAliasTable([...cores.map((c) => c.postWeight), ...pageRaw.map((w) => w * pageScale)])
  const actors = cores.filter((c) => !c.memorial)
  const mentionable = namedPages.filter((p) => p.pageType !== 'showcase')
  const memorialQuietFrom = anchor - MEMORIAL_QUIET_MS

  // One member's recent feed ends in a run of reposts; nobody else gets to post as them meanwhile.
  const reposterCore = cores.find((c) => c.role === 'reposter')
  const reposter = reposterCore ? (personAuthors[reposterCore.index] as Author) : undefined
  const streakFrom = anchor - 10 * DAY_MS
  const forced: Slot[] = reposter
    ? [
        { ms: anchor - 9.3 * DAY_MS, forced: { author: reposter, mode: 'original' } },
        { ms: anchor - 6.1 * DAY_MS, forced: { author: reposter, mode: 'repost' } },
        { ms: anchor - 4.4 * DAY_MS, forced: { author: reposter, mode: 'repost' } },
        { ms: anchor - 3.2 * DAY_MS, forced: { author: reposter, mode: 'repost' } },
        { ms: anchor - 1.7 * DAY_MS, forced: { author: reposter, mode: 'repost' } },
        { ms: anchor - 0.4 * DAY_MS, forced: { author: reposter, mode: 'original' } },
      ]
    : []

  const recent: RecentPost[] = []
  let recentNext = 0
  const remember = (post: RecentPost) => {
    if (recent.length < RECENT_WINDOW) recent.push(post)
    else recent[recentNext] = post
    recentNext = (recentNext + 1) % RECENT_WINDOW
  }
  const pickTarget = (author: Author): RecentPost | undefined => {
    let best: RecentPost | undefined
    for (let k = 0; k < 10 && (best === undefined || k < 3); k++) {
      const candidate = recent[rng.int(recent.length)]
      if (candidate === undefined || candidate.author === author) continue
      if (best === undefined || candidate.reactions > best.reactions) best = candidate
    }
    return best
  }

  const pickAuthor = (ms: number): Author => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const a = authors[authorTable.sample(rng)] as Author
      if (a === reposter && ms > streakFrom) continue
      if (a.person?.memorial && ms > memorialQuietFrom) continue
      return a
    }
    return pageAuthors[rng.int(pageAuthors.length)] ?? (personAuthors[0] as Author)
  }

  /**
   * An instant after `fromMs` (typical delay `meanMs`), strictly before the anchor. At most half of
   * the remaining room is used, so a chain (post, comment, reply, reply) never runs into the anchor.
   */
  const after = (fromMs: number, meanMs: number): number => {
    const room = anchor - fromMs - 1
    return fromMs + 1 + Math.min(Math.floor(Math.max(0, room - 1) / 2), Math.floor(rng.exponential(meanMs)))
  }

  const reactionCount = (popularity: number, eligible: number): number => {
    if (rng.chance(0.1)) return 0
    let k: number
    if (rng.chance(0.0025 * popularity)) k = rng.range(150, 600)
    else k = Math.round(rng.logNormal(Math.log(2.55 * popularity), 0.95))
    return Math.min(k, Math.max(0, Math.floor(eligible * 0.8)))
  }

  /** k distinct members other than the author (plus, now and then, a company page). */
  const pickActors = (k: number, exclude: Author): Author[] => {
    const chosen: Author[] = []
    const seen = new Set<Author>([exclude])
    if (k <= 0) return chosen
    if (k > actors.length / 3) {
      for (const core of rng.sample(actors, Math.min(actors.length, k + 1))) {
        const a = personAuthors[core.index] as Author
        if (!seen.has(a) && chosen.length < k) {
          seen.add(a)
          chosen.push(a)
        }
      }
      return chosen
    }
    while (chosen.length < k) {
      const a = rng.chance(0.03) && pageAuthors.length > 0
        ? (pageAuthors[rng.int(pageAuthors.length)] as Author)
        : (personAuthors[(actors[rng.int(actors.length)] as ProfileCore).index] as Author)
      if (seen.has(a)) continue
      seen.add(a)
      chosen.push(a)
    }
    return chosen
  }

  /** The author as they were at the time: a member speaks from the job held then. */
  const voiceOf = (a: Author, ms: number): Voice => {
    const core = a.person
    if (core === undefined) {
      return {
        kind: 'company', firstName: a.name, name: a.name, title: '', company: a.company, city: a.company.city.name,
        fn: JOB_FUNCTIONS[0] as (typeof JOB_FUNCTIONS)[number], certifications: [], tenureYears: 0, previousCompany: undefined,
      }
    }
    const d = new Date(ms)
    const month = d.getUTCFullYear() * 12 + d.getUTCMonth()
    const jobs = core.jobs.filter((j) => !j.side)
    const k = jobs.findIndex((j) => j.start <= month && (j.end === null || month <= j.end))
    const job = k >= 0 ? (jobs[k] as JobSpan) : undefined
    const previous = k >= 0 ? jobs.slice(k + 1).find((j) => j.company !== job?.company) : undefined
    return {
      kind: 'person',
      firstName: a.firstName,
      name: a.name,
      title: job?.title ?? core.primaryTitle,
      company: job?.company ?? a.company,
      city: core.city.name,
      fn: core.fn,
      certifications: core.fn.certifications,
      tenureYears: job ? Math.floor((month - job.start) / 12) : 0,
      previousCompany: previous?.company,
    }
  }
  const textDeps = {
    mentionable,
    someone: (r: Rng) => (cores[r.int(cores.length)] as ProfileCore).name,
  }

  function buildPost(ms: number, author: Author, requested: Mode): IngestRecord[] {
    let mode = requested
    const target = mode === 'original' ? undefined : pickTarget(author)
    if (target === undefined) mode = 'original'
    const id = ids.next('activity', ms)
    const shareKind = mode === 'repost' || rng.chance(0.3) ? 'share' : 'ugcPost'
    const shareUrn = `urn:li:${shareKind}:${ids.next('share', ms)}`
    const date = new Date(ms).toISOString()
    const activityUrn = `urn:li:activity:${id}`
    const authorFields = author.kind === 'person'
      ? { authorType: 'Person' as const, authorProfileId: (author.person as ProfileCore).profileId }
      : { authorType: 'Company' as const }

    if (mode === 'repost') {
      const post: PostRecord = {
        id: activityUrn, shareUrn, content: '', date, reactionCount: 0, commentCount: 0, sharesCount: 0, reactionsByType: {},
        postType: 'text', shareUrl: `https://${host}/feed/update/${activityUrn}/`, imageUrl: null, videoUrl: null, carouselPdfUrl: null,
        images: [], video: null, ...authorFields, profile: author.card,
        permissions: permissions(false, false),
        repostOf: `urn:li:activity:${(target as RecentPost).id}`,
      }
      return [{ kind: 'post', data: post }]
    }

    // Content.
    const topic = mode === 'reshare' ? (target as RecentPost).topic : TOPICS[rng.pick(author.topics)]
    const subject = mode === 'reshare' ? (target as RecentPost).subject : rng.pick(topic.subjects)
    const postType = mode === 'reshare' ? 'text' : POST_TYPES[author.kind].pick(rng)
    const voice = voiceOf(author, ms)
    let category: PostCategory = mode === 'reshare' ? 'reshare' : pickCategory(rng, voice, postType)
    if (author.person !== undefined) {
      // Life events follow the career: new-job posts in a job's first months, anniversaries after a year.
      const d = new Date(ms)
      const month = d.getUTCFullYear() * 12 + d.getUTCMonth()
      const job = author.person.jobs.find((j) => !j.side && j.company === voice.company && j.start <= month)
      const justStarted = job !== undefined && month - job.start <= 2
      if (justStarted && (postType === 'text' || postType === 'image') && rng.chance(0.3)) category = 'newJob'
      if (category === 'newJob' && !justStarted) category = 'thought'
      if (category === 'milestone' && voice.tenureYears < 1) category = 'lessons'
      // Juniors rarely post openings for their team.
      if (category === 'hiring' && author.person.seniority < 2 && rng.chance(0.8)) category = 'thought'
    }
    let content: string
    let mentions: CompanyInfo[] = []
    let jobPost = false
    if (mode === 'reshare') {
      const t = target as RecentPost
      content = composeReshare(rng, { targetName: t.author.name, targetFirst: t.author.firstName, topic, subject, ownCompany: t.author.company === author.company })
    } else {
      const own = author.person?.articles.filter((a) => a.ms < ms) ?? []
      const articleLink = postType === 'article' && own.length > 0 && rng.chance(0.8) ? (own[own.length - 1] as { title: string; url: string }) : null
      const composed = composePost(rng, textDeps, {
        voice, category, topic, subject, year: new Date(ms).getUTCFullYear(), articleLink,
      })
      content = composed.content
      mentions = composed.mentions
      jobPost = composed.jobPost
    }

    // Media.
    let images: PostRecord['images'] = []
    let video: PostRecord['video'] = null
    let carouselPdfUrl: string | null = null
    if (postType === 'image') {
      const n = rng.chance(0.72) ? 1 : rng.range(2, 4)
      for (let k = 0; k < n; k++) {
        const [width, height] = rng.pick(IMAGE_SIZES)
        images.push({ url: ctx.media.image(rng, rng.pick(IMAGE_RENDITIONS), ms), width, height })
      }
    } else if (postType === 'article' && rng.chance(0.8)) {
      images = [{ url: ctx.media.image(rng, 'article-cover_image-shrink_627_1200', ms), width: 1200, height: 627 }]
    } else if (postType === 'document') {
      carouselPdfUrl = ctx.media.document(rng, ms)
    } else if (postType === 'linkedinVideo') {
      const vertical = rng.chance(0.15)
      const ladder: [number, number, number][] = [[640, 360, rng.range(400_000, 700_000)], [1280, 720, rng.range(1_200_000, 2_500_000)]]
      if (rng.chance(0.35)) ladder.push([1920, 1080, rng.range(3_000_000, 5_000_000)])
      const progressiveStreams = ladder.map(([w, h, bitRate]) => ({
        url: ctx.media.video(rng, ms, h),
        width: vertical ? h : w,
        height: vertical ? w : h,
        bitRate,
      }))
      const top = progressiveStreams[progressiveStreams.length - 1] as { url: string }
      video = {
        url: top.url,
        duration: category === 'live' ? rng.range(20, 90) * 60_000 : rng.range(15, 600) * 1000 + rng.int(1000),
        thumbnail: ctx.media.image(rng, 'videocover-high', ms),
        progressiveStreams,
      }
    }

    // Engagement: the records that follow the post are its reactions and comments.
    const commentsDisabled = rng.chance(COMMENTS_DISABLED_RATE)
    const k = reactionCount(author.popularity, actors.length)
    const reactors = pickActors(k, author)
    const typeList = CELEBRATORY.has(category) ? REACTIONS_CELEBRATE : REACTIONS_NORMAL
    const counts = new Map<ReactionType, number>()
    const reactionRecords: IngestRecord[] = []
    const profileReactionRecords: IngestRecord[] = []
    for (const actor of reactors) {
      const reactionType = typeList.pick(rng)
      counts.set(reactionType, (counts.get(reactionType) ?? 0) + 1)
      const pr: PostReactionRecord = { postId: activityUrn, reactionType, actor: { urn: actor.urn } }
      reactionRecords.push({ kind: 'postReaction', data: pr })
      if (actor.person) {
        const rr: ProfileReactionRecord = {
          profileId: actor.person.profileId,
          postId: activityUrn,
          reactionType,
          reactedAt: new Date(after(ms, 8 * 3_600_000)).toISOString(),
        }
        profileReactionRecords.push({ kind: 'profileReaction', data: rr })
      }
    }
    const reactionsByType: Record<string, number> = {}
    for (const type of REACTION_TYPES) {
      const n = counts.get(type)
      if (n !== undefined) reactionsByType[type.toLowerCase()] = n
    }

    const commentRecords: IngestRecord[] = []
    const saidAlready = new Set<string>()
    /** People rarely post the very same words twice under one post. */
    const fresh = (make: () => string): string => {
      let text = make()
      for (let attempt = 0; attempt < 3 && saidAlready.has(text); attempt++) text = make()
      saidAlready.add(text)
      return text
    }
    if (!commentsDisabled) {
      const topLevel = Math.floor(rng.exponential(0.62 * Math.sqrt(k + 1)) + 0.35)
      const pinnedAt = topLevel > 0 && rng.chance(0.08) ? 0 : -1
      for (let c = 0; c < topLevel; c++) {
        // The pinned comment is usually the author's own (the link, the follow-up).
        const commenter = c === pinnedAt && rng.chance(0.7)
          ? author
          : reactors.length > 0 && rng.chance(0.5)
            ? (rng.pick(reactors) as Author)
            : (pickActors(1, author)[0] as Author)
        const createdMs = after(ms, 10 * 3_600_000)
        const commentId = ids.next('comment', createdMs)
        const comment: CommentRecord = {
          urn: `urn:li:comment:(activity:${id},${commentId})`,
          text: fresh(() =>
            commenter === author
              ? rng.pick([`Link in case you missed it: https://${host}/feed/update/${activityUrn}/`, 'A few people asked for more detail, happy to share in DMs.', 'Update: thank you all for the thoughtful replies!'])
              : commentText(rng, category, author.kind, author.firstName, subject),
          ),
          createdAt: new Date(createdMs).toISOString(),
          reactionCount: Math.floor(rng.exponential(1.4)),
          ...(c === pinnedAt ? { pinned: true } : {}),
          author: { id: commenter.urn },
        }
        commentRecords.push({ kind: 'comment', data: comment })
        const replies = rng.chance(0.22) ? (rng.chance(0.25) ? 2 : 1) : 0
        let lastMs = createdMs
        for (let r = 0; r < replies; r++) {
          const replier = commenter !== author && rng.chance(0.65) ? author : (pickActors(1, commenter)[0] as Author)
          const replyMs = after(lastMs, 4 * 3_600_000)
          lastMs = replyMs
          const replyId = ids.next('comment', replyMs)
          const reply: CommentRecord = {
            urn: `urn:li:comment:(activity:${id},${replyId})`,
            text: fresh(() => replyText(rng, category, replier === author, commenter.firstName)),
            createdAt: new Date(replyMs).toISOString(),
            reactionCount: Math.floor(rng.exponential(0.6)),
            author: { id: replier.urn },
            parentCommentId: commentId,
          }
          commentRecords.push({ kind: 'comment', data: reply })
        }
      }
    }

    const resharedPostUrn = mode === 'reshare' ? `urn:li:activity:${(target as RecentPost).id}` : undefined
    const post: PostRecord = {
      id: activityUrn,
      shareUrn,
      content,
      date,
      reactionCount: reactors.length,
      commentCount: commentRecords.length,
      sharesCount: Math.floor(reactors.length * rng.next() * 0.12) + (reactors.length > 100 ? rng.range(5, 60) : 0),
      reactionsByType,
      postType,
      shareUrl: `https://${host}/feed/update/${activityUrn}/`,
      imageUrl: images[0]?.url ?? null,
      videoUrl: video?.url ?? null,
      carouselPdfUrl,
      images,
      video,
      ...(resharedPostUrn !== undefined ? { resharedPostUrn } : {}),
      ...authorFields,
      profile: author.card,
      permissions: permissions(commentsDisabled, mode !== 'reshare'),
      ...(rng.chance(EDITED_RATE) ? { isEdited: true } : {}),
      ...(mentions.length > 0 ? { mentionsCompanies: mentions.map((m) => m.companyId) } : {}),
      ...(category === 'live' ? { liveVideo: true } : {}),
      ...(jobPost ? { jobPost: true } : {}),
    }
    if (mode === 'original') remember({ id, author, topic, subject, reactions: reactors.length })
    return [{ kind: 'post', data: post }, ...commentRecords, ...reactionRecords, ...profileReactionRecords]
  }

  const counts = dailyCounts(anchor, plan.posts)
  let forcedNext = 0
  for (let day = 0; day < counts.length; day++) {
    const d = HISTORY_DAYS - 1 - day
    const dayStart = anchor - (d + 1) * DAY_MS
    // The last day stops a minute short of the anchor so engagement still has room after the post.
    const dayEnd = d === 0 ? anchor - 60_000 : anchor - d * DAY_MS
    const n = counts[day] as number
    const times: number[] = new Array(n)
    for (let k = 0; k < n; k++) {
      // Most posts land in working hours (07:00-19:00 UTC); the rest anywhere in the day.
      const t = rng.chance(0.75) ? dayStart + 7 * 3_600_000 + rng.next() * 12 * 3_600_000 : dayStart + rng.next() * DAY_MS
      times[k] = Math.floor(Math.min(t, dayEnd - 1))
    }
    times.sort((a, b) => a - b)
    for (const ms of times) {
      while (forcedNext < forced.length && (forced[forcedNext] as Slot).ms <= ms) {
        const slot = forced[forcedNext++] as Slot
        const f = slot.forced as { author: Author; mode: Mode }
        yield* buildPost(Math.floor(slot.ms), f.author, f.mode)
      }
      const author = pickAuthor(ms)
      const x = rng.next()
      const mode: Mode = x < REPOST_RATE ? 'repost' : x < REPOST_RATE + RESHARE_RATE ? 'reshare' : 'original'
      yield* buildPost(ms, author, mode)
    }
  }
  while (forcedNext < forced.length) {
    const slot = forced[forcedNext++] as Slot
    const f = slot.forced as { author: Author; mode: Mode }
    yield* buildPost(Math.floor(slot.ms), f.author, f.mode)
  }
}
