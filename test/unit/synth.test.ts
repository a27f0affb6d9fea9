import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type {
  ArticleRecord,
  CommentRecord,
  CompanyRecord,
  IngestRecord,
  PostReactionRecord,
  PostRecord,
  ProfileReactionRecord,
} from '../../src/contract/ingest.schemas.ts'
import type { Profile } from '../../src/contract/resources.schemas.ts'
import { prepareRecord, validateRecord } from '../../src/domain/content/content-writer.ts'
import { PROFILE_ID_RE, articlePublishedAt, timeFromId } from '../../src/domain/content/ids.ts'
import { NETWORK_SIZES, estimateRecords, generateNetwork, planNetwork, type SynthOptions } from '../../src/synth/index.ts'
import { createRng, deriveSeed } from '../../src/synth/prng.ts'

const HOST = 'www.linkedin.com'
const ANCHOR = Date.UTC(2026, 10, 1)
const DAY = 86_400_000
const OPTS: SynthOptions = { seed: 7, size: 60, anchorMs: ANCHOR, platformHost: HOST }
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const activityId = (urn: string): string => urn.replace(/^urn:li:activity:/, '')

function hashStream(opts: SynthOptions): string {
  const hash = createHash('sha256')
  for (const record of generateNetwork(opts)) hash.update(JSON.stringify(record)).update('\n')
  return hash.digest('hex')
}

interface Network {
  records: IngestRecord[]
  companies: CompanyRecord[]
  profiles: Profile[]
  articles: ArticleRecord[]
  posts: PostRecord[]
  comments: CommentRecord[]
  postReactions: PostReactionRecord[]
  profileReactions: ProfileReactionRecord[]
}

function collect(opts: SynthOptions): Network {
  const n: Network = { records: [], companies: [], profiles: [], articles: [], posts: [], comments: [], postReactions: [], profileReactions: [] }
  for (const r of generateNetwork(opts)) {
    n.records.push(r)
    if (r.kind === 'company') n.companies.push(r.data)
    else if (r.kind === 'profile') n.profiles.push(r.data)
    else if (r.kind === 'article') n.articles.push(r.data)
    else if (r.kind === 'post') n.posts.push(r.data)
    else if (r.kind === 'comment') n.comments.push(r.data)
    else if (r.kind === 'postReaction') n.postReactions.push(r.data)
    else n.profileReactions.push(r.data)
  }
  return n
}

let net: Network
beforeAll(() => {
  net = collect(OPTS)
})

describe('sizes', () => {
  it('names the three operator sizes and scales a profile count', () => {
    expect(NETWORK_SIZES.small).toEqual({ profiles: 2_000, companies: 300, posts: 30_000 })
    expect(NETWORK_SIZES.medium).toEqual({ profiles: 20_000, companies: 2_000, posts: 200_000 })
    expect(NETWORK_SIZES.large).toEqual({ profiles: 200_000, companies: 20_000, posts: 2_000_000 })
    const p = planNetwork(2_000)
    expect(Math.abs(p.companies - 300)).toBeLessThanOrEqual(5)
    expect(p.posts).toBe(30_000)
    expect(planNetwork(60).profiles).toBe(60)
    expect(planNetwork(20).profiles).toBe(20)
    // Counts the generator cannot build are refused, not rounded up (5 built 20 profiles) or tried.
    for (const n of [0, 5, 19, 500_001, 99_999_999_999, 60.5]) expect(() => planNetwork(n)).toThrow(/profile count from 20 to 500,000/)
  })

  it('yields the planned numbers of companies, profiles and posts (the reposter script adds a few posts)', () => {
    const plan = planNetwork(60)
    expect(net.companies).toHaveLength(plan.companies)
    expect(net.profiles).toHaveLength(plan.profiles)
    expect(net.posts.length).toBeGreaterThanOrEqual(plan.posts)
    expect(net.posts.length).toBeLessThanOrEqual(plan.posts + 6)
  })

  it('estimates the record count closely enough for a progress bar', () => {
    const estimate = estimateRecords(OPTS)
    expect(Math.abs(estimate - net.records.length) / net.records.length).toBeLessThan(0.25)
  })

  it('streams: the first record of a large network arrives without building the rest', () => {
    const first = generateNetwork({ ...OPTS, size: 'large' }).next()
    expect(first.done).toBe(false)
    expect(first.value?.kind).toBe('company')
  })
})

