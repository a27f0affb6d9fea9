/**
 * The words of posts and comments: professional templates filled from topic vocabularies, the
 * author's job and the companies of the network. A template that names another company of the
 * network records it, so `mentionsCompanies` always matches names that appear in the text.
 */
import type { CompanyInfo } from './company-factory.ts'
import type { Rng } from './prng.ts'
import { weighted } from './prng.ts'
import { groupDigits, slugify } from './text.ts'
import { JOB_FUNCTIONS, type JobFunction } from './vocabulary/careers.vocabulary.ts'
import {
  ACHIEVEMENTS,
  COMMENTS,
  COMPANY_CULTURE,
  EMOJI,
  GENERAL_LESSONS,
  HIRING_PERKS,
  MILESTONES,
  OPENERS_THOUGHT,
  PRODUCT_BENEFITS,
  PRODUCT_NOUNS,
  REPLIES,
  capital,
  type Topic,
} from './vocabulary/topics.vocabulary.ts'

export type PostCategory =
  | 'thought'
  | 'lessons'
  | 'event'
  | 'hiring'
  | 'newJob'
  | 'milestone'
  | 'launch'
  | 'learning'
  | 'shoutout'
  | 'question'
  | 'culture'
  | 'customerStory'
  | 'document'
  | 'article'
  | 'video'
  | 'live'
  | 'reshare'

/** Who is writing, as the templates need it. */
export interface Voice {
  readonly kind: 'person' | 'company'
  readonly firstName: string
  /** Person: full name. Company: page name. */
  readonly name: string
  readonly title: string
  /** The author's company (a person's current or last employer, or the page itself). */
  readonly company: CompanyInfo
  readonly city: string
  readonly fn: JobFunction
  readonly certifications: readonly (readonly [string, string])[]
  /** Whole years the author has held the job at the time of the post. */
  readonly tenureYears: number
  /** The employer before the current job (a member who just moved). */
  readonly previousCompany: CompanyInfo | undefined
}

export interface TextDeps {
  /** Named company pages that posts may mention (the author's own page is skipped). */
  readonly mentionable: readonly CompanyInfo[]
  /** A random member's name (for quotes and live guests). */
  readonly someone: (rng: Rng) => string
}

export interface ComposedText {
  content: string
  mentions: CompanyInfo[]
  jobPost: boolean
}

const PERSON_CATEGORIES = weighted<PostCategory>([
  ['thought', 22], ['lessons', 12], ['event', 10], ['hiring', 8], ['newJob', 5], ['milestone', 5],
  ['launch', 8], ['learning', 5], ['shoutout', 8], ['question', 9],
])
const COMPANY_CATEGORIES = weighted<PostCategory>([
  ['launch', 20], ['hiring', 18], ['event', 14], ['culture', 14], ['milestone', 10], ['customerStory', 14], ['thought', 10],
])
/** Schools, public bodies and charities do not launch products or publish customer stories. */
const INSTITUTION_CATEGORIES = weighted<PostCategory>([
  ['event', 25], ['culture', 20], ['milestone', 15], ['hiring', 20], ['thought', 20],
])
const IMAGE_FRIENDLY: ReadonlySet<PostCategory> = new Set(['event', 'launch', 'newJob', 'milestone', 'shoutout', 'culture', 'customerStory', 'hiring', 'learning'])

export function isInstitution(page: CompanyInfo): boolean {
  const cluster = page.industry.cluster
  return page.pageType === 'school' || cluster === 'government' || cluster === 'nonprofit'
}

export function pickCategory(rng: Rng, voice: Voice, postType: string): PostCategory {
  if (postType === 'document') return 'document'
  if (postType === 'article') return 'article'
  if (postType === 'linkedinVideo') return rng.chance(0.15) ? 'live' : 'video'
  const list = voice.kind === 'person' ? PERSON_CATEGORIES : isInstitution(voice.company) ? INSTITUTION_CATEGORIES : COMPANY_CATEGORIES
  for (let attempt = 0; attempt < 4; attempt++) {
    const category = list.pick(rng)
    if (postType !== 'image' || IMAGE_FRIENDLY.has(category)) return category
  }
  return 'event'
}

