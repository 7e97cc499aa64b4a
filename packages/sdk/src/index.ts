export { TollgateClient } from './client.js';
export type { CallOptions, ClientOptions, ConnectOptions, ListToolsOptions } from './client.js';
export { CompletionSubscriber } from './subscriber.js';
export type { SubscriberOptions } from './subscriber.js';
export type { BusConnectOptions } from './connection.js';
export {
  DeniedError,
  FixArgumentsError,
  InternalError,
  NeedsHumanError,
  RetryableError,
  ToolCallError,
  isDenied,
  isFixArguments,
  isInternal,
  isNeedsHuman,
  isRetryable,
  isToolCallError,
  toolCallError,
} from './errors.js';
export type { ToolCallErrorInit } from './errors.js';
export {
  errorFromHeader,
  errorFromProto,
  errorFromRpc,
  errorFromTransport,
} from './wire-errors.js';
export { checkArguments } from './arguments.js';
export { decodeCompletion } from './completions.js';
export type { CompletionEvent, CompletionStatus, CompletionSubscription } from './completions.js';
export { readCallResult } from './result.js';
export type {
  AcceptedOutcome,
  CallMeta,
  CallOutcome,
  ErrorOutcome,
  FinalOutcome,
  OkOutcome,
  PendingApprovalOutcome,
  ReadResult,
  WaitOptions,
} from './result.js';
export type { Tool } from './tools.js';
export { readTokenClaims } from './protocol.js';
export type { TokenClaims, ToolFormatName } from './protocol.js';
export { runAgent, DEFAULT_SYSTEM_PROMPT } from './agent/run-agent.js';
export type { AgentRun, AgentSessionEnd, AgentStep, RunAgentOptions } from './agent/run-agent.js';
export type { AgentToolCall, AgentTools } from './agent/tool-call.js';
export { llmConfigFromEnv, llmError, openaiClient } from './agent/llm.js';
export type { LlmConfig } from './agent/llm.js';
export { DEFAULT_COMPACTION, compactResult } from './agent/compact.js';
export type { CompactedResult, CompactionLimits } from './agent/compact.js';
export { toolMessageBody, toolMessageContent } from './agent/tool-message.js';
export { InMemorySessionStore, MemoryServiceSessionStore } from './agent/session-store.js';
export {
  MAX_REMEMBERED_FACTS,
  MAX_REMEMBERED_TEXT,
  MemoryServiceRecall,
  rememberedFact,
  renderRemembered,
} from './agent/recall.js';
export type { RecallSource, RecalledPreference, RememberedFact } from './agent/recall.js';
export type {
  MemoryServiceTarget,
  SessionEnd,
  SessionEndOutcome,
  SessionRecord,
  SessionStore,
} from './agent/session-store.js';
export { SNAPSHOT_FORMAT, readSnapshot, trimConversation } from './agent/snapshot.js';
export type {
  AgentSnapshot,
  ConversationMessage,
  ConversationToolCall,
  SnapshotCall,
} from './agent/snapshot.js';
export { openaiToolsFor } from './agent/openai-tools.js';
export { parseChatRequest, startScriptedModelServer } from './model/scripted-server.js';
export type {
  ChatRequest,
  ModelScript,
  ScriptMessage,
  ScriptTool,
  ScriptedModelOptions,
  ScriptedModelServer,
  ScriptedReply,
} from './model/scripted-server.js';
export { createDemoScript, demoReply } from './model/demo-script.js';
export { llmOrScriptedModel } from './model/llm-or-scripted.js';
export type { ModelEndpoint } from './model/llm-or-scripted.js';
export { extractResourceFromText } from './model/resource-extraction.js';
export { pathSegments, repairArguments } from './model/argument-repair.js';
export {
  confirmResourceDraft,
  proposeResourceFromConversation,
  rejectResourceDraft,
  toDescriptor,
} from './registration/propose.js';
export type {
  ConfirmDraftOptions,
  ConfirmedResource,
  ProposeResourceOptions,
  RegistryClient,
  RegistryTarget,
  ResourceProposal,
} from './registration/propose.js';
export { echoDraft, readAgreement, readDraft } from './registration/draft.js';
export type { DraftField, ResourceDraft } from './registration/draft.js';
export {
  PROPOSE_RESOURCE_TOOL,
  resourceExtractionSchema,
} from './registration/extraction-schema.js';
