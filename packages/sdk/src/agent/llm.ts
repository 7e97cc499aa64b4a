import OpenAI from 'openai';
import { toolCallError } from '../errors.js';
import type { ToolCallErrorInit } from '../errors.js';

/**
 * An OpenAI-compatible chat-completions endpoint: OpenAI itself, vLLM, Ollama
 * (`http://localhost:11434/v1`), a llama.cpp server, or the scripted model server.
 */
export interface LlmConfig {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  /** API key; local servers usually take any (default `not-needed`). */
  apiKey?: string;
  model: string;
  /** Per-request timeout, ms (default 60 000). */
  timeoutMs?: number;
  /** Retries of failed requests (429, 5xx, connection errors) by the client (default 2). */
  maxRetries?: number;
  temperature?: number;
}

export function openaiClient(llm: LlmConfig): OpenAI {
  return new OpenAI({
    baseURL: llm.baseURL,
    apiKey: llm.apiKey ?? 'not-needed',
    timeout: llm.timeoutMs ?? 60_000,
    maxRetries: llm.maxRetries ?? 2,
  });
}

/**
 * The LLM settings from `TOLLGATE_LLM_BASE_URL`, `TOLLGATE_LLM_MODEL` and
 * `TOLLGATE_LLM_API_KEY` (optional); undefined when no endpoint is configured.
 */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const baseURL = env.TOLLGATE_LLM_BASE_URL?.trim();
  if (!baseURL) return undefined;
  const model = env.TOLLGATE_LLM_MODEL?.trim();
  if (!model)
    throw new Error('TOLLGATE_LLM_MODEL must name a model when TOLLGATE_LLM_BASE_URL is set');
  const apiKey = env.TOLLGATE_LLM_API_KEY?.trim();
  return { baseURL, model, ...(apiKey ? { apiKey } : {}) };
}

/**
 * A failure of the model endpoint as a typed error: unreachable, timed out, rate limited or
 * 5xx is retryable; a refused key is denied; anything else the endpoint refused is internal
 * (the request Tollgate built did not suit it). An abort by the caller is passed through.
 */
export function llmError(err: unknown): unknown {
  if (err instanceof OpenAI.APIUserAbortError || !(err instanceof OpenAI.APIError)) return err;
  return toolCallError(llmFailure(err), { cause: err });
}

function llmFailure(err: InstanceType<typeof OpenAI.APIError>): ToolCallErrorInit {
  const what = 'the model endpoint';
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return { code: 'UPSTREAM_TIMEOUT', message: `${what} did not answer in time` };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return { code: 'UPSTREAM_UNAVAILABLE', message: `${what} cannot be reached` };
  }
  if (err.status === 429)
    return { code: 'RATE_LIMITED', message: `${what} is rate limiting: ${err.message}` };
  if (err.status === 401 || err.status === 403) {
    return { code: 'UNAUTHENTICATED', message: `${what} refused the API key: ${err.message}` };
  }
  if (err.status !== undefined && err.status >= 500) {
    return { code: 'UPSTREAM_UNAVAILABLE', message: `${what} failed: ${err.message}` };
  }
  return { code: 'INTERNAL', message: `${what} refused the request: ${err.message}` };
}