const CATEGORY_TAGS: Partial<Record<PostCategory, readonly string[]>> = {
  hiring: ['#hiring', '#careers', '#jobs'],
  newJob: ['#newjob', '#careers'],
  launch: ['#productlaunch', '#innovation'],
  learning: ['#learning', '#certification', '#growth'],
  event: ['#events', '#networking'],
  lessons: ['#lessonslearned', '#leadership'],
  milestone: ['#milestone', '#gratitude'],
  culture: ['#culture', '#teamwork'],
  shoutout: ['#teamwork', '#proud'],
  live: ['#live'],
}

function hashtags(rng: Rng, category: PostCategory, topic: Topic, extra: readonly string[] = []): string {
  const required = category === 'hiring' ? ['#hiring'] : []
  if (required.length === 0 && extra.length === 0 && rng.chance(0.15)) return ''
  const pool = [...(CATEGORY_TAGS[category] ?? []), ...topic.tags]
  const picked = new Set<string>([...required, ...extra, ...rng.sample(pool, rng.range(1, 3))])
  return [...picked].join(' ')
}

/** Picks one alternative and builds only that one: building records mentions and draws numbers. */
const oneOf = (rng: Rng, alternatives: readonly (() => string)[]): string => (rng.pick(alternatives) as () => string)()

const join = (...blocks: string[]): string => blocks.filter((b) => b !== '').join('\n\n')
const emoji = (rng: Rng): string => (rng.chance(0.6) ? ` ${rng.pick(EMOJI)}` : '')

function productName(rng: Rng, company: CompanyInfo): string {
  const base = (company.name ?? 'Our').split(' ')[0] as string
  return `${base} ${rng.pick(PRODUCT_NOUNS)}`
}

function eventName(rng: Rng, topic: Topic, city: string, year: number): string {
  return rng.chance(0.6) ? `${rng.pick(topic.events)} ${year}` : `${city} ${topic.label} Summit`
}

function roleFor(rng: Rng, fn: JobFunction): string {
  return rng.pick(fn.titles[rng.range(1, 3)] as readonly string[])
}

