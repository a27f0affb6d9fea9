/**
 * A real headless browser for tests: the machine's Chromium (Debian's `chromium` package, which
 * .ci/run installs when it is missing) driven by playwright-core; no browser is downloaded. Under
 * CI=true the browser must be there: a missing one fails the run. Elsewhere the suites skip, and say
 * so once on stderr (as test/helpers/postgres.ts does for PostgreSQL).
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'

const CI = process.env.CI === 'true' || process.env.CI === '1'
const CANDIDATES = [process.env.PRONET_TEST_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p)

let found: string | undefined | null = null

/** The Chromium executable, or undefined when there is none (throws under CI). */
export function chromiumPath(): string | undefined {
  if (found !== null) return found
  found = CANDIDATES.find((p) => existsSync(p))
  if (found === undefined) {
    const tried = CANDIDATES.join(', ')
    if (CI) throw new Error(`CI=true but no Chromium at ${tried}: install the 'chromium' package (.ci/run does when it is missing)`)
    process.stderr.write(`\n[notice] No Chromium at ${tried}: the browser suites are skipped (they run under CI=true).\n`)
  }
  return found
}

/** Whether browser suites run here (throws under CI when the browser is missing). */
export const browserAvailable = (): boolean => chromiumPath() !== undefined

export function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath()
  if (executablePath === undefined) throw new Error('no Chromium on this machine')
  return chromium.launch({ executablePath, headless: true })
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[]; html: string; failureSummary?: string }[]
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/**
 * axe-core's violations on the page as it is now, every impact (axe's default rules: WCAG 2.x A and
 * AA, and its best practices). The page's context must be made with `bypassCSP: true`: the console's
 * `script-src 'self'` would refuse the injected script.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, ...(n.failureSummary ? { failureSummary: n.failureSummary } : {}) })),
    }))
  })
  return violations
}

export const isSerious = (v: AxeViolation): boolean => v.impact === 'serious' || v.impact === 'critical'
