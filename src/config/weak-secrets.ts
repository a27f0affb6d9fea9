/**
 * Startup notes for secrets too short to keep their job. Any non-empty PRONET_SECRET and
 * PRONET_ADMIN_TOKEN is taken (the operator interface names them, not their form), so even a
 * one-character secret serves: whoever guessed it could forge every pagination token and cursor, and
 * a short admin token guards the whole operator API, whose failed attempts are slowed only per client address. Told, not refused: the operator
 * interface is stable and existing deployments must still start.
 */
import { codePointLength } from '../domain/code-points.ts'

export const MIN_SECRET_CHARS = 16

export function weakSecretNotes(config: { secret: string | undefined; adminToken: string | undefined }): string[] {
  const notes: string[] = []
  const chars = (s: string) => `${codePointLength(s)} character${codePointLength(s) === 1 ? '' : 's'}`
  if (config.secret !== undefined && codePointLength(config.secret) < MIN_SECRET_CHARS) {
    notes.push(
      `Note: PRONET_SECRET has ${chars(config.secret)}: whoever guesses it can forge pagination tokens and cursors; use at least ${MIN_SECRET_CHARS} random characters, or leave it unset to have one generated and kept in the data dir.`,
    )
  }
  if (config.adminToken !== undefined && codePointLength(config.adminToken) < MIN_SECRET_CHARS) {
    notes.push(
      `Note: PRONET_ADMIN_TOKEN has ${chars(config.adminToken)}: it opens the whole admin API, and wrong guesses are slowed only per client address; use at least ${MIN_SECRET_CHARS} random characters.`,
    )
  }
  return notes
}