describe('prng', () => {
  it('is deterministic per seed and stream', () => {
    const a = createRng(deriveSeed(1, 'x', 3))
    const b = createRng(deriveSeed(1, 'x', 3))
    const c = createRng(deriveSeed(1, 'x', 4))
    const seqA = Array.from({ length: 5 }, () => a.next())
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA)
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA)
    for (const x of seqA) expect(x >= 0 && x < 1).toBe(true)
  })
})

describe('every record is accepted by the write path', () => {
  it('passes validateRecord and prepareRecord', () => {
    const failures: string[] = []
    net.records.forEach((r, i) => {
      const v = validateRecord(JSON.parse(JSON.stringify(r)))
      if ('reason' in v) {
        failures.push(`#${i} ${r.kind}: ${v.reason}`)
        return
      }
      try {
        prepareRecord(v.record, ANCHOR, HOST)
      } catch (e) {
        failures.push(`#${i} ${r.kind}: ${(e as Error).message}`)
      }
    })
    expect(failures.slice(0, 5)).toEqual([])
  })
})

describe('determinism', () => {
  it('gives a byte-identical stream for the same seed, size, anchor and host', () => {
    expect(hashStream(OPTS)).toBe(hashStream(OPTS))
  })

  it('differs for another seed or another anchor', () => {
    const base = hashStream(OPTS)
    expect(hashStream({ ...OPTS, seed: 8 })).not.toBe(base)
    expect(hashStream({ ...OPTS, anchorMs: ANCHOR - DAY })).not.toBe(base)
  })
})

describe('identifiers of the synthetic network', () => {
  it('profile ids, member ids and slugs are well formed and unique', () => {
    const ids = new Set<string>()
    const members = new Set<string>()
    const slugs = new Set<string>()
    for (const p of net.profiles) {
      expect(p.profileId).toMatch(PROFILE_ID_RE)
      expect(p.id).toBe(`urn:li:fsd_profile:${p.profileId}`)
      expect(p.memberId).toMatch(/^\d+$/)
      expect(p.memberId).not.toBe(p.profileId)
      expect(p.publicIdentifier).toMatch(SLUG_RE)
      expect(p.url).toBe(`https://${HOST}/in/${p.publicIdentifier}`)
      ids.add(p.profileId)
      members.add(p.memberId)
      slugs.add(p.publicIdentifier)
    }
    expect(ids.size).toBe(net.profiles.length)
    expect(members.size).toBe(net.profiles.length)
    expect(slugs.size).toBe(net.profiles.length)
  })

  it('company ids and slugs are unique; school ids never equal a company id', () => {
    const ids = new Set(net.companies.map((c) => c.companyId))
    expect(ids.size).toBe(net.companies.length)
    const slugs = net.companies.flatMap((c) => (c.publicIdentifier ? [c.publicIdentifier] : []))
    expect(new Set(slugs).size).toBe(slugs.length)
    for (const s of slugs) expect(s).toMatch(SLUG_RE)
    for (const c of net.companies) {
      expect(c.id).toBe(`urn:li:fsd_company:${c.companyId}`)
      expect(c.url).toBe(`https://${HOST}/${c.pageType}/${c.publicIdentifier ?? c.companyId}/`)
    }
    const schoolIds = net.profiles.flatMap((p) => (p.currentSchool ? [p.currentSchool.schoolId] : []))
    expect(schoolIds.length).toBeGreaterThan(0)
    for (const id of schoolIds) {
      expect(id).toMatch(/^\d+$/)
      expect(ids.has(id)).toBe(false)
    }
  })

  it('activity, share and comment ids are 19-digit time ids matching their dates, all unique', () => {
    const activity = new Set<string>()
    const shares = new Set<string>()
    for (const p of net.posts) {
      const id = activityId(p.id)
      expect(id).toMatch(/^\d{19}$/)
      expect(timeFromId(id)).toBe(Date.parse(p.date))
      const share = /^urn:li:(share|ugcPost):(\d{19})$/.exec(p.shareUrn)
      expect(share).not.toBeNull()
      expect(timeFromId(share?.[2] as string)).toBe(Date.parse(p.date))
      expect(p.shareUrl).toBe(`https://${HOST}/feed/update/urn:li:activity:${id}/`)
      activity.add(id)
      shares.add(share?.[2] as string)
    }
    expect(activity.size).toBe(net.posts.length)
    expect(shares.size).toBe(net.posts.length)
    const comments = new Set<string>()
    for (const c of net.comments) {
      const m = /^urn:li:comment:\(activity:(\d{19}),(\d{19})\)$/.exec(c.urn)
      expect(m).not.toBeNull()
      expect(timeFromId(m?.[2] as string)).toBe(Date.parse(c.createdAt))
      comments.add(m?.[2] as string)
    }
    expect(comments.size).toBe(net.comments.length)
  })

  it('position and education URNs carry the profile id', () => {
    for (const p of net.profiles) {
      for (const e of p.experiences) expect(e.positionUrn).toMatch(new RegExp(`^urn:li:fsd_profilePosition:\\(${p.profileId.replace(/[-]/g, '\\-')},\\d+\\)$`))
      for (const e of p.educations) expect(e.educationUrn).toMatch(new RegExp(`^urn:li:fsd_profileEducation:\\(${p.profileId.replace(/[-]/g, '\\-')},\\d+\\)$`))
      const urns = [...p.experiences.map((e) => e.positionUrn), ...p.educations.map((e) => e.educationUrn)]
      expect(new Set(urns).size).toBe(urns.length)
    }
  })

  it('article ids are unique and publishedAt is what the id decodes to', () => {
    const ids = new Set(net.articles.map((a) => a.articleId))
    expect(ids.size).toBe(net.articles.length)
    for (const a of net.articles) {
      expect(a.articleUrn).toBe(`urn:li:linkedinArticle:${a.articleId}`)
      expect(a.publishedAt).toBe(articlePublishedAt(a.articleId, ANCHOR))
      expect(a.url).toMatch(new RegExp(`^https://${HOST.replace(/\./g, '\\.')}/pulse/[a-z0-9-]+-${a.articleId}/$`))
    }
  })
})

