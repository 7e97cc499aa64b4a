import type { AgentStep, AgentToolCall } from '@tollgate/sdk';
import type { Style } from '../output/style.js';
import { traceText } from './trace.js';

/** A step of the agent loop for people: each structured call and how it went. */
export function renderStep(step: AgentStep, style: Style): string {
  return step.toolCalls.map((call) => renderToolCall(call, style)).join('\n');
}

export function renderToolCall(call: AgentToolCall, style: Style): string {
  const args =
    typeof call.arguments === 'string' ? call.arguments : JSON.stringify(compact(call.arguments));
  const head = `  ${style.cyan('→')} ${style.bold(call.tool)} ${style.dim(args)}`;
  const trace = call.meta?.traceId ? style.dim(` · ${traceText(call.meta.traceId)}`) : '';
  let result: string;
  switch (call.status) {
    case 'ok':
      result = call.skillSteps
        ? `${style.green('ok')} ${call.skillSteps.length} step(s), each a call of its own:`
        : `${style.green('ok')} ${call.meta ? `${call.meta.returned}${call.meta.total !== undefined ? ` of ${call.meta.total}` : ''} returned` : ''}`;
      break;
    case 'error':
      result = `${style.red('error')} ${call.error?.code ?? ''} (${call.error?.category ?? ''}): ${call.error?.message ?? ''}`;
      break;
    case 'pending_approval':
      result = style.yellow('pending approval');
      break;
    case 'accepted':
      result = style.cyan('accepted');
      break;
  }
  const steps = (call.skillSteps ?? []).map((step) =>
    renderToolCall(step, style)
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n'),
  );
  return [`${head}\n  ${style.cyan('←')} ${result}${trace}`, ...steps].join('\n');
}

/** Arguments without the `null`s strict-mode tools are filled with. */
export function compact(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
}
