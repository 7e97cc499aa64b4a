import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type OpenAI from 'openai';
import { toolCallError } from '../errors.js';
import type { Tool } from '../tools.js';
import type { CompactionLimits } from './compact.js';
import { llmError, openaiClient } from './llm.js';
import type { LlmConfig } from './llm.js';
import {
  SNAPSHOT_FORMAT,
  callsOf,
  readSnapshot,
  snapshotToJson,
  trimConversation,
} from './snapshot.js';
import type {
  AgentSnapshot,
  ConversationMessage,
  ConversationToolCall,
  SnapshotCall,
} from './snapshot.js';
import type { SessionEndOutcome, SessionStore } from './session-store.js';
import { runToolCall } from './tool-call.js';
import type { AgentToolCall, AgentTools, ToolCallContext } from './tool-call.js';
import { openaiToolsFor } from './openai-tools.js';
import { localFunctions } from './local-tool.js';
import type { LocalTool } from './local-tool.js';
import { renderRemembered } from './recall.js';
import type { RecallSource, Recalled, RecalledPreference } from './recall.js';
import { offerableSkills, runSkill, skillFunction } from './skills.js';
import type { RecalledSkill } from './skills.js';

export const DEFAULT_SYSTEM_PROMPT = [
  'You answer questions and do tasks using only the tools provided (Tollgate tools over real data systems).',
  'Fill tool arguments exactly as their schemas say; never invent field names or values.',
  'A tool result with status "error" says what to do: for category fix_arguments, correct the arguments',
  'named in details and call again; otherwise do not retry more than once and tell the user.',
  'Answer briefly, from the tool results only.',
].join(' ');

export interface RunAgentOptions {
  client: AgentTools;
  llm: LlmConfig;
  /** The user's request for this run. */
  task: string;
  /** Conversation id: snapshots, audit, replay and idempotency keys hang off it. */
  sessionId: string;
  /** Model turns at most (default 8); the run ends with `step_limit` when they are used up. */
  maxSteps?: number;
  /** Snapshot store; without one the run starts fresh and saves nothing. */
  memory?: SessionStore;
  /**
   * What memory remembers for the task (e.g. `MemoryServiceRecall`), asked at each run:
   * preferences are shown to the model when a conversation starts, as a data block
   * (`renderRemembered`), never as instructions; approved skills are offered as functions
   * (`skill_<name>`) whose steps run through the principal's own tools (`runSkill`), when every
   * tool they use is offered in this run. A failure only costs the recall (`onWarning`).
   */
  recall?: RecallSource;
  /** Told about each step once it is done and saved. */
  onStep?: (step: AgentStep) => void | Promise<void>;
  /** Tools of at most this many resources (default: the synthesizer's). */
  topK?: number;
  systemPrompt?: string;
  compaction?: Partial<CompactionLimits>;
  /**
   * Conversation kept (in the snapshot and the model's context) at most this many bytes of
   * JSON; the oldest turns go first (default 192 KiB, under the memory service's 256 KiB).
   */
  maxConversationBytes?: number;
  /** Wait this long for a call parked for approval or accepted (default 0: report it as is). */
  completionWaitMs?: number;
  signal?: AbortSignal;
  /**
   * End the session in `memory` when the run is over (default false: a session is usually a
   * conversation of several runs, and an ended session takes no more): SUCCEEDED when the
   * model answered, FAILED when the run failed or the step limit ran out, ABANDONED when
   * `signal` aborted it. A session that succeeded with several tool calls is proposed as a
   * skill. Pass true for one-task sessions; conversations end themselves (`SessionStore.end`).
   * Ending never fails the run: a failure goes to `onWarning`.
   */
  endSession?: boolean;
  /** Told what went wrong without failing the run (e.g. the session could not be ended). */
  onWarning?: (message: string, cause: unknown) => void;
  /** Tools the loop runs itself, offered beside the principal's (see `LocalTool`). */
  localTools?: readonly LocalTool[];
}

/** One model turn: what it said and the tools it called. */
export interface AgentStep {
  /** 1-based within this run. */
  step: number;
  assistant: string | null;
  toolCalls: AgentToolCall[];
  /** Session version after the step was saved (when a store is used). */
  sessionVersion?: number;
}

