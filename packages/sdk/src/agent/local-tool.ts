/**
 * Tools the agent loop runs itself instead of through Tollgate's executor — the product's own
 * conversational actions, such as registering a resource (`registrationTool`). Each one acts
 * with the caller's own token against a Tollgate service that authorizes it, so offering one
 * to a model grants nothing the caller could not already do.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

export interface LocalTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (closed). */
  parameters: JsonObject;
  /**
   * Runs one call. `task` is what the person said in this run, in their words (local tools act
   * on it rather than on the model's paraphrase). `answer`, when given, ends the run with that
   * text as the reply, said to the person as it is.
   */
  run(args: JsonObject, context: { task: string }): Promise<LocalToolResult>;
}

export interface LocalToolResult {
  /** The tool message for the model. */
  content: JsonObject;
  answer?: string;
}

export function localFunctions(tools: readonly LocalTool[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