/** Text of an original post. */
export function composePost(
  rng: Rng,
  deps: TextDeps,
  p: { voice: Voice; category: PostCategory; topic: Topic; subject: string; year: number; articleLink: { title: string; url: string } | null },
): ComposedText {
  const { voice: v, topic, subject, category } = p
  const mentions: CompanyInfo[] = []
  const mention = (which?: CompanyInfo): string => {
    let c = which ?? rng.pick(deps.mentionable)
    for (let attempt = 0; attempt < 5 && c === v.company && which === undefined; attempt++) c = rng.pick(deps.mentionable)
    if (!mentions.includes(c)) mentions.push(c)
    return c.name as string
  }
  const company = v.company.name as string
  // Two different opinions per post at most, so a post never repeats itself.
  const [firstInsight, secondInsight] = rng.sample(topic.insights, 2) as [string, string]
  const insight = (second = false): string => (second ? secondInsight : firstInsight)
  let jobPost = false
  let content: string
  switch (category) {
    case 'thought':
      content = v.kind === 'company'
        ? join(
            `${rng.pick(OPENERS_THOUGHT)} ${insight()}.`,
            `Our latest ${isInstitution(v.company) ? 'study' : 'report'} on ${subject} looks at ${rng.range(40, 400)} organisations and what sets the leaders apart. ${rng.chance(0.3) ? `Thanks to ${mention()} for contributing data.` : ''}`.trim(),
            hashtags(rng, category, topic),
          )
        : join(
            `${rng.pick(OPENERS_THOUGHT)} ${insight()}.`,
            oneOf(rng, [
              () => `I have seen this play out at ${rng.range(3, 6)} companies now, and the pattern is always the same: the teams that get ${subject} right treat it as a habit, not a project.`,
              () => `When we started working on ${subject} at ${company}, we got this wrong for months. What changed it was a simple rule: ${insight(true)}.`,
              () => `It sounds obvious written down. In practice it is the first thing to go when deadlines get tight, and ${subject} is where it hurts most.`,
              () => `We talked about ${subject} with peers from ${mention()} last week and everyone had a version of the same story.`,
            ]),
            rng.pick(topic.questions),
            hashtags(rng, category, topic),
          )
      break
    case 'lessons': {
      const n = rng.range(3, 5)
      const items = [...new Set([...rng.sample(topic.insights, 2).map((s) => `${capital(s)}.`), ...rng.sample(GENERAL_LESSONS, n)])].slice(0, n)
      content = join(
        `${n} lessons from ${rng.range(2, 15)} years of working on ${subject}:`,
        items.map((s, k) => `${k + 1}. ${s}`).join('\n'),
        rng.pick(['What would you add?', 'Which one would you argue with?', 'Number 2 took me the longest to learn.']),
        hashtags(rng, category, topic),
      )
      break
    }
    case 'event': {
      const event = eventName(rng, topic, v.city, p.year)
      const takeaways = rng.sample(topic.insights, 3).map((s) => `• ${capital(s)}`).join('\n')
      content = v.kind === 'company'
        ? join(
            `Thank you to everyone who visited us at ${event}!${emoji(rng)}`,
            `Our favourite conversations were about ${subject}. Three things we heard again and again:\n${takeaways}`,
            rng.chance(0.3) ? `Special thanks to ${mention()} for co-hosting the evening reception.` : 'See you next year!',
            hashtags(rng, category, topic),
          )
        : join(
            rng.pick([
              `Back from ${event} in ${v.city} and my notebook is full.`,
              `What a week at ${event}!${emoji(rng)}`,
              `Had a great time speaking at ${event} about ${subject}.`,
              `Three days, dozens of sessions and far too much coffee at ${event}.`,
            ]),
            `My top takeaways:\n${takeaways}`,
            rng.chance(0.25) ? `Thanks to the team at ${mention()} for a brilliant panel.` : 'Thanks to the organisers and to everyone who stopped by to chat.',
            hashtags(rng, category, topic),
          )
      break
    }
    case 'hiring': {
      jobPost = rng.chance(0.55)
      const perks = rng.sample(HIRING_PERKS, 3)
      if (v.kind === 'company') {
        const cluster = v.company.industry.cluster
        const fitting = JOB_FUNCTIONS.filter((f) => f.clusters.length === 0 || f.clusters.includes(cluster))
        const roles = [...new Set(Array.from({ length: rng.range(2, 4) }, () => roleFor(rng, rng.pick(fitting))))]
        content = join(
          `We're hiring!${emoji(rng)} ${company} is growing in ${v.company.city.name} and remotely.`,
          `Open roles:\n${roles.map((r) => `• ${r}`).join('\n')}`,
          `What you can expect: ${perks[0]}, ${perks[1]} and ${perks[2]}.`,
          hashtags(rng, category, topic, ['#careers']),
        )
      } else {
        content = join(
          `${rng.pick(["We're hiring!", 'My team is growing!', 'Know someone great?', 'Hiring alert 📣'])} ${company} is looking for a ${roleFor(rng, v.fn)} to join our ${v.fn.team} team in ${v.company.city.name}${rng.chance(0.4) ? ' (hybrid)' : ''}.`,
          `You'll work on ${subject} with a small, senior team and a lot of autonomy. What we offer: ${perks[0]}, ${perks[1]} and ${perks[2]}.`,
          rng.pick(['Apply via the link in the comments or send me a message.', 'Referrals very welcome, just DM me.', 'Tag someone who would be a great fit!']),
          hashtags(rng, category, topic),
        )
      }
      break
    }
    case 'newJob':
      content = join(
        `I'm happy to share that I'm starting a new position as ${v.title} at ${company}!${emoji(rng)}`,
        oneOf(rng, [
          () =>
            v.previousCompany?.name !== undefined
              ? `Huge thanks to everyone at ${mention(v.previousCompany)} for the wonderful years. I learned more there than I can fit in a post.`
              : `Excited to work on ${subject} with an amazing team.`,
          () => `Excited to work on ${subject} with an amazing team.`,
          () => 'Looking forward to this next chapter, and grateful to everyone who helped me get here.',
        ]),
        hashtags(rng, category, topic),
      )
      break
    case 'milestone':
      content = v.kind === 'company'
        ? join(
            `We just passed ${groupDigits(rng.range(2, 900) * 100)} ${rng.pick(MILESTONES[v.company.pageType === 'school' ? 'education' : v.company.industry.cluster] ?? (MILESTONES.default as readonly string[]))}!${emoji(rng)}`,
            `Thank you to our customers, our partners and the whole ${company} team. We're just getting started.`,
            hashtags(rng, category, topic),
          )
        : join(
            `${Math.max(1, v.tenureYears)} ${v.tenureYears > 1 ? 'years' : 'year'} at ${company} today!${emoji(rng)}`,
            `When I joined, ${rng.pick(['we were a team of 12 in a single room', 'the product was a prototype', 'I had never managed anyone', 'we had three customers'])}. Today ${rng.pick(['we serve customers in 30 countries', 'the team has grown past 200 people', 'I lead a team of nine brilliant people', 'the prototype runs half of our business'])}.`,
            'Grateful for the people who made it fun along the way.',
            hashtags(rng, category, topic),
          )
      break
    case 'launch': {
      const product = productName(rng, v.company)
      content = join(
        v.kind === 'company' && !isInstitution(v.company) ? `Introducing ${product}${emoji(rng)}` : `${rng.pick(['Launch day!', "It's finally out:", 'After months of work,'])} ${product} is live!${emoji(rng)}`,
        `${product} ${rng.pick(PRODUCT_BENEFITS)}. We built it after talking to more than ${rng.range(20, 200)} customers about ${subject}.`,
        rng.chance(0.2) ? `Built together with our partners at ${mention()}.` : v.kind === 'company' ? 'Book a demo through the link in the comments.' : `So proud of the team at ${company}.`,
        hashtags(rng, category, topic),
      )
      break
    }
    case 'learning': {
      const [cert, issuer] = rng.pick(v.certifications.length > 0 ? v.certifications : v.fn.certifications)
      content = join(
        `I'm happy to share that I've obtained a new certification: ${cert} from ${issuer}!${emoji(rng)}`,
        rng.pick([
          `It took ${rng.range(4, 16)} weeks of evenings and weekends. Worth every one of them.`,
          'Thank you to my manager and my team for the support and the time to study.',
          'Next up: putting it into practice.',
        ]),
        hashtags(rng, category, topic),
      )
      break
    }
    case 'shoutout':
      content = join(
        `Shoutout to my team at ${company} for ${rng.pick(ACHIEVEMENTS)}.${emoji(rng)}`,
        rng.chance(0.3)
          ? `And thanks to our friends at ${mention()}, who made the hardest part look easy.`
          : 'None of this happens without people who care about the details. Proud to work with you all.',
        hashtags(rng, category, topic),
      )
      break
    case 'question':
      content = join(
        `Question for my network: ${rng.pick(topic.questions)}`,
        rng.pick(["I'll share a summary of the answers next week.", "We're debating this internally and I'd love outside perspectives.", 'No wrong answers, genuinely curious.']),
        hashtags(rng, category, topic),
      )
      break
    case 'culture':
      content = join(rng.pick(COMPANY_CULTURE), hashtags(rng, category, topic, [`#lifeat${slugify(company).replace(/-/g, '')}`]))
      break
    case 'customerStory': {
      const customer = mention()
      const product = productName(rng, v.company)
      content = join(
        `How ${customer} ${rng.pick(['cut reporting time by 60%', 'halved onboarding time', 'scaled to three times the volume without adding headcount', 'moved from spreadsheets to real-time decisions'])} with ${product}.`,
        `"${capital(rng.pick(topic.insights))}," says ${deps.someone(rng)}, who led the project at ${customer}.`,
        'Read the full story on our blog.',
        hashtags(rng, category, topic),
      )
      break
    }
    case 'document': {
      const event = eventName(rng, topic, v.city, p.year)
      content = join(
        `${rng.pick([`Sharing the slides from my talk at ${event}:`, 'We put together a short guide:', 'Free checklist for your team:'])} "${rng.chance(0.5) ? `${capital(subject)}: ${rng.range(5, 12)} things we learned` : `A practical guide to ${subject}`}" 📄`,
        `${rng.range(8, 30)} pages, no fluff. Swipe through and tell me what is missing.`,
        hashtags(rng, category, topic),
      )
      break
    }
    case 'article': {
      const link = p.articleLink ?? {
        title: `${capital(subject)}: what we learned`,
        url: `https://${v.company.domain ?? `${slugify(company).replace(/-/g, '')}.com`}/blog/${slugify(subject)}`,
      }
      content = join(
        p.articleLink ? `I just published a new article: ${link.title}` : `Worth a read: ${link.title}`,
        `${capital(rng.pick(topic.insights))}. ${rng.pick(['A few notes from the last year.', 'Long read, but I hope a useful one.', 'Would love your feedback.'])}`,
        link.url,
        hashtags(rng, category, topic),
      )
      break
    }
    case 'video':
      content = join(
        rng.pick([
          isInstitution(v.company) ? `Highlights from ${eventName(rng, topic, v.company.city.name, p.year)} 🎥` : `A ${rng.range(2, 5)}-minute walkthrough of ${productName(rng, v.company)} 🎥`,
          `My talk from ${eventName(rng, topic, v.city, p.year)} on ${subject} is now online.`,
          `Quick tip on ${subject} in under 90 seconds:`,
        ]),
        `${capital(rng.pick(topic.insights))}.`,
        hashtags(rng, category, topic),
      )
      break
    case 'live':
      content = join(
        `We're live! 🔴 Join ${v.kind === 'company' ? 'us' : 'me'} and ${deps.someone(rng)} as we talk about ${subject}. Bring your questions.`,
        hashtags(rng, category, topic),
      )
      break
    case 'reshare':
      content = ''
      break
  }
  return { content, mentions, jobPost }
}