export interface AgentRun {
  /** `answered`: the model replied without calling tools; `step_limit`: `maxSteps` ran out. */
  status: 'answered' | 'step_limit';
  answer: string | null;
  steps: AgentStep[];
  sessionId: string;
  sessionVersion?: number;
  /** The whole conversation as the model saw it. */
  messages: ConversationMessage[];
  /** The tools the model was offered. */
  tools: Tool[];
  /** How the session was ended, when the run ended it (see `endSession`). */
  sessionEnd?: AgentSessionEnd;
  /** What memory recalled when this run started the conversation (see `recall`). */
  remembered: RecalledPreference[];
  /** The approved skills this run offered the model (see `recall`). */
  skills: RecalledSkill[];
}

/** The outcome a run ended its session with, and what memory answered (or why it failed). */
export type AgentSessionEnd =
  | { outcome: SessionEndOutcome; version: number; skillCandidateId: string }
  | { outcome: SessionEndOutcome; error: string };

/**
 * The agent loop (function calling): offers the principal's tools for `task` to the model,
 * runs the calls it makes through Tollgate, feeds the outcomes back (compacted; argument
 * errors with their paths so the model can correct itself) and stops when the model answers
 * or after `maxSteps` turns. The session snapshot is saved after every step, and the session
 * ended with the run's outcome (see `endSession`).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { client, task, sessionId, memory } = options;
  const maxSteps = options.maxSteps ?? 8;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw toolCallError({
      code: 'INVALID_ARGUMENT',
      message: `maxSteps must be a positive integer, got ${maxSteps}`,
    });
  }
  const stored = memory ? await memory.load(sessionId) : undefined;
  if (stored?.ended) {
    throw toolCallError({
      code: 'VERSION_CONFLICT',
      message: `session ${sessionId} has ended (${stored.ended.outcome}) and takes no more runs; start a new session`,
    });
  }
  const previous = stored ? readSnapshot(sessionId, stored.snapshot) : undefined;
  let version = stored?.version ?? 0;
  const recalled = await recallFor(options);
  const remembered = previous === undefined ? recalled.preferences : [];
  const block = renderRemembered(remembered.map((r) => r.fact));
  const prompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  const messages: ConversationMessage[] = previous?.messages ?? [
    { role: 'system', content: block === '' ? prompt : `${prompt}\n\n${block}` },
  ];
  messages.push({ role: 'user', content: task });
  let sessionSteps = previous?.steps ?? 0;
  const calls: SnapshotCall[] = previous?.calls ?? [];

  const tools = await client.listTools({
    task,
    format: 'openai',
    sessionId,
    ...(options.topK ? { topK: options.topK } : {}),
  });
  const context: ToolCallContext = {
    client,
    offered: new Map(tools.map((tool) => [tool.name, tool])),
    sessionId,
    ...(options.compaction ? { compaction: options.compaction } : {}),
    ...(options.completionWaitMs ? { completionWaitMs: options.completionWaitMs } : {}),
  };
  const skills = offerableSkills(recalled.skills, context.offered);
  const functions = [
    ...openaiToolsFor(tools),
    ...localFunctions(options.localTools ?? []),
    ...skills.map(skillFunction),
  ];
  const llm = openaiClient(options.llm);
  const steps: AgentStep[] = [];

  const maxBytes = options.maxConversationBytes ?? 192 * 1024;
  const bound = (): void => {
    const kept = trimConversation(messages, maxBytes);
    if (kept.dropped > 0) messages.splice(0, messages.length, ...kept.messages);
  };
  let memoryFailed = false;
  const save = async (status: AgentSnapshot['status']): Promise<number | undefined> => {
    bound();
    if (!memory) return undefined;
    calls.splice(0, calls.length, ...callsOf(calls, messages));
    const snapshot: AgentSnapshot = {
      format: SNAPSHOT_FORMAT,
      messages,
      steps: sessionSteps,
      task,
      status,
      updatedAt: new Date().toISOString(),
      calls,
    };
    try {
      version = await memory.save(sessionId, snapshotToJson(snapshot), version);
    } catch (err) {
      memoryFailed = true;
      throw err;
    }
    return version;
  };
  /** Ends the stored session (when there is one to end and the run may); never throws. */
  const end = async (outcome: SessionEndOutcome): Promise<AgentSessionEnd | undefined> => {
    if (!memory?.end || options.endSession !== true || version === 0 || memoryFailed) {
      return undefined;
    }
    try {
      const ended = await memory.end(sessionId, outcome, version);
      version = ended.version;
      return { outcome, ...ended };
    } catch (err) {
      const message = `could not end session ${sessionId} as ${outcome}: ${(err as Error)?.message ?? String(err)}`;
      options.onWarning?.(message, err);
      return { outcome, error: message };
    }
  };

  let result: { status: AgentRun['status']; answer: string | null };
  try {
    result = await loop();
  } catch (err) {
    await end(options.signal?.aborted ? 'abandoned' : 'failed');
    throw err;
  }
  const sessionEnd = await end(result.status === 'answered' ? 'succeeded' : 'failed');
  return {
    ...result,
    steps,
    sessionId,
    ...(memory ? { sessionVersion: version } : {}),
    messages,
    tools,
    ...(sessionEnd ? { sessionEnd } : {}),
    remembered,
    skills,
  };

  /** One call of an offered tool through Tollgate, kept in the session's record of calls. */
  async function governed(
    call: ConversationToolCall,
    idempotencyKey: string,
  ): Promise<{ content: string; record: AgentToolCall }> {
    const done = await runToolCall(call, context, idempotencyKey);
    const offered = context.offered.get(done.record.tool);
    calls.push({
      id: call.id,
      tool: done.record.tool,
      resource: offered?.resource ?? '',
      operation: offered?.operation ?? '',
      status: done.record.status,
      ...(done.record.callId ? { callId: done.record.callId } : {}),
    });
    return done;
  }

  async function loop(): Promise<{ status: AgentRun['status']; answer: string | null }> {
    for (let step = 1; step <= maxSteps; step += 1) {
      bound();
      const reply = await complete(llm, options, messages, functions);
      sessionSteps += 1;
      const toolCalls = reply.tool_calls ?? [];
      messages.push({
        role: 'assistant',
        content: reply.content ?? null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
      const record: AgentStep = { step, assistant: reply.content ?? null, toolCalls: [] };
      let localAnswer: string | undefined;
      for (const call of toolCalls) {
        const local = options.localTools?.find((t) => t.name === call.function.name);
        if (local !== undefined) {
          const done = await runLocalTool(local, call, task);
          messages.push({ role: 'tool', tool_call_id: call.id, content: done.content });
          record.toolCalls.push(done.record);
          localAnswer ??= done.answer;
          continue;
        }
        const skill = skills.find((k) => k.functionName === call.function.name);
        if (skill !== undefined) {
          const done = await runSkillCall(skill, call, governed);
          messages.push({ role: 'tool', tool_call_id: call.id, content: done.content });
          record.toolCalls.push(done.record);
          continue;
        }
        const done = await governed(call, `${sessionId}:${sessionSteps}:${call.id}`);
        messages.push({ role: 'tool', tool_call_id: call.id, content: done.content });
        record.toolCalls.push(done.record);
      }
      const answered = toolCalls.length === 0 || localAnswer !== undefined;
      const saved = await save(
        answered ? 'answered' : step === maxSteps ? 'step_limit' : 'running',
      );
      if (saved !== undefined) record.sessionVersion = saved;
      steps.push(record);
      await options.onStep?.(record);
      if (answered) return { status: 'answered', answer: localAnswer ?? reply.content ?? '' };
    }
    return { status: 'step_limit', answer: null };
  }
}

/** A local tool's call; its failures become the tool message, like Tollgate tools' do. */
async function runLocalTool(
  tool: LocalTool,
  call: ConversationToolCall,
  task: string,
): Promise<{ content: string; record: AgentToolCall; answer?: string }> {
  let args: JsonObject = {};
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      args = parsed as JsonObject;
  } catch {
    // Local tools read the person's words (`task`), not the model's arguments.
  }
  const base = { id: call.id, tool: tool.name, arguments: args };
  try {
    const result = await tool.run(args, { task });
    return {
      content: JSON.stringify(result.content),
      record: { ...base, status: 'ok' },
      ...(result.answer !== undefined ? { answer: result.answer } : {}),
    };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    return {
      content: JSON.stringify({ status: 'error', message }),
      record: {
        ...base,
        status: 'error',
        error: { code: 'INTERNAL', category: 'needs_human', message },
      },
    };
  }
}