describe('references resolve to records earlier in the stream', () => {
  it('holds for every link', () => {
    const companies = new Map<string, CompanyRecord>()
    const profiles = new Map<string, Profile>()
    const posts = new Map<string, PostRecord>()
    const comments = new Map<string, { postId: string; topLevel: boolean }>()
    const profileUrls = new Set(net.profiles.map((p) => p.url))
    const actorExists = (urn: string): boolean => {
      const person = /^urn:li:fsd_profile:(.+)$/.exec(urn)
      if (person) return profiles.has(person[1] as string)
      const company = /^urn:li:fsd_company:(\d+)$/.exec(urn)
      return company !== null && companies.has(company[1] as string)
    }
    for (const r of net.records) {
      switch (r.kind) {
        case 'company':
          companies.set(r.data.companyId, r.data)
          break
        case 'profile': {
          const p = r.data
          for (const e of p.experiences) {
            const c = companies.get(e.company.companyId)
            expect(c, `experience company ${e.company.companyId}`).toBeDefined()
            expect(e.company).toEqual({ url: c?.url, name: c?.name, logo: c?.logoUrl ?? null, companyId: c?.companyId, urn: c?.id })
            expect(e.name).toBe(c?.name)
          }
          for (const e of p.educations) {
            const school = [...companies.values()].find((c) => c.url === e.schoolUrl)
            expect(school?.pageType).toBe('school')
            expect(e.name).toBe(school?.name)
            expect(e.schoolLogo).toBe(school?.logoUrl ?? null)
          }
          if (p.currentPosition) {
            const c = companies.get(p.currentPosition.companyId)
            expect(c).toBeDefined()
            expect(p.currentPosition.companyUrn).toBe(c?.id)
            expect(p.currentPosition.url).toBe(c?.url)
            expect(p.currentPosition.publicIdentifier).toBe(c?.publicIdentifier)
            expect(p.currentPosition.name).toBe(c?.name)
          }
          for (const rec of p.recommendations ?? []) expect(profileUrls.has(rec.authorUrl)).toBe(true)
          profiles.set(p.profileId, p)
          break
        }
        case 'article':
          expect(profiles.has(r.data.authorProfileId)).toBe(true)
          break
        case 'post': {
          const p = r.data
          expect(actorExists(p.profile.urn)).toBe(true)
          if (p.repostOf) expect(posts.has(activityId(p.repostOf))).toBe(true)
          if (p.resharedPostUrn) expect(posts.has(activityId(p.resharedPostUrn))).toBe(true)
          for (const id of p.mentionsCompanies ?? []) {
            const c = companies.get(id)
            expect(c?.name).toBeDefined()
            expect(p.content).toContain(c?.name as string)
          }
          posts.set(activityId(p.id), p)
          break
        }
        case 'comment': {
          const c = r.data
          const m = /^urn:li:comment:\(activity:(\d+),(\d+)\)$/.exec(c.urn) as RegExpExecArray
          expect(posts.has(m[1] as string)).toBe(true)
          expect(actorExists(c.author.id)).toBe(true)
          if (c.parentCommentId !== undefined) {
            const parent = comments.get(c.parentCommentId)
            expect(parent?.postId).toBe(m[1])
            expect(parent?.topLevel).toBe(true)
          }
          comments.set(m[2] as string, { postId: m[1] as string, topLevel: c.parentCommentId === undefined })
          break
        }
        case 'postReaction':
          expect(posts.has(activityId(r.data.postId))).toBe(true)
          expect(actorExists(r.data.actor.urn)).toBe(true)
          break
        case 'profileReaction':
          expect(posts.has(activityId(r.data.postId))).toBe(true)
          expect(profiles.has(r.data.profileId)).toBe(true)
          break
      }
    }
  })

  it('post author cards match the author records', () => {
    const profiles = new Map(net.profiles.map((p) => [p.id, p]))
    const companies = new Map(net.companies.map((c) => [c.id, c]))
    for (const post of net.posts) {
      if (post.authorType === 'Person') {
        const p = profiles.get(post.profile.urn) as Profile
        expect(post.authorProfileId).toBe(p.profileId)
        expect(post.profile).toEqual({
          urn: p.id, name: `${p.firstName} ${p.lastName}`, headline: p.title, url: p.url, imageUrl: p.profilePictureUrl === '' ? null : p.profilePictureUrl,
        })
      } else {
        const c = companies.get(post.profile.urn) as CompanyRecord
        expect(post.authorProfileId).toBeUndefined()
        expect(post.profile).toEqual({
          urn: c.id, name: c.name, headline: c.description?.slice(0, 120) ?? c.industry, url: c.url, imageUrl: c.logoUrl ?? null,
        })
      }
    }
  })
})

