import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { secretReason } from '@tollgate/core';
import type {
  AgentRun,
  MemoryServiceSessionStore,
  RecalledPreference,
  RegistrationTurn,
} from '@tollgate/sdk';
import type { ActionRunner, CliContext } from '../context.js';
import { openAgentModel } from '../agent/model.js';
import type { AgentModel } from '../agent/model.js';
import { renderStep } from '../render/agent.js';
import { serviceAddress } from '../stack/services.js';
import { positiveInt } from './parse.js';

interface ChatOptions {
  as: string;
  user?: string;
  session?: string;
  message?: string[];
  maxSteps: string;
  waitApproval?: string;
  memory: boolean;
  keepOpen?: boolean;
}

/** `tollgate chat --as AGENT`: the agent loop, interactive (or with --message, scripted). */
export function registerChat(program: Command, run: ActionRunner): void {
  program
    .command('chat')
    .description(
      'talk to an agent that uses its Tollgate tools (the agent loop), line by line on stdin',
    )
    .requiredOption('--as <agent>', 'the agent')
    .option(
      '--user <name>',
      'the person the agent acts for (default TOLLGATE_USER or the login name)',
    )
    .option('--session <id>', 'continue this conversation (default: a new one)')
    .option('-m, --message <text...>', 'send these messages instead of reading stdin')
    .option('--max-steps <n>', 'model turns per message at most', '8')
    .option('--wait-approval <seconds>', 'wait this long for calls parked for approval')
    .option('--no-memory', 'do not keep the conversation in the memory service')
    .option(
      '--keep-open',
      'leave the session open to continue it later with --session (default: end it when the chat ends, so memory can learn from it)',
    )
    .action(
      run(async (ctx, options: ChatOptions) => {
        const maxSteps = positiveInt('--max-steps', options.maxSteps);
        const {
          MemoryServiceRecall,
          MemoryServiceSessionStore,
          ResourceConversation,
          registrationTool,
          runAgent,
        } = await import('@tollgate/sdk');
        const waitMs = options.waitApproval
          ? positiveInt('--wait-approval', options.waitApproval) * 1000
          : 0;
        const user = options.user ?? ctx.user();
        const sessionId = options.session ?? randomUUID();
        const client = await ctx.agentClient(options.as, { user });
        const model = await openAgentModel(ctx.env);
        ctx.onClose(() => model.close());
        const memory = options.memory
          ? new MemoryServiceSessionStore({
              address: serviceAddress('memory', ctx.env),
              token: await ctx.agentToken(options.as, { user, ttlSeconds: 3600 }),
            })
          : undefined;
        if (memory) ctx.onClose(() => memory.close());
        const recall = options.memory
          ? new MemoryServiceRecall({
              address: serviceAddress('memory', ctx.env),
              token: await ctx.agentToken(options.as, { user, ttlSeconds: 3600 }),
            })
          : undefined;
        if (recall) ctx.onClose(() => recall.close());
        ctx.out.note(
          `${ctx.out.style.bold(`chat as ${options.as}`)} for ${user} · session ${sessionId}\nmodel: ${model.scripted ? ctx.out.style.magenta(model.label) : model.label}`,
        );
        // Registration by conversation: the model may start it (a tool); while a draft awaits
        // an answer, the person's replies go to the conversation itself, never to the model.
        const registration = new ResourceConversation({
          llm: model.llm,
          registry: {
            address: serviceAddress('registry', ctx.env),
            token: await ctx.agentToken(options.as, { user, ttlSeconds: 3600 }),
          },
          sessionId,
          ...(ctx.env.TOLLGATE_CREDENTIAL_NAMESPACES
            ? { credentialNamespaces: ctx.env.TOLLGATE_CREDENTIAL_NAMESPACES }
            : {}),
        });
        const turns: ChatTurn[] = [];
        let lastRun: AgentRun | undefined;
        let remembered: RecalledPreference[] | undefined;
        const offeredSkills = new Set<string>();
        const ask = async (message: string) => {
          if (registration.pending !== undefined || secretReason(message) !== undefined) {
            const turn = await registration.say(message);
            const said = turn.state === 'refused_secret' ? WITHHELD : message;
            turns.push({ message: said, registration: plainTurn(turn) });
            ctx.out.line(`${ctx.out.style.bold(`${options.as}:`)} ${turn.reply}`);
            return;
          }
          const result = await runAgent({
            localTools: [registrationTool(registration)],
            client,
            llm: model.llm,
            task: message,
            sessionId,
            maxSteps,
            // Preferences are shown when the conversation starts (as data); approved skills
            // are offered as functions at every run.
            ...(recall ? { recall } : {}),
            onWarning: (warning) => ctx.out.warn(warning),
            ...(memory ? { memory } : {}),
            ...(waitMs > 0 ? { completionWaitMs: waitMs } : {}),
            onStep: (step) => {
              if (step.toolCalls.length > 0) ctx.out.line(renderStep(step, ctx.out.style));
            },
          });
          if (remembered === undefined) {
            remembered = result.remembered;
            for (const p of remembered) ctx.out.note(ctx.out.style.dim(`remembered: ${p.text}`));
          }
          for (const skill of result.skills) {
            if (offeredSkills.has(skill.functionName)) continue;
            offeredSkills.add(skill.functionName);
            ctx.out.note(
              ctx.out.style.dim(
                `skill offered: ${skill.functionName} (revision ${skill.revision}, approved by ${skill.approvedBy})`,
              ),
            );
          }
          lastRun = result;
          turns.push({ message, run: plainRun(result) });
          ctx.out.line(
            `${ctx.out.style.bold(`${options.as}:`)} ${result.answer ?? ctx.out.style.dim('(no answer: step limit reached)')}`,
          );
        };
        const end = (outcome: 'succeeded' | 'failed') =>
          memory && !options.keepOpen && lastRun?.sessionVersion
            ? endChat(ctx, memory, sessionId, outcome, lastRun.sessionVersion)
            : Promise.resolve(undefined);
        try {
          if (options.message && options.message.length > 0) {
            for (const message of options.message) {
              const shown = secretReason(message) === undefined ? message : WITHHELD;
              ctx.out.line(`${ctx.out.style.bold('you:')} ${shown}`);
              await ask(message);
            }
          } else {
            await readLines(ctx, model, ask);
          }
        } catch (err) {
          await end('failed');
          throw err;
        }
        const ended = await end(lastRun?.status === 'answered' ? 'succeeded' : 'failed');
        ctx.out.result(
          {
            agent: options.as,
            user,
            sessionId,
            model: modelInfo(model),
            remembered: remembered ?? [],
            turns,
            ...(ended ? { ended } : {}),
          },
          '',
        );
      }),
    );
}