/** What memory remembers for the run's task; a failure is a warning, not a failed run. */
async function recallFor(options: RunAgentOptions): Promise<Recalled> {
  if (options.recall === undefined) return { preferences: [], skills: [] };
  try {
    return await options.recall.recall({ task: options.task, sessionId: options.sessionId });
  } catch (err) {
    options.onWarning?.(`memory recall failed: ${(err as Error)?.message ?? String(err)}`, err);
    return { preferences: [], skills: [] };
  }
}

/**
 * A call of a recalled skill: its steps, each a governed call of its own (its own call id and
 * idempotency key, in the run's record and the session's), and one tool message for the model.
 */
async function runSkillCall(
  skill: RecalledSkill,
  call: ConversationToolCall,
  governed: (
    call: ConversationToolCall,
    idempotencyKey: string,
  ) => Promise<{ content: string; record: AgentToolCall }>,
): Promise<{ content: string; record: AgentToolCall }> {
  let args: JsonValue;
  try {
    args = JSON.parse(call.function.arguments || '{}') as JsonValue;
  } catch {
    args = call.function.arguments;
  }
  const stepCalls: AgentToolCall[] = [];
  const run = await runSkill(skill, args, async (step, stepArgs) => {
    const id = `${call.id}.${step.id}`;
    const done = await governed(
      { id, type: 'function', function: { name: step.tool, arguments: JSON.stringify(stepArgs) } },
      `skill:${skill.id}:${skill.revision}:${id}`,
    );
    stepCalls.push(done.record);
    const message = readToolMessage(done.content);
    return {
      status: done.record.status,
      ...(done.record.status === 'ok' ? { data: message?.['data'] ?? null } : {}),
      ...(done.record.error ? { error: done.record.error } : {}),
    };
  });
  const record: AgentToolCall = {
    id: call.id,
    tool: skill.functionName,
    arguments:
      typeof args === 'object' && args !== null && !Array.isArray(args) ? args : String(args),
    status: run.error ? 'error' : 'ok',
    ...(run.error ? { error: run.error } : {}),
    skillSteps: stepCalls,
  };
  return { content: JSON.stringify(run.content), record };
}