/** Commentary of a reshare (the author's own words on top of someone else's post). */
export function composeReshare(rng: Rng, p: { targetName: string; targetFirst: string; topic: Topic; subject: string; ownCompany: boolean }): string {
  if (p.ownCompany && rng.chance(0.6)) return rng.pick(['Proud of what the team shipped here. 👏', 'So proud to be part of this team!', 'Big day for us. Check it out 👇'])
  const line = rng.pick([
    `Worth reading: ${p.targetFirst}'s take on ${p.subject}. ${capital(rng.pick(p.topic.insights))}.`,
    `This is so true 👇 ${capital(rng.pick(p.topic.insights))}.`,
    `Great perspective from ${p.targetName} on ${p.subject}. Sharing for anyone working on this.`,
    `Adding one thing to this: ${rng.pick(p.topic.insights)}.`,
  ])
  return rng.chance(0.4) ? `${line}\n\n${rng.pick(p.topic.tags)}` : line
}

/** The comment list for a post: what it is about decides what people say. */
function commentKind(category: PostCategory, authorKind: Voice['kind']): keyof typeof COMMENTS {
  switch (category) {
    case 'newJob':
      return 'newJob'
    case 'milestone':
      return authorKind === 'company' ? 'kudos' : 'anniversary'
    case 'learning':
      return 'learning'
    case 'shoutout':
    case 'culture':
      return 'kudos'
    case 'lessons':
      return 'lessons'
    case 'hiring':
      return 'hiring'
    case 'event':
      return 'event'
    case 'launch':
    case 'customerStory':
      return 'launch'
    case 'question':
      return 'question'
    default:
      return 'agree'
  }
}

/** A top-level comment on a post of the category, addressed to its author. */
export function commentText(rng: Rng, category: PostCategory, authorKind: Voice['kind'], authorFirst: string, subject: string): string {
  const list = COMMENTS[commentKind(category, authorKind)] as readonly ((n: string, s: string) => string)[]
  return rng.pick(list)(authorFirst, subject)
}

/** A reply to a comment by `toFirst`; the post's own author mostly says thanks. */
export function replyText(rng: Rng, category: PostCategory, byPostAuthor: boolean, toFirst: string): string {
  const list = byPostAuthor ? (category === 'hiring' ? REPLIES.byAuthorHiring : REPLIES.byAuthor) : REPLIES.byOthers
  return rng.pick(list as readonly ((n: string) => string)[])(toFirst)
}
