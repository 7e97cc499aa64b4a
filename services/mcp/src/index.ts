export { startMcpService } from './service.js';
export type { McpServiceOptions, RunningMcpService } from './service.js';
export { McpGateway, InvalidCursorError, derivedIdempotencyKey } from './gateway/gateway.js';
export type { CallContext, GatewayDeps, GatewaySettings, ToolPage } from './gateway/gateway.js';
export { BusToolSource, outcomeOf } from './gateway/tool-source.js';
export type { CallOutcome, GatewayTool, ToolSource } from './gateway/tool-source.js';
export { annotationsFor, mcpTool, operationClass, RESULT_ENVELOPE_SCHEMA } from './mcp/tools.js';
export type { OperationClass } from './mcp/tools.js';
export { callToolResult, errorResult } from './mcp/results.js';
export { CALL_STATUS_TOOL, FIND_TOOLS_TOOL } from './mcp/gateway-tools.js';
export { PROTOCOL_VERSIONS, buildServer } from './mcp/server.js';
export { AccessTokenVerifier, callerOf } from './identity/access-tokens.js';
export type { Caller } from './identity/access-tokens.js';
export { CallTokens } from './identity/call-tokens.js';
export {
  NO_OAUTH,
  parseIdentitySettings,
  principalFromClaims,
  scopesOf,
} from './identity/rules.js';
export type { AuthorizationServer, ClaimRule, IdentitySettings } from './identity/rules.js';
export { SessionIds, tokenSession } from './http/sessions.js';
export { PrincipalRateLimiter } from './http/rate-limit.js';
export { callerIp, metadataPath } from './http/edge.js';
export { mcpConfig } from './config.js';