function readToolMessage(content: string): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(content);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : undefined;
  } catch {
    return undefined;
  }
}

interface ModelReply {
  content: string | null;
  tool_calls?: ConversationToolCall[];
}

async function complete(
  llm: OpenAI,
  options: RunAgentOptions,
  messages: ConversationMessage[],
  openaiTools: ChatCompletionFunctionTool[],
): Promise<ModelReply> {
  const completion = await llm.chat.completions
    .create(
      {
        model: options.llm.model,
        messages,
        ...(openaiTools.length > 0 ? { tools: openaiTools, tool_choice: 'auto' as const } : {}),
        ...(options.llm.temperature !== undefined ? { temperature: options.llm.temperature } : {}),
      },
      options.signal ? { signal: options.signal } : {},
    )
    .catch((err: unknown) => {
      throw llmError(err);
    });
  const message = completion.choices[0]?.message;
  if (message === undefined) {
    throw toolCallError({
      code: 'UPSTREAM_BAD_RESPONSE',
      message: 'the model returned no choices',
    });
  }
  const calls: ConversationToolCall[] = (message.tool_calls ?? []).map((call, i) =>
    call.type === 'function'
      ? {
          id: call.id || `call_${i}`,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments },
        }
      : {
          id: call.id || `call_${i}`,
          type: 'function',
          function: { name: call.custom.name, arguments: call.custom.input },
        },
  );
  return { content: message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}
