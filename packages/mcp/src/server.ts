/**
 * The MCP server: lists one tool per call of the API and runs them through the client, within the
 * session's credit budget, trimming each answer to the fields asked for.
 *
 * It is built on the SDK's low-level Server rather than McpServer: the tools' input schemas are the
 * contract's JSON Schemas as they stand, which McpServer would want rewritten as zod schemas.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import type { OperationId } from './contract.generated.ts'
import { budgetText, createCreditBudget, type CreditBudget } from './credit-budget.ts'
import { DEFAULT_TEXT_LIMIT, trimAnswer } from './field-trim.ts'
import { maxPrice } from './prices.ts'
import { countDefault, descriptionOf, inputSchemaOf, TOOLS, type ToolSpec } from './tool-catalogue.ts'

/**
 * What the server needs of @pronet/client's PronetClient: its generic call. The client is passed in
 * (main.ts builds it), so this module never loads it and runs against any build of it.
 */
export interface ApiCaller {
  call(
    operationId: OperationId,
    input: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<{ data: unknown; meta: { creditsCharged: number; requestId?: string | undefined; replayed?: boolean } }>
}

/** The fields of the client's PronetError this server reads: an answer of the API that is an error. */
interface ApiErrorLike {
  status: number
  code: string
  message: string
  details?: Record<string, unknown> | undefined
  requestId?: string | undefined
  creditsCharged: number
}

/** The tools with their input validators, built once and shared by every session of a process. */
export interface Toolset {
  tools: Tool[]
  byName: Map<string, ToolEntry>
}

interface ToolEntry {
  spec: ToolSpec
  validate: JsonSchemaValidator<Record<string, unknown>>
  /** The arguments the tool takes, to name a misspelt one (the validator only says there is one). */
  argumentNames: string[]
}

export function createToolset(): Toolset {
  const validator = new AjvJsonSchemaValidator()
  const tools: Tool[] = []
  const byName: Toolset['byName'] = new Map()
  for (const spec of TOOLS) {
    const inputSchema = inputSchemaOf(spec)
    tools.push({
      name: spec.name,
      title: spec.title,
      description: descriptionOf(spec),
      inputSchema,
      annotations: { title: spec.title, readOnlyHint: true, openWorldHint: true },
    })
    byName.set(spec.name, {
      spec,
      validate: validator.getValidator<Record<string, unknown>>(inputSchema),
      argumentNames: Object.keys(inputSchema.properties as object),
    })
  }
  return { tools, byName }
}

export interface PronetMcpOptions {
  client: ApiCaller
  /** The session's credit budget (PRONET_MCP_MAX_CREDITS); null: none. */
  maxCredits: number | null
  /** Built once per process when several sessions share it (the HTTP transport). */
  toolset?: Toolset
  version?: string
}

export interface PronetMcp {
  server: Server
  budget: CreditBudget
}

/** One MCP session's server, with its own budget. Connect it to a transport. */
export function createPronetMcpServer(opts: PronetMcpOptions): PronetMcp {
  const toolset = opts.toolset ?? createToolset()
  const budget = createCreditBudget(opts.maxCredits)
  const server = new Server(
    { name: 'pronet', title: 'pronet: Professional Network Data API', version: opts.version ?? '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of the Professional Network Data API: profiles, company pages, posts, comments, reactions, articles and post search. ' +
        'Most calls cost credits, stated in each tool\'s description; this session refuses calls past its credit budget, and every result says what it charged. ' +
        'get_balance and get_usage are free. Answers are trimmed to a default view; pass `fields` to choose what comes back.',
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolset.tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = toolset.byName.get(request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools/list names them`)
    return runTool(tool, request.params.arguments ?? {}, { client: opts.client, budget, signal: extra.signal })
  })
  return { server, budget }
}

async function runTool(tool: ToolEntry, args: Record<string, unknown>, ctx: { client: ApiCaller; budget: CreditBudget; signal: AbortSignal }): Promise<CallToolResult> {
  const { spec } = tool
  const { client, budget } = ctx
  const unknown = Object.keys(args).filter((name) => !tool.argumentNames.includes(name))
  if (unknown.length > 0) {
    return failure(`Invalid arguments for ${spec.name}: it takes no ${unknown.join(', ')}; it takes ${tool.argumentNames.join(', ')}. Nothing was called.`)
  }
  const checked = tool.validate(args)
  if (!checked.valid) return failure(`Invalid arguments for ${spec.name}: ${argumentErrors(checked.errorMessage)}. Nothing was called.`)
  const { fields, ...input } = checked.data
  const price = maxPrice(spec.price, input, countDefault(spec))
  const reservation = budget.reserve(price)
  if (!reservation.ok) {
    const { spent, reserved, limit } = reservation.state
    const left = Math.max(0, (limit ?? 0) - spent - reserved)
    return failure(
      `Refused by this session's credit budget: ${spec.name} may cost ${credits(price)} with these arguments, and ${spent} of the budget's ${limit} credits are spent` +
        `${reserved > 0 ? ` (${reserved} more held by calls in progress)` : ''}, leaving ${left}. Nothing was called and nothing was charged. ` +
        'The budget is set by PRONET_MCP_MAX_CREDITS when the server starts; get_balance and get_usage are free.',
      { creditsCharged: 0, ...budgetMeta(budget) },
    )
  }
  let answer: Awaited<ReturnType<ApiCaller['call']>>
  try {
    // A cancelled tool call aborts its request.
    answer = await client.call(spec.operationId, input, { signal: ctx.signal })
  } catch (err) {
    if (isApiError(err)) {
      reservation.settle(err.creditsCharged)
      const details = err.details ? ` Details: ${JSON.stringify(err.details)}.` : ''
      return failure(
        `${err.code} (${err.status}): ${err.message}${details} ${capitalised(credits(err.creditsCharged))} charged; ${budgetText(budget.state())}.${requestIdText(err.requestId)}`,
        { creditsCharged: err.creditsCharged, requestId: err.requestId, ...budgetMeta(budget) },
      )
    }
    // No answer arrived: the call may have been served and billed on its way, so its full price counts.
    reservation.settle(price)
    const reason = err instanceof Error ? err.message : String(err)
    return failure(
      `No answer from the API (${reason}). The call may have been billed before its answer was lost, so ${credits(price)} count against this session's budget; ${budgetText(budget.state())}.`,
      { creditsCharged: null, ...budgetMeta(budget) },
    )
  }
  // A retry answered from the first attempt's kept answer says 0, though that attempt may have been
  // billed: its full price counts.
  const charged = answer.meta.replayed === true ? Math.max(answer.meta.creditsCharged, price) : answer.meta.creditsCharged
  reservation.settle(charged)
  const asked = Array.isArray(fields) ? (fields as string[]) : null
  const trimmed = trimAnswer(answer.data, asked ?? spec.defaultFields, asked === null && spec.defaultFields !== null ? DEFAULT_TEXT_LIMIT : null)
  const notes: string[] = [`${capitalised(credits(charged))} charged; ${budgetText(budget.state())}.${requestIdText(answer.meta.requestId)}`]
  if (asked === null && spec.defaultFields !== null) {
    const leftOut = trimmed.leftOut.length > 0 ? ` Left out: ${trimmed.leftOut.join(', ')}.` : ''
    const cut = trimmed.cut > 0 ? ` ${trimmed.cut} text${trimmed.cut === 1 ? ' was' : 's were'} cut at ${DEFAULT_TEXT_LIMIT} characters.` : ''
    notes.push(`Default view.${leftOut}${cut} Pass \`fields\` to choose fields, or ["*"] for the whole answer.`)
  }
  if (asked !== null && trimmed.unmatched.length > 0) notes.push(`Not found in this answer: ${trimmed.unmatched.join(', ')}.`)
  return {
    content: [
      { type: 'text', text: notes.join(' ') },
      { type: 'text', text: JSON.stringify(trimmed.value) },
    ],
    _meta: { 'pronet/creditsCharged': charged, 'pronet/requestId': answer.meta.requestId ?? null, ...prefixed(budgetMeta(budget)) },
  }
}

function failure(text: string, meta?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(meta ? { _meta: prefixed(meta) } : {}) }
}

function budgetMeta(budget: CreditBudget): Record<string, unknown> {
  const s = budget.state()
  return { sessionCreditsSpent: s.spent, sessionCreditsLimit: s.limit }
}

const prefixed = (meta: Record<string, unknown>) => Object.fromEntries(Object.entries(meta).map(([k, v]) => [k.startsWith('pronet/') ? k : `pronet/${k}`, v ?? null]))
const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
/** The validator's words name the arguments "data": they are the tool's arguments here. */
const argumentErrors = (message: string) => message.replace(/(^|, )data\//g, '$1').replace(/(^|, )data /g, '$1the arguments ')
const requestIdText = (id: string | undefined) => (id ? ` Request id: ${id}.` : '')

/** An error answer of the API (the client's PronetError), recognised by its fields: see ApiCaller. */
function isApiError(err: unknown): err is ApiErrorLike {
  const e = err as Partial<ApiErrorLike> | null
  return err instanceof Error && typeof e?.status === 'number' && typeof e.code === 'string' && typeof e.creditsCharged === 'number'
}
