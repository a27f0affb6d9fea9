/**
 * The bulk path of a content batch on PostgreSQL, its judging half: pure, no database. What the
 * database holds of every key the batch touches is read first (pg-bulk-write.ts reads what
 * `batchKeys` lists); then each row is judged in order against that state as the earlier rows of the
 * batch leave it, with the row path's checks, order and reasons (pg-content-store.ts), and what the
 * accepted rows leave in each table is gathered so that one statement per table writes it.
 *
 * What a table is left holding is each key's last accepted write (every write is an upsert of whole
 * rows), so only that one is written, where the first write of the key stood in the batch: a post
 * reaction keeps the place of its first write (its seq) as the row path's upserts do. A post's
 * documents hold its author's card as it stands when the post is written, and any later change of that
 * card in the batch puts the new card into them here, as the row path's rewrite of the author's posts
 * would; the author's posts already stored get the last such card from one rewrite (restamps).
 *
 * Keys are compared as PostgreSQL stores them: a lone surrogate arrives there as U+FFFD.
 */
import type {
  ArticleRow,
  AuthorRef,
  CommentRow,
  CompanyRow,
  ContentRow,
  PostCard,
  PostReactionRow,
  PostRow,
  ProfileReactionRow,
  ProfileRow,
  WriteOutcome,
} from '../../ports/content-store.ts'
import { isStorableId } from '../../domain/content/ids.ts'
import { authorProblem, commentProblem, idProblem } from '../../domain/content/ingest-rules.ts'
import { docsWithCard, sameCard, type PostDocs } from '../../domain/content/post-card.ts'
import { wellFormed } from '../../domain/code-points.ts'
import { indexText, type IndexedText } from './pg-search-text.ts'

/** A text key as PostgreSQL stores it. */
const stored = (s: string): string => wellFormed(s)
const storedCard = (c: PostCard): PostCard => wellFormed(c)

export interface StoredProfile {
  id: string
  slug: string
  memberId: string
  card: PostCard
}
export interface StoredCompany {
  id: string
  slug: string | null
  card: PostCard
}
export interface StoredPost {
  id: string
  shareKind: string
  shareId: string
  /** Tokens of its indexed text; null for a repost without commentary. */
  searchLen: number | null
}
export interface StoredComment {
  id: string
  postId: string
  parentId: string | null
}

/** What the database holds of a batch's keys (batchKeys); a key it does not hold is absent. */
export interface StoredState {
  /** The profiles the batch writes, those authoring its posts, and the owners of its slugs and member ids. */
  profiles: readonly StoredProfile[]
  /** Other profiles the batch names that exist. */
  linkedProfiles: readonly string[]
  companies: readonly StoredCompany[]
  linkedCompanies: readonly string[]
  /** The posts the batch writes (read under their lock). */
  posts: readonly StoredPost[]
  /** The posts holding a share the batch's posts take. */
  shareOwners: readonly Omit<StoredPost, 'searchLen'>[]
  /** Posts the batch links to (comments, reactions) that exist. */
  linkedPosts: readonly string[]
  /** The comments the batch writes or replies to. */
  comments: readonly StoredComment[]
  /** How many replies each comment the batch writes has. */
  replyCounts: ReadonlyMap<string, number>
}

/** The keys whose stored state judging a batch needs, as PostgreSQL stores them, sorted. */
export interface BatchKeys {
  /** Profiles the batch writes: locked, their card compared as the row path does. */
  writtenProfiles: string[]
  /** Other profiles that author a post of the batch: share-locked, as the row path reads the card. */
  authorProfiles: string[]
  /** Every other profile the batch names, unlocked. */
  linkedProfiles: string[]
  profileSlugs: string[]
  memberIds: string[]
  writtenCompanies: string[]
  authorCompanies: string[]
  linkedCompanies: string[]
  companySlugs: string[]
  /** Posts the batch writes (storable ids): locked. */
  writtenPosts: string[]
  /** Shares the batch's posts take, as [kind, id] pairs. */
  shareKinds: string[]
  shareIds: string[]
  /** Posts comments and reactions link to. */
  linkedPosts: string[]
  /** Comments the batch writes or replies to. */
  comments: string[]
  /** Comments the batch writes (their replies are counted). */
  writtenComments: string[]
}

