import { describe, expect, it } from 'vitest'
import { commentProblem, type CommentLinks } from '../../src/domain/content/ingest-rules.ts'

const comment = { commentId: '11', postId: '22', parentId: null as string | null, author: { kind: 'person' as const, id: 'p1' }, createdAt: '2026-01-01T00:00:00.000Z' }
const links: CommentLinks = { postExists: true, authorExists: true, existingPost: null, hasReplies: false, parent: null }

describe('the rules a stored comment keeps, the same for every store', () => {
  it('admits a new top-level comment on a stored post by a stored author', () => {
    expect(commentProblem(comment, links)).toBeNull()
  })

  it('names the first rule broken, in a fixed order', () => {
    expect(commentProblem({ ...comment, commentId: '09' }, { ...links, postExists: false })).toMatch(/^comment id "09" must be a decimal/)
    expect(commentProblem({ ...comment, postId: '99999999999999999999' }, links)).toMatch(/^post id "99999999999999999999" must be/)
    expect(commentProblem(comment, { ...links, postExists: false, authorExists: false })).toBe('post 22 does not exist')
    expect(commentProblem(comment, { ...links, authorExists: false })).toBe('profile p1 does not exist')
    expect(commentProblem({ ...comment, author: { kind: 'company', id: 'c1' } }, { ...links, authorExists: false })).toBe('company c1 does not exist')
    expect(commentProblem(comment, { ...links, authorExists: null })).toBe('unknown author kind "person"')
    expect(commentProblem({ ...comment, createdAt: 'yesterday' }, links)).toBe('createdAt "yesterday" is not a date')
    expect(commentProblem(comment, { ...links, existingPost: '23' })).toBe('comment 11 already belongs to post 23')
  })

  it('keeps replies one level deep, on their parent\u2019s post, and a comment with replies at the top', () => {
    const reply = { ...comment, parentId: '10' }
    const parent = { postId: '22', topLevel: true }
    expect(commentProblem(reply, { ...links, parent })).toBeNull()
    expect(commentProblem({ ...reply, parentId: 'x' }, { ...links, parent })).toMatch(/^parent comment id "x" must be/)
    expect(commentProblem({ ...reply, parentId: '11' }, { ...links, parent })).toBe('comment 11 cannot reply to itself')
    expect(commentProblem(reply, links)).toBe('parent comment 10 does not exist')
    expect(commentProblem(reply, { ...links, parent: { postId: '23', topLevel: true } })).toBe('parent comment 10 belongs to post 23, not 22')
    expect(commentProblem(reply, { ...links, parent: { postId: '22', topLevel: false } })).toBe('parent comment 10 is itself a reply (replies are one level deep)')
    expect(commentProblem(reply, { ...links, parent, existingPost: '22', hasReplies: true })).toBe('comment 11 has replies, so it cannot become a reply')
  })
})
