// What agent authors use: the client, its outcomes and errors, the agent loop and its session
// store and recall, and registering a resource from a conversation. The scripted model and the
// demo script are in `@tollgate/sdk/demo`.
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
export type { CompletionEvent, CompletionStatus, CompletionSubscription } from './completions.js';
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
export type { ToolFormatName } from './protocol.js';
export { runAgent, DEFAULT_SYSTEM_PROMPT } from './agent/run-agent.js';
export type { AgentRun, AgentSessionEnd, AgentStep, RunAgentOptions } from './agent/run-agent.js';
export type { AgentToolCall, AgentTools } from './agent/tool-call.js';
export { llmConfigFromEnv } from './agent/llm.js';
export type { LlmConfig } from './agent/llm.js';
export { DEFAULT_COMPACTION } from './agent/compact.js';
export type { CompactionLimits } from './agent/compact.js';
export { InMemorySessionStore, MemoryServiceSessionStore } from './agent/session-store.js';
export {
  MAX_REMEMBERED_FACTS,
  MAX_REMEMBERED_TEXT,
  MemoryServiceRecall,
  rememberedFact,
  renderRemembered,
} from './agent/recall.js';
export type { RecallSource, Recalled, RecalledPreference, RememberedFact } from './agent/recall.js';
export {
  SKILL_FUNCTION_PREFIX,
  offerableSkills,
  recalledSkill,
  runSkill,
  skillFunction,
} from './agent/skills.js';
export type { RecalledSkill, SkillRun, SkillStepOutcome, SkillStepRunner } from './agent/skills.js';
export type {
  MemoryServiceTarget,
  SessionEnd,
  SessionEndOutcome,
  SessionRecord,
  SessionStore,
} from './agent/session-store.js';
export { SNAPSHOT_FORMAT, readSnapshot } from './agent/snapshot.js';
export type {
  AgentSnapshot,
  ConversationMessage,
  ConversationToolCall,
  SnapshotCall,
} from './agent/snapshot.js';
export {
  confirmResourceDraft,
  proposeResourceFromConversation,
  rejectResourceDraft,
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
export {
  REGISTER_RESOURCE_TOOL,
  ResourceConversation,
  registrationTool,
} from './registration/conversation.js';
export type {
  RegistrationState,
  RegistrationTurn,
  ResourceConversationOptions,
} from './registration/conversation.js';
export type { LocalTool, LocalToolResult } from './agent/local-tool.js';
export type { DraftField, ResourceDraft } from './registration/draft.js';