describe('engagement consistency', () => {
  it('counts on each post are exactly the reaction and comment records emitted for it', () => {
    const reactions = new Map<string, PostReactionRecord[]>()
    for (const r of net.postReactions) reactions.set(activityId(r.postId), [...(reactions.get(activityId(r.postId)) ?? []), r])
    const comments = new Map<string, number>()
    for (const c of net.comments) {
      const postId = /\(activity:(\d+),/.exec(c.urn)?.[1] as string
      comments.set(postId, (comments.get(postId) ?? 0) + 1)
    }
    for (const post of net.posts) {
      const id = activityId(post.id)
      const list = reactions.get(id) ?? []
      expect(post.reactionCount).toBe(list.length)
      const byType: Record<string, number> = {}
      for (const r of list) byType[r.reactionType.toLowerCase()] = (byType[r.reactionType.toLowerCase()] ?? 0) + 1
      expect(post.reactionsByType).toEqual(byType)
      expect(post.commentCount).toBe(comments.get(id) ?? 0)
      expect(new Set(list.map((r) => r.actor.urn)).size).toBe(list.length)
      expect(list.some((r) => r.actor.urn === post.profile.urn)).toBe(false)
    }
  })

  it('every reaction by a member has the matching profile reaction, dated after the post and before the anchor', () => {
    const postDates = new Map(net.posts.map((p) => [activityId(p.id), Date.parse(p.date)]))
    const profileReactions = new Map(net.profileReactions.map((r) => [`${r.profileId}|${activityId(r.postId)}`, r]))
    const personReactions = net.postReactions.filter((r) => r.actor.urn.startsWith('urn:li:fsd_profile:'))
    expect(profileReactions.size).toBe(net.profileReactions.length)
    expect(personReactions.length).toBe(net.profileReactions.length)
    for (const r of personReactions) {
      const profileId = r.actor.urn.slice('urn:li:fsd_profile:'.length)
      const match = profileReactions.get(`${profileId}|${activityId(r.postId)}`)
      expect(match?.reactionType).toBe(r.reactionType)
      const at = Date.parse(match?.reactedAt as string)
      expect(at).toBeGreaterThan(postDates.get(activityId(r.postId)) as number)
      expect(at).toBeLessThan(ANCHOR)
    }
  })

  it('comments come after their post (replies after their parent) and before the anchor', () => {
    const postDates = new Map(net.posts.map((p) => [activityId(p.id), Date.parse(p.date)]))
    const created = new Map<string, number>()
    for (const c of net.comments) {
      const m = /\(activity:(\d+),(\d+)\)/.exec(c.urn) as RegExpExecArray
      const at = Date.parse(c.createdAt)
      expect(at).toBeGreaterThan(postDates.get(m[1] as string) as number)
      expect(at).toBeLessThan(ANCHOR)
      if (c.parentCommentId) expect(at).toBeGreaterThan(created.get(c.parentCommentId) as number)
      created.set(m[2] as string, at)
    }
  })

  it('has sane volumes: reactions heavy-tailed around 6 per post, comments around 1.5 with ~20% replies', () => {
    const small = collect({ ...OPTS, size: 400 })
    const mean = small.postReactions.length / small.posts.length
    expect(mean).toBeGreaterThan(4)
    expect(mean).toBeLessThan(8.5)
    const max = Math.max(...small.posts.map((p) => p.reactionCount))
    expect(max).toBeGreaterThan(60)
    const commentsPerPost = small.comments.length / small.posts.length
    expect(commentsPerPost).toBeGreaterThan(1)
    expect(commentsPerPost).toBeLessThan(2.2)
    const replyShare = small.comments.filter((c) => c.parentCommentId !== undefined).length / small.comments.length
    expect(replyShare).toBeGreaterThan(0.12)
    expect(replyShare).toBeLessThan(0.3)
  })

  it('all times lie before the anchor, over about two years, denser in recent weeks', () => {
    const ages = net.posts.map((p) => ANCHOR - Date.parse(p.date))
    for (const age of ages) {
      expect(age).toBeGreaterThan(0)
      expect(age).toBeLessThanOrEqual(731 * DAY)
    }
    expect(ages.some((a) => a < DAY)).toBe(true)
    const lastWeek = ages.filter((a) => a < 7 * DAY).length
    const weekAYearAgo = ages.filter((a) => a >= 365 * DAY && a < 372 * DAY).length
    expect(lastWeek).toBeGreaterThan(weekAYearAgo * 2)
    expect(ages.some((a) => a > 600 * DAY)).toBe(true)
  })
})

describe('post edge cases', () => {
  it('has reposts without commentary, with no content, media or engagement', () => {
    const reposts = net.posts.filter((p) => p.repostOf !== undefined)
    expect(reposts.length).toBeGreaterThan(net.posts.length * 0.01)
    for (const p of reposts) {
      expect(p.content).toBe('')
      expect(p.resharedPostUrn).toBeUndefined()
      expect([p.reactionCount, p.commentCount, p.images.length]).toEqual([0, 0, 0])
      expect(p.video).toBeNull()
    }
  })

  it('has a member whose recent feed holds several reposts in a row', () => {
    const byAuthor = new Map<string, PostRecord[]>()
    for (const p of net.posts) byAuthor.set(p.profile.urn, [...(byAuthor.get(p.profile.urn) ?? []), p])
    let longest = 0
    for (const feed of byAuthor.values()) {
      const newest = [...feed].sort((a, b) => Date.parse(b.date) - Date.parse(a.date)).slice(0, 10)
      let run = 0
      for (const p of newest) {
        run = p.repostOf !== undefined ? run + 1 : 0
        longest = Math.max(longest, run)
      }
    }
    expect(longest).toBeGreaterThanOrEqual(3)
  })

  it('has reshares with commentary (rootShare false), edited posts, zero-reaction posts and disabled comments', () => {
    const reshares = net.posts.filter((p) => p.resharedPostUrn !== undefined)
    expect(reshares.length).toBeGreaterThan(0)
    for (const p of reshares) {
      expect(p.content).not.toBe('')
      expect(p.permissions.rootShare).toBe(false)
      expect(p.repostOf).toBeUndefined()
    }
    for (const p of net.posts.filter((x) => x.resharedPostUrn === undefined && x.repostOf === undefined)) expect(p.permissions.rootShare).toBe(true)
    const edited = net.posts.filter((p) => p.isEdited === true)
    expect(edited.length).toBeGreaterThan(0)
    for (const p of edited) expect(timeFromId(activityId(p.id))).toBe(Date.parse(p.date))
    expect(net.posts.some((p) => p.repostOf === undefined && p.reactionCount === 0)).toBe(true)
    const disabled = net.posts.filter((p) => p.permissions.commentingDisabled)
    expect(disabled.length).toBeGreaterThan(0)
    for (const p of disabled) {
      expect(p.permissions.canPostComments).toBe(false)
      expect(p.commentCount).toBe(0)
    }
  })

  it('has every post type with consistent media', () => {
    const types = new Set(net.posts.map((p) => p.postType))
    expect([...types].sort()).toEqual(['article', 'document', 'image', 'linkedinVideo', 'text'])
    for (const p of net.posts) {
      expect(p.imageUrl).toBe(p.images[0]?.url ?? null)
      expect(p.videoUrl).toBe(p.video?.url ?? null)
      switch (p.postType) {
        case 'image':
          expect(p.images.length).toBeGreaterThan(0)
          for (const img of p.images) expect(img.width > 0 && img.height > 0).toBe(true)
          break
        case 'linkedinVideo':
          expect(p.video).not.toBeNull()
          expect(p.video?.duration).toBeGreaterThan(0)
          expect(p.video?.progressiveStreams.length).toBeGreaterThan(0)
          expect(p.video?.progressiveStreams.map((s) => s.url)).toContain(p.video?.url)
          break
        case 'document':
          expect(p.carouselPdfUrl).toMatch(/^https:\/\//)
          break
        case 'article':
          expect(p.content).toMatch(/https:\/\/\S+/)
          break
        default:
          expect(p.video).toBeNull()
          expect(p.carouselPdfUrl).toBeNull()
      }
      if (p.postType !== 'document') expect(p.carouselPdfUrl).toBeNull()
    }
  })

  it('flags live videos and job posts, and mentions network companies', () => {
    const live = net.posts.filter((p) => p.liveVideo === true)
    expect(live.length).toBeGreaterThan(0)
    for (const p of live) expect(p.postType).toBe('linkedinVideo')
    expect(net.posts.some((p) => p.jobPost === true && p.content.includes('#hiring'))).toBe(true)
    expect(net.posts.some((p) => (p.mentionsCompanies ?? []).length > 0)).toBe(true)
    expect(net.posts.some((p) => /#(ai|leadership|hiring)\b/.test(p.content))).toBe(true)
  })

  it('has company-authored posts and company pages among actors', () => {
    expect(net.posts.some((p) => p.authorType === 'Company')).toBe(true)
    expect(net.postReactions.some((r) => r.actor.urn.startsWith('urn:li:fsd_company:'))).toBe(true)
    expect(net.comments.some((c) => c.author.id.startsWith('urn:li:fsd_company:'))).toBe(true)
  })

  it('has pinned comments and replies', () => {
    expect(net.comments.some((c) => c.pinned === true && c.parentCommentId === undefined)).toBe(true)
    expect(net.comments.some((c) => c.parentCommentId !== undefined)).toBe(true)
    for (const c of net.comments) if (c.parentCommentId !== undefined) expect(c.pinned).toBeUndefined()
  })
})

describe('profile edge cases', () => {
  it('has memorial, influencer, creator, premium and verified members', () => {
    expect(net.profiles.some((p) => p.inRemembrance)).toBe(true)
    expect(net.profiles.some((p) => p.influencer)).toBe(true)
    expect(net.profiles.some((p) => p.creator && p.creatorInfo.hashTags.length > 0)).toBe(true)
    expect(net.profiles.some((p) => p.premium)).toBe(true)
    expect(net.profiles.some((p) => p.isVerified)).toBe(true)
  })

  it('keeps current position, experiences and the job summary consistent', () => {
    let hidden = 0
    let none = 0
    for (const p of net.profiles) {
      const current = p.experiences.filter((e) => e.current)
      const ongoing = p.experiences.filter((e) => e.ongoing)
      expect(p.experiences.length).toBeGreaterThan(0)
      expect(p.experiences.length).toBeLessThanOrEqual(8)
      for (const e of current) expect(e.ongoing).toBe(true)
      for (const e of p.experiences) {
        // A position is dated at least by its end, but for an ongoing side role listed without dates.
        if (e.timePeriod === undefined) expect([e.ongoing, e.current, e.dateRange]).toEqual([true, false, ''])
        else expect(e.ongoing).toBe(e.timePeriod.endDate === null)
        if (e.timePeriod === undefined || !('startDate' in e.timePeriod)) expect(e.totalDuration).toBeUndefined()
        else expect(e.totalDuration).toMatch(/^(\d+ yrs?)?( ?\d+ mos?)?$/)
        if (e.ongoing && e.timePeriod !== undefined) expect(e.dateRange).toMatch(/ - Present$/)
      }
      if (p.currentPosition === null) {
        expect(current).toHaveLength(0)
        expect([p.jobTitle, p.companyName, p.companyPublicId, p.companyLinkedinUrl]).toEqual(['', '', '', ''])
        if (ongoing.length > 0) hidden++
        else none++
      } else {
        expect(current).toHaveLength(1)
        const e = current[0] as Profile['experiences'][number]
        expect(p.currentPosition.positionUrn).toBe(e.positionUrn)
        expect(p.currentPosition.companyId).toBe(e.company.companyId)
        expect(p.currentPosition.title).toBe(e.jobTitle)
        expect(p.jobTitle).toBe(e.jobTitle)
        expect(p.companyName).toBe(e.company.name)
        expect(p.companyPublicId).toBe(p.currentPosition.publicIdentifier)
        expect(p.companyLinkedinUrl).toBe(e.company.url)
      }
      // Most recent first: ongoing entries, then by end date.
      const ends = p.experiences.map((e) => (e.timePeriod === undefined || e.timePeriod.endDate === null ? Infinity : e.timePeriod.endDate.year))
      for (let i = 1; i < ends.length; i++) expect(ends[i - 1] as number).toBeGreaterThanOrEqual(ends[i] as number)
    }
    expect(hidden).toBeGreaterThan(0)
    expect(none).toBeGreaterThan(0)
  })

  it('has month, year-only, start-less and undated entries; a start-less one carries its end alone', () => {
    const entries = net.profiles.flatMap((p) => p.experiences)
    const periods = entries.flatMap((e) => (e.timePeriod === undefined ? [] : [e.timePeriod]))
    // Only a few side roles go undated.
    expect(entries.length - periods.length).toBeGreaterThan(0)
    expect(entries.length - periods.length).toBeLessThan(entries.length / 50)
    const educations = net.profiles.flatMap((p) => p.educations)
    const undatedSchools = educations.filter((e) => e.timePeriod === undefined)
    expect(undatedSchools.length).toBeGreaterThan(0)
    for (const e of undatedSchools) expect([e.dateRange, e.current]).toEqual(['', false])
    const started = periods.flatMap((t) => ('startDate' in t ? [t.startDate] : []))
    expect(started.some((d) => d.month !== undefined)).toBe(true)
    expect(started.some((d) => d.month === undefined)).toBe(true)
    // startDate is never null: an entry dated only by its end is {endDate} and nothing else.
    for (const d of started) expect(d).not.toBeNull()
    const endOnly = entries.filter((e) => e.timePeriod !== undefined && !('startDate' in e.timePeriod))
    expect(endOnly.length).toBeGreaterThan(0)
    for (const e of endOnly) {
      expect(Object.keys(e.timePeriod ?? {})).toEqual(['endDate'])
      expect(e.timePeriod?.endDate).not.toBeNull()
      expect(e.ongoing).toBe(false)
      expect(e.totalDuration).toBeUndefined()
      expect(e.dateRange).not.toContain(' - ')
    }
  })

  it('omits or fills the optional signals', () => {
    const has = (key: keyof Profile) => net.profiles.filter((p) => key in p).length
    for (const key of ['openToWork', 'openProfile', 'recommendations', 'pronoun'] as const) {
      expect(has(key), key).toBeGreaterThan(0)
      expect(has(key), key).toBeLessThan(net.profiles.length)
    }
    expect(net.profiles.some((p) => p.recommendations?.length === 0)).toBe(true)
    expect(net.profiles.some((p) => (p.recommendations?.length ?? 0) > 0)).toBe(true)
    expect(net.profiles.some((p) => p.openToWork === true) || net.profiles.some((p) => p.openToWork === false)).toBe(true)
  })

  it('links the current school to an education at a school page', () => {
    const withSchool = net.profiles.filter((p) => p.currentSchool !== null)
    expect(withSchool.length).toBeGreaterThan(0)
    expect(net.profiles.some((p) => p.currentSchool === null)).toBe(true)
    for (const p of withSchool) {
      const edu = p.educations.find((e) => e.educationUrn === p.currentSchool?.educationUrn)
      expect(edu).toBeDefined()
      expect(p.currentSchool?.url).toBe(edu?.schoolUrl)
      expect(p.currentSchool?.name).toBe(edu?.name)
    }
  })

  it('has well-formed skills, languages, certifications and causes', () => {
    for (const p of net.profiles) {
      for (const c of p.certifications) {
        expect(c.issuedAt).toMatch(/^\d{4}-\d{2}$/)
        expect(c.authority).toBe(c.issuer)
        expect(`${c.timePeriod.startDate.year}-${String(c.timePeriod.startDate.month).padStart(2, '0')}`).toBe(c.issuedAt)
      }
      for (const cause of p.volunteerCauses) expect(cause).toMatch(/^[A-Z_]+$/)
      expect(p.countryCode).toMatch(/^[A-Z]{2}$/)
      expect(p.geoUrn).toMatch(/^urn:li:fsd_geo:\d+$/)
    }
    expect(net.profiles.some((p) => p.skills.length > 0)).toBe(true)
    expect(net.profiles.some((p) => p.certifications.length > 0)).toBe(true)
    expect(net.profiles.some((p) => p.languages.length > 0)).toBe(true)
  })
})

describe('company edge cases', () => {
  it('has schools and showcase pages', () => {
    const schools = net.companies.filter((c) => c.pageType === 'school')
    expect(schools.length).toBeGreaterThan(0)
    for (const s of schools) expect(s.companyTypeCode).toBe('EDUCATIONAL')
    expect(net.companies.some((c) => c.pageType === 'showcase')).toBe(true)
  })

  it('has pages missing each optional field', () => {
    for (const key of ['name', 'publicIdentifier', 'websiteUrl', 'domain', 'headquarter', 'logoUrl', 'coverImageUrl', 'description'] as const) {
      const missing = net.companies.filter((c) => c[key] === undefined).length
      expect(missing, key).toBeGreaterThan(0)
      expect(missing, key).toBeLessThan(net.companies.length / 2)
    }
  })

  it('shows the top size class (10,001 and more) without an end, every other class with both ends', () => {
    // Companies come first in the stream, so a bigger network's pages cost nothing else.
    const companies: CompanyRecord[] = []
    for (const r of generateNetwork({ ...OPTS, size: 400 })) {
      if (r.kind !== 'company') break
      companies.push(r.data)
    }
    const open = companies.filter((c) => c.employeeCountRange.end === undefined)
    expect(open.length).toBeGreaterThan(0)
    expect(open.length).toBeLessThan(companies.length)
    for (const c of open) {
      expect(c.employeeCountRange).toEqual({ start: 10_001 })
      expect(c.employeeCount).toBeGreaterThanOrEqual(10_001)
    }
    for (const c of companies) if (c.employeeCountRange.start !== 10_001) expect(c.employeeCountRange.end).toBeGreaterThan(c.employeeCountRange.start)
  })

  it('keeps fields consistent', () => {
    for (const c of net.companies) {
      expect(c.industryV1).not.toBe(c.industry)
      expect(c.employeeCount).toBeGreaterThanOrEqual(c.employeeCountRange.start)
      // Only the top size class (10,001 and more) is open-ended.
      const end = c.employeeCountRange.end
      if (end === undefined) expect(Object.keys(c.employeeCountRange)).toEqual(['start'])
      if (end === undefined) expect(c.employeeCountRange.start).toBe(10_001)
      else expect(c.employeeCount).toBeLessThanOrEqual(end)
      if (c.websiteUrl !== undefined) expect(c.domain).toBe(new URL(c.websiteUrl).hostname.replace(/^www\./, ''))
      else expect(c.domain).toBeUndefined()
      if (c.headquarter) expect(c.locations.filter((l) => l.headquarter)).toHaveLength(1)
    }
  })
})

describe('article edge cases', () => {
  it('has articles with a null publishedAt, a null cover and a null read time', () => {
    expect(net.articles.some((a) => a.publishedAt === null)).toBe(true)
    expect(net.articles.some((a) => a.publishedAt !== null)).toBe(true)
    expect(net.articles.some((a) => a.coverImageUrl === null)).toBe(true)
    expect(net.articles.some((a) => a.readTimeMinutes === null)).toBe(true)
    for (const a of net.articles) {
      expect(a.description.length).toBeLessThanOrEqual(150)
      expect(a.description.length).toBeGreaterThan(60)
      if (a.readTimeMinutes === null) expect(a.subtitle).not.toContain('min read')
      else expect(a.subtitle.endsWith(` · ${a.readTimeMinutes} min read`)).toBe(true)
    }
  })
})