const sorted = (s: Set<string>): string[] => [...s].sort()
const minus = (s: Set<string>, ...others: Set<string>[]): string[] => sorted(new Set([...s].filter((k) => !others.some((o) => o.has(k)))))

export function batchKeys(rows: readonly ContentRow[]): BatchKeys {
  const profiles = { written: new Set<string>(), author: new Set<string>(), linked: new Set<string>(), slugs: new Set<string>(), members: new Set<string>() }
  const companies = { written: new Set<string>(), author: new Set<string>(), linked: new Set<string>(), slugs: new Set<string>() }
  const writtenPosts = new Set<string>()
  const linkedPosts = new Set<string>()
  const shares = new Map<string, [string, string]>()
  const comments = new Set<string>()
  const writtenComments = new Set<string>()
  const named = (ref: AuthorRef, as: 'author' | 'linked'): void => {
    if (ref.kind === 'person') profiles[as].add(stored(ref.id))
    else if (ref.kind === 'company') companies[as].add(stored(ref.id))
  }
  const linkPost = (id: string): void => {
    if (isStorableId(id)) linkedPosts.add(id)
  }
  for (const { kind, row } of rows as readonly { kind: string; row: never }[]) {
    switch (kind) {
      case 'profile': {
        const r = row as ProfileRow
        profiles.written.add(stored(r.profileId))
        profiles.slugs.add(stored(r.slug.toLowerCase()))
        profiles.members.add(stored(r.memberId))
        break
      }
      case 'company': {
        const r = row as CompanyRow
        companies.written.add(stored(r.companyId))
        if (r.slug !== null) companies.slugs.add(stored(r.slug.toLowerCase()))
        break
      }
      case 'post': {
        const r = row as PostRow
        if (isStorableId(r.id)) writtenPosts.add(r.id)
        named(r.author, 'author')
        const share: [string, string] = [stored(r.shareKind), stored(r.shareId)]
        shares.set(JSON.stringify(share), share)
        break
      }
      case 'article':
        profiles.linked.add(stored((row as ArticleRow).authorProfileId))
        break
      case 'comment': {
        const r = row as CommentRow
        if (isStorableId(r.commentId)) {
          comments.add(r.commentId)
          writtenComments.add(r.commentId)
        }
        if (r.parentId !== null && isStorableId(r.parentId)) comments.add(r.parentId)
        linkPost(r.postId)
        named(r.author, 'linked')
        break
      }
      case 'postReaction': {
        const r = row as PostReactionRow
        linkPost(r.postId)
        named(r.actor, 'linked')
        break
      }
      case 'profileReaction': {
        const r = row as ProfileReactionRow
        linkPost(r.postId)
        profiles.linked.add(stored(r.profileId))
        break
      }
    }
  }
  const shareList = [...shares.values()]
  return {
    writtenProfiles: sorted(profiles.written),
    authorProfiles: minus(profiles.author, profiles.written),
    linkedProfiles: minus(profiles.linked, profiles.written, profiles.author),
    profileSlugs: sorted(profiles.slugs),
    memberIds: sorted(profiles.members),
    writtenCompanies: sorted(companies.written),
    authorCompanies: minus(companies.author, companies.written),
    linkedCompanies: minus(companies.linked, companies.written, companies.author),
    companySlugs: sorted(companies.slugs),
    writtenPosts: sorted(writtenPosts),
    shareKinds: shareList.map((s) => s[0]),
    shareIds: shareList.map((s) => s[1]),
    linkedPosts: minus(linkedPosts, writtenPosts),
    comments: sorted(comments),
    writtenComments: sorted(writtenComments),
  }
}

/** How the batch moves the search index's totals (BM25's document count and length). */
export interface Totals {
  docs: number
  tokens: number
}

/** Moves `totals` for a post whose indexed length goes from `before` to `after` (null: not indexed). */
export function replaceDoc(totals: Totals, before: number | null, after: number | null): void {
  if (before !== null) {
    totals.docs -= 1
    totals.tokens -= before
  }
  if (after !== null) {
    totals.docs += 1
    totals.tokens += after
  }
}

