/** @pronet/mcp: the MCP server for pronet's data API, to embed in a program of your own. */
export { createPronetMcpServer, createToolset, type ApiCaller, type PronetMcp, type PronetMcpOptions, type Toolset } from './server.ts'
export { startHttpTransport, type HttpTransportHandle, type HttpTransportOptions } from './http-transport.ts'
export { ConfigError, loadConfig, type McpConfig } from './config.ts'
export { createCreditBudget, type BudgetState, type CreditBudget } from './credit-budget.ts'
export { trimAnswer, DEFAULT_TEXT_LIMIT } from './field-trim.ts'
export { TOOLS, type ToolSpec } from './tool-catalogue.ts'
export { CONTRACT, type OperationId } from './contract.generated.ts'