async function readLines(
  ctx: CliContext,
  model: AgentModel,
  ask: (message: string) => Promise<void>,
): Promise<void> {
  const input = ctx.io.stdin ?? process.stdin;
  const interactive = (input as NodeJS.ReadStream).isTTY === true && !ctx.out.json;
  const lines = createInterface({
    input,
    terminal: interactive,
    ...(interactive ? { output: process.stdout } : {}),
  });
  if (interactive) {
    ctx.out.note(
      ctx.out.style.dim(
        `type a request (empty line or Ctrl-D to quit)${model.scripted ? '; the scripted model looks orders up: "find order 12345"' : ''}`,
      ),
    );
  }
  if (interactive) {
    lines.setPrompt('> ');
    lines.prompt();
  }
  for await (const raw of lines) {
    const message = raw.trim();
    if (message === '' && interactive) break;
    if (message !== '') {
      // Piped input is not echoed by a terminal: show it, so the transcript reads in order.
      if (!interactive) {
        const shown = secretReason(message) === undefined ? message : WITHHELD;
        ctx.out.line(`${ctx.out.style.bold('you:')} ${shown}`);
      }
      await ask(message);
    }
    if (interactive) lines.prompt();
  }
  lines.close();
}

/**
 * Ends the chat's session with the last turn's outcome; memory may propose what the session
 * did as a skill for a person to review. A failure only costs the ending (the session expires).
 */
async function endChat(
  ctx: CliContext,
  memory: MemoryServiceSessionStore,
  sessionId: string,
  outcome: 'succeeded' | 'failed',
  version: number,
): Promise<{ outcome: string; skillCandidateId: string } | undefined> {
  try {
    const { skillCandidateId } = await memory.end(sessionId, outcome, version);
    ctx.out.note(
      ctx.out.style.dim(
        `session ${sessionId} ended (${outcome})${skillCandidateId ? `; memory proposed a skill from it for review (candidate ${skillCandidateId})` : ''}`,
      ),
    );
    return { outcome, skillCandidateId };
  } catch (err) {
    ctx.out.warn(`could not end session ${sessionId}: ${ctx.failureOf(err).message}`);
    return undefined;
  }
}

/** What a transcript shows instead of a message that held a credential. */
const WITHHELD = '[withheld: the message held a credential]';

type ChatTurn =
  | { message: string; run: ReturnType<typeof plainRun> }
  | { message: string; registration: ReturnType<typeof plainTurn> };

/** A registration turn as JSON output: its state and reply, the draft or the saved version. */
function plainTurn(turn: RegistrationTurn) {
  return {
    state: turn.state,
    reply: turn.reply,
    ...(turn.draft ? { draftId: turn.draft.draftId, descriptor: turn.draft.descriptor } : {}),
    ...(turn.resource ? { resource: turn.resource } : {}),
  };
}

function modelInfo(model: AgentModel) {
  return { scripted: model.scripted, model: model.llm.model, baseURL: model.llm.baseURL };
}

/**
 * A run as JSON output: the answer and each step's calls, each with what the model read back
 * (the compacted result or error), without the rest of the conversation.
 */
export function plainRun(run: AgentRun) {
  const readBack = new Map<string, unknown>();
  for (const message of run.messages) {
    if (message.role !== 'tool') continue;
    try {
      readBack.set(message.tool_call_id, JSON.parse(message.content));
    } catch {
      readBack.set(message.tool_call_id, message.content);
    }
  }
  return {
    status: run.status,
    answer: run.answer,
    steps: run.steps.map((step) => ({
      ...step,
      toolCalls: step.toolCalls.map((call) => ({ ...call, result: readBack.get(call.id) ?? null })),
    })),
    toolsOffered: run.tools.map((t) => t.name),
    skillsOffered: run.skills.map((s) => s.functionName),
  };
}
