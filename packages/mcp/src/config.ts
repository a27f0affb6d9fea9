/**
 * The server's settings, read once from the environment. A bad value is refused at start with a
 * message naming the setting (never the key's value).
 */

export interface McpConfig {
  apiKey: string
  baseUrl: string
  /** The session's credit budget; null: none. */
  maxCredits: number | null
  transport: 'stdio' | 'http'
  /** The HTTP transport's port and address. */
  port: number
  host: string
}

export const DEFAULTS = { baseUrl: 'http://127.0.0.1:3000', maxCredits: 100, port: 3333, host: '127.0.0.1' } as const

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export function loadConfig(env: Readonly<Record<string, string | undefined>>): McpConfig {
  const apiKey = env.PRONET_API_KEY?.trim()
  if (!apiKey) throw new ConfigError('PRONET_API_KEY is required: an API key of your pronet account (pk_…)')
  const baseUrl = (env.PRONET_BASE_URL?.trim() || DEFAULTS.baseUrl).replace(/\/+$/, '')
  let parsed: URL
  try {
    parsed = new URL(baseUrl)
  } catch {
    throw new ConfigError('PRONET_BASE_URL must be a URL such as https://pronet.example.com')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError('PRONET_BASE_URL must be an http or https URL')
  const transport = env.PRONET_MCP_TRANSPORT?.trim() || 'stdio'
  if (transport !== 'stdio' && transport !== 'http') throw new ConfigError('PRONET_MCP_TRANSPORT must be stdio or http')
  return {
    apiKey,
    baseUrl,
    maxCredits: maxCreditsOf(env.PRONET_MCP_MAX_CREDITS),
    transport,
    port: wholeNumber('PRONET_MCP_PORT', env.PRONET_MCP_PORT, DEFAULTS.port, 0, 65_535),
    host: env.PRONET_MCP_HOST?.trim() || DEFAULTS.host,
  }
}

function maxCreditsOf(value: string | undefined): number | null {
  if (value?.trim().toLowerCase() === 'none') return null
  return wholeNumber('PRONET_MCP_MAX_CREDITS', value, DEFAULTS.maxCredits, 0, Number.MAX_SAFE_INTEGER, ' (or none, for no budget)')
}

function wholeNumber(name: string, value: string | undefined, fallback: number, min: number, max: number, or = ''): number {
  const text = value?.trim()
  if (!text) return fallback
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}${or}`)
  return Number(text)
}
