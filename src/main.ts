/** Process entry of `npm start`. */
import { ConfigError, loadConfig } from './config/config.ts'
import { StartupError } from './config/startup-failure.ts'
import { serve } from './serve.ts'

try {
  await serve(loadConfig())
} catch (e) {
  // An environment that parsed but cannot be used: one line, exit 1; the cause's stack only when asked for.
  if (e instanceof StartupError) {
    process.stderr.write(`pronet: ${e.message}\n`)
    if (/^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '') && e.cause instanceof Error) process.stderr.write(`${e.cause.stack ?? String(e.cause)}\n`)
    process.exit(1)
  }
  if (e instanceof ConfigError) {
    process.stderr.write(`pronet: ${e.message}\n`)
    process.exit(2)
  }
  throw e
}
