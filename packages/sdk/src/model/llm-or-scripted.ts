import { llmConfigFromEnv } from '../agent/llm.js';
import type { LlmConfig } from '../agent/llm.js';
import { createDemoScript } from './demo-script.js';
import { startScriptedModelServer } from './scripted-server.js';

/** An LLM endpoint to use, and how to let go of it. */
export interface ModelEndpoint {
  llm: LlmConfig;
  /** True when it is the local scripted model (no LLM was configured). */
  scripted: boolean;
  /** Stops the scripted model server (a no-op for a configured endpoint). */
  close(): Promise<void>;
}

/**
 * The LLM configured by `TOLLGATE_LLM_BASE_URL` / `TOLLGATE_LLM_MODEL` / `TOLLGATE_LLM_API_KEY`,
 * or — when none is — a scripted model server on loopback running the demo script. Either way
 * the agent loop talks to it through the `openai` client.
 */
export async function llmOrScriptedModel(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ModelEndpoint> {
  const configured = llmConfigFromEnv(env);
  if (configured) return { llm: configured, scripted: false, close: async () => undefined };
  const server = await startScriptedModelServer(createDemoScript());
  return {
    llm: { baseURL: server.baseURL, model: server.model, maxRetries: 0 },
    scripted: true,
    close: () => server.close(),
  };
}
