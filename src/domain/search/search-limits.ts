/**
 * The bounds of a post search: how deep a walk goes, how many candidates a call looks at, and the
 * sizes that decide where a search's candidates come from. Each says why it is what it is; what they
 * cost is measured by the search benches, not recorded here.
 */

/** Results one query yields at most, over all its pages: the depth cap of post search. */
export const MAX_DEPTH = 500

/** Matches a relevance search ranks at most, the newest ones, so that no search scores millions of rows. */
export const RELEVANCE_CANDIDATES = 10_000

/** Candidates one call looks at before it answers with what it has. */
export const SCAN_BUDGET = 20_000

/**
 * Candidates a call looks at while its page is still empty; past them the walk ends. Reading each
 * candidate's facts is the dear part of a scan, so this bounds the time of a call whose filter
 * nothing passes on a word found in most posts.
 */
export const EMPTY_SCAN_LIMIT = 100_000

/** Candidates read at once, and whose facts are read at once, in a walk that checks filters. */
export const CHUNK = 500

/**
 * Posts mentioning the filter's companies up to which they, not the query's matches, are the
 * candidates. Equal to RELEVANCE_CANDIDATES, so a relevance search with this filter ranks every post
 * that mentions them and matches, or (past it) its newest RELEVANCE_CANDIDATES matches as any other.
 */
export const MENTIONS_FIRST = RELEVANCE_CANDIDATES

/**
 * Members holding authorJobTitle up to which their posts may be the candidates (when they wrote at
 * most MENTIONS_FIRST searchable posts). Past it the holders are not listed: so many members have
 * usually written more than MENTIONS_FIRST posts between them, so their posts would not be taken.
 */
export const TITLE_HOLDERS_FIRST = 2_000

/**
 * How many times more matches than MENTIONS_FIRST a query must be estimated to have for a date walk to
 * take the holders' posts without counting them (POSTS_PER_MATCH: they would be taken unless they
 * wrote several hundred thousand). Walking such a query's matches reads the facts of many posts the
 * holders did not write; walking the holders' posts checks the query on each by a seek, which is
 * cheaper there.
 */
export const BROAD_QUERY = 4

/**
 * For a date walk, how many of the holders' posts per estimated match of the query they may have
 * written (past MENTIONS_FIRST) for their posts to be the candidates. Walking their posts costs a
 * cheap check for each post of theirs the query misses (read in blocks, checked by walks of the
 * query's matches between them: matchingAmong); walking the query's matches costs a facts read, several
 * times dearer, for each match they did not write. The first is cheaper up to a few posts a match.
 */
export const POSTS_PER_MATCH = 4

/**
 * The first block of a title's holders' posts a date walk reads; each next block is twice the last, up
 * to MENTIONS_FIRST. A page often needs only the newest few hundred, and a read of many authors' posts
 * gathers and sorts all of theirs in range, so a small first block spares most pages the large read.
 */
export const FIRST_POSTS_BLOCK = 1_000

/**
 * Members holding authorJobTitle up to which a date walk over the query's matches has the index check
 * the title in its own walk (newestMatchesBy, given the holders) rather than reading each match's
 * facts, which costs several times more a match. Listing the holders costs in proportion to their
 * number, and the index builds a lookup of them for each statement; a title held more widely is told
 * by a count, and its walk reads facts.
 */
export const TITLE_HOLDERS_LISTED = 5_000

/**
 * The first window of the query's matches such a walk has the index check at once (each next one
 * twice the last, up to MENTIONS_FIRST). The index stops at the page's last result, so a large window
 * costs only where the holders' posts are sparse, and each statement builds the holders' lookup again,
 * which small windows would repeat often.
 */
export const FIRST_MATCH_WINDOW = 5_000

/**
 * Ids a relevance cursor keeps of where the walk stands: the ranks just above where the next page
 * starts, and posts already shown found below it. As many as fit, packed, in a cursor within the
 * 1,024 characters a request may send back.
 */
export const MARKS = 50

/** Of MARKS, at most this many are posts already shown below where the next page starts: the rest are ranks. */
export const STRAGGLERS = 10
