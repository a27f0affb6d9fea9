/**
 * The shell samples of the documentation, read out of Markdown and turned into scripts that report
 * the status of every HTTP call (see test/integration/samples.test.ts for the convention they follow).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

/** One fenced block: its language and its lines, with the line number of the first one (1-based). */
export interface Block {
  lang: string
  firstLine: number
  lines: string[]
}

/** The fenced blocks of a Markdown text, in order. */
export function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  let open: Block | undefined
  lines.forEach((line, i) => {
    const fence = /^```(\S*)\s*$/.exec(line)
    if (open === undefined) {
      if (fence) open = { lang: fence[1] as string, firstLine: i + 2, lines: [] }
    } else if (/^```\s*$/.test(line)) {
      blocks.push(open)
      open = undefined
    } else {
      open.lines.push(line)
    }
  })
  if (open !== undefined) throw new Error(`a fenced block opened at line ${open.firstLine - 1} is never closed`)
  return blocks
}

/** README.md and every Markdown file under docs/ but docs/console/ (the browser test writes it), as paths from the root. */
export function documentationFiles(): string[] {
  const found: string[] = ['README.md']
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (relative(ROOT, path) !== join('docs', 'console')) walk(path)
      } else if (entry.name.endsWith('.md')) {
        found.push(relative(ROOT, path))
      }
    }
  }
  walk(join(ROOT, 'docs'))
  return found
}

/** A status a sample line states in a trailing `# → NNN` comment, on the last line of its command. */
export interface Expectation {
  /** Lines of the command (a command continued with `\` spans several), in the Markdown file. */
  from: number
  to: number
  status: number
  text: string
}

export interface SampleScript {
  file: string
  /** The bash script: the preamble, then the file's sh blocks in order. */
  script: string
  /** For each script line (index = line - 1), the Markdown line it came from, or 0 for the preamble. */
  origin: number[]
  expectations: Expectation[]
  /** How many sh blocks the script holds. */
  blocks: number
}

/**
 * What every script starts with. `curl` records each call's status with the line of the script's own
 * text it was made from (a call made in a function, such as a sample's `search`, counts at the line
 * that called the function), in $SAMPLES_LOG; a failing command says where it failed; `pronet` and
 * `npx pronet` run the CLI ($SAMPLES_CLI: the CLI compiled from the current sources, test/helpers/built.ts).
 */
export const PREAMBLE = [
  `set -E`,
  `samples_line() { local n=\${#BASH_LINENO[@]}; if (( n > 2 )); then echo "\${BASH_LINENO[n-2]}"; else echo "$1"; fi; }`,
  `trap 'echo "samples: exit status $? at script line $(samples_line $LINENO)" >&2' ERR`,
  `curl() {`,
  `  local headers rc=0`,
  `  headers=$(mktemp)`,
  `  command curl -D "$headers" "$@" || rc=$?`,
  `  echo "\${BASH_LINENO[\${#BASH_LINENO[@]}-2]} $(awk '/^HTTP\\// { s = $2 } END { print s }' "$headers")" >> "$SAMPLES_LOG"`,
  `  rm -f "$headers"`,
  `  return $rc`,
  `}`,
  `pronet() { node "$SAMPLES_CLI" "$@"; }`,
  `npx() { if [ "\${1-}" = pronet ]; then shift; pronet "$@"; else command npx "$@"; fi; }`,
]

/**
 * The script of a file's sh blocks (those `skip` does not leave out), with every
 * `http://127.0.0.1:3000` pointed at `baseUrl`.
 */
export function sampleScript(file: string, baseUrl: string, skip: (block: Block, index: number) => boolean = () => false): SampleScript {
  const markdown = readFileSync(join(ROOT, file), 'utf8')
  const blocks = fencedBlocks(markdown).filter((b, i) => b.lang === 'sh' && !skip(b, i))
  const lines = [...PREAMBLE]
  const origin: number[] = PREAMBLE.map(() => 0)
  const expectations: Expectation[] = []
  for (const block of blocks) {
    block.lines.forEach((line, i) => {
      const at = block.firstLine + i
      lines.push(line.replaceAll('http://127.0.0.1:3000', baseUrl))
      origin.push(at)
      const stated = /#\s*→\s*(\d{3})\b/.exec(line)
      if (stated) {
        let from = i
        while (from > 0 && (block.lines[from - 1] as string).trimEnd().endsWith('\\')) from--
        expectations.push({ from: block.firstLine + from, to: at, status: Number(stated[1]), text: line.trim() })
      }
    })
  }
  return { file, script: `${lines.join('\n')}\n`, origin, expectations, blocks: blocks.length }
}

/** One HTTP call a script made: the Markdown line of its command and the status it got. */
export interface Call {
  line: number
  status: number | undefined
}

/** The calls logged by the preamble's `curl`, their script lines mapped back to Markdown lines. */
export function loggedCalls(log: string, origin: readonly number[]): Call[] {
  return log
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [line, status] = l.trim().split(/\s+/)
      return { line: origin[Number(line) - 1] ?? 0, status: status === undefined ? undefined : Number(status) }
    })
}

/**
 * What is wrong with a run's calls: a stated status not met or never reached, a call without a
 * stated status that did not succeed (2xx).
 */
export function callProblems(file: string, calls: readonly Call[], expectations: readonly Expectation[]): string[] {
  const problems: string[] = []
  const stated = (line: number) => expectations.find((e) => line >= e.from && line <= e.to)
  for (const e of expectations) {
    const made = calls.filter((c) => c.line >= e.from && c.line <= e.to)
    if (made.length === 0) problems.push(`${file}:${e.to} made no call: ${e.text}`)
    for (const c of made) if (c.status !== e.status) problems.push(`${file}:${e.to} answered ${c.status ?? 'nothing'}, not ${e.status}: ${e.text}`)
  }
  for (const c of calls) {
    if (stated(c.line) === undefined && (c.status === undefined || c.status < 200 || c.status > 299)) {
      problems.push(`${file}:${c.line} answered ${c.status ?? 'nothing'} where no status is stated (a call without "# → NNN" must succeed)`)
    }
  }
  return problems
}
