// The scripted model (the OpenAI chat-completions protocol with rule-based replies, served on
// loopback) and the demo script it plays: for running agents without an LLM — the demo,
// `tollgate chat` without a configured model, and tests.
export { startScriptedModelServer } from './model/scripted-server.js';
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
