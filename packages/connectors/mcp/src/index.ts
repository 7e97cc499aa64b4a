export { mcpConnector, mcpSessions } from './connector.js';
export { mcpKind, mcpSpecSchema } from './kind/kind.js';
export type {
  McpCommand,
  McpConnection,
  McpField,
  McpOAuthClient,
  McpOverride,
  McpSandbox,
  McpSchema,
  McpSpec,
  McpTool,
  McpToolClass,
  McpToolDefinition,
} from './kind/spec.js';
export { definitionOf, diffDefinitions, pinOf } from './kind/pin.js';
export type { DefinitionChange, ListedTool } from './kind/pin.js';
export { screenDescription, screenResultText } from './kind/screen.js';
export { offeredSchema } from './kind/schema.js';
export { argumentSchema, selectedTools } from './kind/tools.js';
export { compileRequest } from './call/compile.js';
export type { McpRequest } from './call/compile.js';
export { executor } from './call/execute.js';
export { MAX_ITEMS, shapeResult } from './call/shape.js';
export type { McpResultData, ShapedItem } from './call/shape.js';
export {
  discoverSchema,
  discoverTools,
  pinSelected,
  pinTools,
  readTools,
  toDiscoveredSchema,
} from './upstream/discover.js';
export type { DiscoveredTool, DiscoveredTools } from './upstream/discover.js';
export { SessionPool } from './upstream/pool.js';
export { UpstreamSession } from './upstream/session.js';
export type { Withdrawal, WithdrawalListener } from './upstream/session.js';
export { BWRAP, sandboxAvailable, sandboxed } from './upstream/sandbox.js';
