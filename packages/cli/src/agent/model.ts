import type { LlmConfig } from '@tollgate/sdk';
import { usageError } from '../errors.js';

/** The model the agent loop talks to: a configured LLM, or the scripted stand-in. */
export interface AgentModel {
  llm: LlmConfig;
  /** True when no LLM is configured and the scripted model answers (say so to people). */
  scripted: boolean;
  /** What to call it in output. */
  label: string;
  close(): Promise<void>;
}

/**
 * The LLM from `TOLLGATE_LLM_BASE_URL` / `TOLLGATE_LLM_MODEL` / `TOLLGATE_LLM_API_KEY`; without
 * them, the SDK's scripted model server (an OpenAI-compatible endpoint following the CLI's
 * demo script), started on a free local port.
 */
export async function openAgentModel(env: NodeJS.ProcessEnv): Promise<AgentModel> {
  const { llmConfigFromEnv } = await import('@tollgate/sdk');
  const { startScriptedModelServer } = await import('@tollgate/sdk/demo');
  const { cliScript } = await import('./script.js');
  let llm: LlmConfig | undefined;
  try {
    llm = llmConfigFromEnv(env);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  if (llm !== undefined) {
    return {
      llm: { ...llm, temperature: 0 },
      scripted: false,
      label: `${llm.model} at ${llm.baseURL}`,
      close: async () => undefined,
    };
  }
  const server = await startScriptedModelServer(cliScript());
  return {
    llm: { baseURL: server.baseURL, model: server.model, maxRetries: 0 },
    scripted: true,
    label: 'SCRIPTED MODEL (no LLM configured: set TOLLGATE_LLM_BASE_URL and TOLLGATE_LLM_MODEL)',
    close: () => server.close(),
  };
}