export interface PlannedProfile {
  row: ProfileRow
  /** The lower-cased slug stored. */
  slug: string
  titleVector: string | null
}
export interface PlannedCompany {
  row: CompanyRow
  slug: string | null
}
export interface PlannedPost {
  row: PostRow
  /** The four documents with the author's card as the batch leaves it. */
  docs: PostDocs
  indexed: IndexedText | null
  /** Whether the post was stored before the batch (and so is locked): the upsert may replace it. */
  existed: boolean
}
export interface PlannedComment {
  row: CommentRow
  createdMs: number
}

export interface BatchPlan {
  outcomes: WriteOutcome[]
  profiles: PlannedProfile[]
  companies: PlannedCompany[]
  /** Authors whose card the batch changed, with their last card, for their posts stored before it. */
  restamps: { author: AuthorRef; card: PostCard }[]
  posts: PlannedPost[]
  articles: ArticleRow[]
  comments: PlannedComment[]
  /** In the order of each reaction's first write. */
  postReactions: PostReactionRow[]
  profileReactions: ProfileReactionRow[]
  totals: Totals
}

/** A row the rules refuse, with the reason for the caller. */
class Refused extends Error {}
const refuse = (reason: string): never => {
  throw new Refused(reason)
}
const requireId = (what: string, id: string): void => {
  const problem = idProblem(what, id)
  if (problem !== null) refuse(problem)
}
const refuseAuthor = (ref: AuthorRef, exists: boolean | null): void => {
  const problem = authorProblem(ref, exists)
  if (problem !== null) refuse(problem)
}

const authorKey = (ref: AuthorRef): string => `${ref.kind}:${stored(ref.id)}`
const shareKey = (kind: string, id: string): string => JSON.stringify([stored(kind), stored(id)])

/**
 * The index entry of each post of `rows` (null for a repost without commentary), by row: the costly
 * part of judging that needs nothing stored, so it can run while the state is read.
 */
export function indexPosts(rows: readonly ContentRow[]): (IndexedText | null | undefined)[] {
  return rows.map((row) => (row.kind !== 'post' ? undefined : row.row.isRepost ? null : indexText(row.row.text)))
}

/**
 * Judges `rows` in order against `state` and gathers what the accepted ones leave in each table;
 * `indexed` is indexPosts(rows).
 */
