/**
 * HTML built by a tagged template that escapes every interpolated value, so text from users (names,
 * emails, key names) can never become markup. Markup built elsewhere passes through as an Html value.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c] as string)

type Part = Html | string | number | boolean | null | undefined | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof Html) return part.text
  if (Array.isArray(part)) return part.map(render).join('')
  return escapeHtml(String(part))
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? ''
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '')
  })
  return new Html(out)
}

/** Markup that is already safe (built by `html`, or fixed text of ours). */
export const trusted = (text: string): Html => new Html(text)
