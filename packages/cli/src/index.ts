export { runCli } from './cli.js';
export { CLI_AGENT, CliContext } from './context.js';
export type { ActionRunner, GlobalOptions, ServiceClient } from './context.js';
export { CliError, ExitCode, failureLine, toFailure, usageError } from './errors.js';
export type { Failure, FailureDetail } from './errors.js';
export { Output, toJsonText } from './output/output.js';
export type { CliIo, Progress, TextSink } from './output/output.js';
export { colourWanted, createStyle, displayWidth, stripAnsi } from './output/style.js';
export type { Style } from './output/style.js';
export { clip, renderFields, renderTable } from './output/table.js';
export type { Column } from './output/table.js';
export { loadDescriptors, identity } from './apply/load.js';
export type { LoadedDescriptor } from './apply/load.js';
export { applyDescriptors, applyOrder } from './apply/apply.js';
export type { AppliedDescriptor } from './apply/apply.js';
export { diffLines, renderDiff } from './render/diff.js';
export { renderSinceCurrent } from './commands/discover.js';
export type { DiffLine } from './render/diff.js';
export { compareShapes, toolShape } from './render/tool-shape.js';
export type { ToolShape } from './render/tool-shape.js';
export { metaLine, plainOutcome, renderData, renderOutcome } from './render/outcome.js';
export type { PlainOutcome } from './render/outcome.js';
export { renderStep, renderToolCall } from './render/agent.js';
export { recordLine } from './render/audit.js';
export type { RecordLine } from './render/audit.js';
export { activePreferences } from './agent/memory.js';
export type { ActivePreference } from './agent/memory.js';
export { openAgentModel } from './agent/model.js';
export { cliReply, cliScript } from './agent/script.js';
export type { AgentModel } from './agent/model.js';
export { resolveHome } from './stack/home.js';
export type { StackHome } from './stack/home.js';
export { DEV_ISSUER, ensureIssuer, loadIssuer, mintToken } from './stack/issuer.js';
export {
  CLUSTER_INSTANCES,
  SERVICE_NAMES,
  addressVariable,
  clusterEnv,
  consoleUrl,
  mcpUrl,
  natsUrl,
  serviceAddress,
  serviceInstance,
  stackInstances,
} from './stack/services.js';
export type { ServiceInstance, ServiceName } from './stack/services.js';
export { stackDown, stackStatus, stackUp } from './stack/stack.js';
export type { DownResult, StackStatus, UpOptions } from './stack/stack.js';
export type { ServiceStatus, StackProgress } from './stack/status.js';
export { parseInfraStatus } from './stack/infra.js';
export type { InfraServer } from './stack/infra.js';
export { changedSettings, settingsOf } from './stack/processes.js';
