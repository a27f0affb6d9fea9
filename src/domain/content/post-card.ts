/**
 * A post's author card (its `profile`: {urn, name, headline, url, imageUrl}) shows the author as the
 * author's own record stands now, as a comment's or a reaction's card does (those are joined from the
 * profile or page when read). Post documents are stored ready to send, so their card is written into
 * them instead: from the author's record when the post is stored (whatever card the post record
 * carried), and again in every post of an author whose record changes what the card shows.
 */
import type { PostCard } from '../../ports/content-store.ts'

/** The four stored shapes of a post, each holding the card. */
export interface PostDocs {
  doc: string
  docTrimmed: string
  docOlder: string
  docSearch: string
}

export const sameCard = (a: PostCard, b: PostCard): boolean =>
  a.name === b.name && a.headline === b.headline && a.url === b.url && a.imageUrl === b.imageUrl

/** One stored post shape with `card` in place of its card; the urn (the author's id) and field order kept. */
function withCard(doc: string, card: PostCard): string {
  const post = JSON.parse(doc) as { profile?: { urn: string } }
  if (post.profile === undefined) return doc
  post.profile = { urn: post.profile.urn, name: card.name, headline: card.headline, url: card.url, imageUrl: card.imageUrl } as { urn: string }
  return JSON.stringify(post)
}

export function docsWithCard(docs: PostDocs, card: PostCard): PostDocs {
  return {
    doc: withCard(docs.doc, card),
    docTrimmed: withCard(docs.docTrimmed, card),
    docOlder: withCard(docs.docOlder, card),
    docSearch: withCard(docs.docSearch, card),
  }
}
