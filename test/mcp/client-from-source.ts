/**
 * Loaded with `node --import tsx --import <this file>` ahead of the MCP server's main.ts: resolves
 * '@pronet/client' to the client's sources, so that a test runs the server as it is written, without
 * a build of the client (the package's own import goes to its dist/).
 */
import { register } from 'node:module'

const source = new URL('../../packages/client/src/index.ts', import.meta.url).href
const hooks = `export async function resolve(specifier, context, next) {
  return next(specifier === '@pronet/client' ? ${JSON.stringify(source)} : specifier, context)
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
