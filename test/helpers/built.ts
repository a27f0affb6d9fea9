/**
 * The app compiled to JavaScript, for the suites that run it as a process of its own (the server, the
 * CLI, a child of a test). Starting node on JavaScript costs a fraction of `node --import tsx` on the
 * sources, whose loader resolves and transforms every module of the process on each start (about 2 s
 * of CPU against 0.7 s here, for each of the suite's processes).
 *
 * Every file of src/ is compiled by TypeScript with the options of `npm run build` (tsconfig.build.json,
 * file by file, which verbatimModuleSyntax makes exact), into
 * node_modules/.cache/pronet-test-build/<hash of what is compiled>/, laid out as dist/ is. vitest's
 * global setup (test/global-setup.ts) compiles once per run, and not at all when the sources have not
 * changed since a build of the same hash; the suites find the build with builtPath().
 */
import { join } from 'node:path'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of the compiled app (test/global-setup.ts). */
    pronetBuild: string
  }
}

/** The compiled counterpart of a source file (a path from the repository's root, e.g. 'src/main.ts'). */
export function builtPath(source: string): string {
  return join(inject('pronetBuild'), source.replace(/\.ts$/, '.js'))
}
