import type { JsonObject } from '@bufbuild/protobuf';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { Tool } from '../tools.js';

/**
 * The tools as OpenAI function tools: the synthesizer's `openai` rendering when the tool was
 * listed in that format (strict mode), else a plain function over the input schema.
 */
export function openaiToolsFor(tools: Tool[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => renderedFunction(tool) ?? plainFunction(tool));
}

function renderedFunction(tool: Tool): ChatCompletionFunctionTool | undefined {
  if (tool.format !== 'openai' || tool.rendering.type !== 'function') return undefined;
  const fn = tool.rendering.function;
  if (!isObject(fn) || fn.name !== tool.name || !isObject(fn.parameters)) return undefined;
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: typeof fn.description === 'string' ? fn.description : tool.description,
      parameters: fn.parameters,
      ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
    },
  };
}

function plainFunction(tool: Tool): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