export function planBatch(rows: readonly ContentRow[], state: StoredState, indexed: readonly (IndexedText | null | undefined)[] = indexPosts(rows)): BatchPlan {
  // The tables as the rows judged so far leave them (only the keys this batch touches).
  const profiles = new Map<string, { slug: string; memberId: string; card: PostCard }>()
  const linkedProfiles = new Set(state.linkedProfiles)
  const profileBySlug = new Map<string, string>()
  const profileByMember = new Map<string, string>()
  for (const p of state.profiles) {
    profiles.set(p.id, p)
    profileBySlug.set(p.slug, p.id)
    profileByMember.set(p.memberId, p.id)
  }
  const companies = new Map<string, { slug: string | null; card: PostCard }>()
  const linkedCompanies = new Set(state.linkedCompanies)
  const companyBySlug = new Map<string, string>()
  for (const c of state.companies) {
    companies.set(c.id, c)
    if (c.slug !== null) companyBySlug.set(c.slug, c.id)
  }
  const posts = new Map<string, { share: string; searchLen: number | null }>()
  const postByShare = new Map<string, string>()
  const linkedPosts = new Set(state.linkedPosts)
  for (const p of state.shareOwners) {
    postByShare.set(shareKey(p.shareKind, p.shareId), p.id)
    linkedPosts.add(p.id)
  }
  for (const p of state.posts) {
    const share = shareKey(p.shareKind, p.shareId)
    posts.set(p.id, { share, searchLen: p.searchLen })
    postByShare.set(share, p.id)
  }
  const storedPosts = new Set(state.posts.map((p) => p.id))
  const comments = new Map<string, { postId: string; parentId: string | null }>()
  for (const c of state.comments) comments.set(c.id, c)
  const replyCounts = new Map(state.replyCounts)

  const plannedProfiles = new Map<string, PlannedProfile>()
  const plannedCompanies = new Map<string, PlannedCompany>()
  const plannedPosts = new Map<string, PlannedPost & { author: string }>()
  /** The batch's posts by author, so a later change of the author's card reaches them. */
  const postsByAuthor = new Map<string, Set<string>>()
  const restamps = new Map<string, { author: AuthorRef; card: PostCard }>()
  const articles = new Map<string, ArticleRow>()
  const plannedComments = new Map<string, PlannedComment>()
  const postReactions = new Map<string, PostReactionRow>()
  const profileReactions = new Map<string, ProfileReactionRow>()
  const totals: Totals = { docs: 0, tokens: 0 }

  const postExists = (id: string): boolean => posts.has(id) || linkedPosts.has(id)
  const profileExists = (id: string): boolean => profiles.has(id) || linkedProfiles.has(id)
  const authorExists = (ref: AuthorRef): boolean | null =>
    ref.kind === 'person'
      ? profileExists(stored(ref.id))
      : ref.kind === 'company'
        ? companies.has(stored(ref.id)) || linkedCompanies.has(stored(ref.id))
        : null
  const cardOf = (ref: AuthorRef): PostCard => (ref.kind === 'person' ? profiles.get(stored(ref.id)) : companies.get(stored(ref.id)))!.card

  /** An author's card changed: the batch's posts by it and those stored before take the new one. */
  const restamp = (author: AuthorRef, card: PostCard): void => {
    const key = authorKey(author)
    restamps.set(key, { author, card })
    for (const id of postsByAuthor.get(key) ?? []) {
      const planned = plannedPosts.get(id)!
      planned.docs = docsWithCard(planned.docs, card)
    }
  }

  const writeProfile = (r: ProfileRow): void => {
    const slug = r.slug.toLowerCase()
    const slugOwner = profileBySlug.get(stored(slug))
    if (slugOwner !== undefined && slugOwner !== r.profileId) refuse(`publicIdentifier '${slug}' is already used by profile ${slugOwner}`)
    const memberOwner = profileByMember.get(stored(r.memberId))
    if (memberOwner !== undefined && memberOwner !== r.profileId) refuse(`memberId '${r.memberId}' is already used by profile ${memberOwner}`)
    const id = stored(r.profileId)
    const before = profiles.get(id)
    if (before !== undefined) {
      profileBySlug.delete(before.slug)
      profileByMember.delete(before.memberId)
    }
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.pictureUrl }
    profiles.set(id, { slug: stored(slug), memberId: stored(r.memberId), card: storedCard(card) })
    profileBySlug.set(stored(slug), id)
    profileByMember.set(stored(r.memberId), id)
    plannedProfiles.set(id, { row: r, slug, titleVector: r.jobTitle === null ? null : indexText(r.jobTitle).vector })
    if (before !== undefined && !sameCard(before.card, card)) restamp({ kind: 'person', id }, card)
  }

  const writeCompany = (r: CompanyRow): void => {
    const slug = r.slug === null ? null : r.slug.toLowerCase()
    const owner = slug === null ? undefined : companyBySlug.get(stored(slug))
    if (slug !== null && owner !== undefined && owner !== r.companyId) refuse(`publicIdentifier '${slug}' is already used by company ${owner}`)
    const id = stored(r.companyId)
    const before = companies.get(id)
    if (before !== undefined && before.slug !== null) companyBySlug.delete(before.slug)
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.logoUrl }
    companies.set(id, { slug: slug === null ? null : stored(slug), card: storedCard(card) })
    if (slug !== null) companyBySlug.set(stored(slug), id)
    plannedCompanies.set(id, { row: r, slug })
    if (before !== undefined && !sameCard(before.card, card)) restamp({ kind: 'company', id }, card)
  }

  // A repost without commentary is never returned, so it is not indexed (as in SQLite).
  const writePost = (r: PostRow, entry: IndexedText | null): void => {
    requireId('post id', r.id)
    refuseAuthor(r.author, authorExists(r.author))
    const card = cardOf(r.author)
    const docs: PostDocs = sameCard(card, r.card) ? r : docsWithCard(r, card)
    const share = shareKey(r.shareKind, r.shareId)
    const owner = postByShare.get(share)
    if (owner !== undefined && owner !== r.id) refuse(`${r.shareKind} ${r.shareId} is already used by post ${owner}`)
    const before = posts.get(r.id)
    if (before !== undefined) postByShare.delete(before.share)
    replaceDoc(totals, before?.searchLen ?? null, entry?.length ?? null)
    posts.set(r.id, { share, searchLen: entry?.length ?? null })
    postByShare.set(share, r.id)
    const author = authorKey(r.author)
    const earlier = plannedPosts.get(r.id)
    if (earlier !== undefined) postsByAuthor.get(earlier.author)?.delete(r.id)
    const mine = postsByAuthor.get(author)
    if (mine === undefined) postsByAuthor.set(author, new Set([r.id]))
    else mine.add(r.id)
    plannedPosts.set(r.id, { row: r, docs, indexed: entry, existed: storedPosts.has(r.id), author })
  }

  const writeArticle = (r: ArticleRow): void => {
    requireId('article id', r.articleId)
    if (!profileExists(stored(r.authorProfileId))) refuse(`profile ${r.authorProfileId} does not exist`)
    articles.set(r.articleId, r)
  }

  const writeComment = (r: CommentRow): void => {
    const known = (id: string | null) => (id !== null && isStorableId(id) ? comments.get(id) : undefined)
    const existing = known(r.commentId)
    const parent = known(r.parentId)
    const problem = commentProblem(r, {
      postExists: isStorableId(r.postId) && postExists(r.postId),
      authorExists: authorExists(r.author),
      existingPost: existing?.postId ?? null,
      hasReplies: (replyCounts.get(r.commentId) ?? 0) > 0,
      parent: parent === undefined ? null : { postId: parent.postId, topLevel: parent.parentId === null },
    })
    if (problem !== null) refuse(problem)
    if (existing !== undefined && existing.parentId !== null) replyCounts.set(existing.parentId, (replyCounts.get(existing.parentId) ?? 0) - 1)
    if (r.parentId !== null) replyCounts.set(r.parentId, (replyCounts.get(r.parentId) ?? 0) + 1)
    comments.set(r.commentId, { postId: r.postId, parentId: r.parentId })
    plannedComments.set(r.commentId, { row: r, createdMs: Date.parse(r.createdAt) })
  }

  const writePostReaction = (r: PostReactionRow): void => {
    requireId('post id', r.postId)
    if (!postExists(r.postId)) refuse(`post ${r.postId} does not exist`)
    refuseAuthor(r.actor, authorExists(r.actor))
    // A repeat keeps the first write's place in the map, as an upsert keeps the reaction's seq.
    postReactions.set(`${r.postId} ${r.actor.kind} ${stored(r.actor.id)}`, r)
  }

  const writeProfileReaction = (r: ProfileReactionRow): void => {
    requireId('post id', r.postId)
    if (!postExists(r.postId)) refuse(`post ${r.postId} does not exist`)
    if (!profileExists(stored(r.profileId))) refuse(`profile ${r.profileId} does not exist`)
    if (!Number.isSafeInteger(r.reactedAt)) refuse(`reactedAt must be a whole number of Unix ms (got ${r.reactedAt})`)
    profileReactions.set(`${stored(r.profileId)} ${r.postId}`, r)
  }

  const writeRow = (row: ContentRow, i: number): void => {
    switch (row.kind) {
      case 'profile':
        return writeProfile(row.row)
      case 'company':
        return writeCompany(row.row)
      case 'post':
        return writePost(row.row, indexed[i] as IndexedText | null)
      case 'article':
        return writeArticle(row.row)
      case 'comment':
        return writeComment(row.row)
      case 'postReaction':
        return writePostReaction(row.row)
      case 'profileReaction':
        return writeProfileReaction(row.row)
      default:
        return refuse(`unknown row kind "${String((row as { kind: unknown }).kind)}"`)
    }
  }

  // Every check of a row comes before any change it makes to the state above, so a refused row leaves none.
  const outcomes = rows.map((row, i): WriteOutcome => {
    try {
      writeRow(row, i)
      return { ok: true }
    } catch (e) {
      if (e instanceof Refused) return { ok: false, reason: e.message }
      throw e
    }
  })
  return {
    outcomes,
    profiles: [...plannedProfiles.values()],
    companies: [...plannedCompanies.values()],
    restamps: [...restamps.values()],
    posts: [...plannedPosts.values()].map(({ author: _, ...p }) => p),
    articles: [...articles.values()],
    comments: [...plannedComments.values()],
    postReactions: [...postReactions.values()],
    profileReactions: [...profileReactions.values()],
    totals,
  }
}
