/** Process entry of `npm start`. */
import { ConfigError, loadConfig } from './config/config.ts'
import { serve } from './serve.ts'

try {
  await serve(loadConfig())
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`pronet: ${e.message}\n`)
    process.exit(2)
  }
  throw e
}
