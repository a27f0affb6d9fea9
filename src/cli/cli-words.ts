/**
 * A value the service refused, said in the CLI's words: the option or argument that took it rather
 * than the admin API's field, and the CLI's `none` or `all` where the API says null. With --json it
 * is left as the admin API says it.
 */
import { ApiError, isApiError } from '../domain/errors.ts'

/** By the admin API's field: what the CLI calls it, and the API's phrases to say the CLI's way. */
export type CliWording = Record<string, { name: string; phrases: readonly (readonly [string, string])[] }>

export async function inCliWords<T>(json: boolean | undefined, wording: CliWording, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (e) {
    const words = isApiError(e) && e.code === 'INVALID_PARAMETER' ? wording[String(e.details?.parameter)] : undefined
    if (json || !words || !isApiError(e)) throw e
    let reason = e.message.replace(/^Invalid parameter '[^']*': /, '')
    for (const [api, cli] of words.phrases) reason = reason.replace(api, cli)
    throw new ApiError(e.code, `Invalid ${words.name}: ${reason}`, e.details)
  }
}
