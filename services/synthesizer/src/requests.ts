/**
 * Validation of ListTools / GetTool requests into typed queries. Every problem is reported at
 * once, each naming its field and what would have been accepted; nothing is acted on otherwise.
 */
import type { Principal as WirePrincipal } from '@tollgate/contracts/common/v1';
import type { GetToolRequest, ListToolsRequest } from '@tollgate/contracts/synthesizer/v1';
import { TollgateError } from '@tollgate/core';
import type { ErrorDetail, ToolFormat } from '@tollgate/core';
import { formatOf } from './formats.js';

/** Resources a ranked listing returns by default, and at most. */
export const DEFAULT_TOP_K = 10;
export const MAX_TOP_K = 50;
export const MAX_TASK_LENGTH = 4_000;
/** Session ids as the memory service accepts them. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Tool names as synthesis makes them (`<resource>_<operation>`, at most 64 characters). */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Agent, tenant and environment names as tokens carry them. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MAX_USER_LENGTH = 256;

/** Which plane a request came in on: agents (NATS) or operators and services (gRPC). */
export type Plane = 'data' | 'control';

/** A principal a control-plane caller asks to act for; checked against the caller later. */
export interface RequestedPrincipal {
  /** Empty: the caller's tenant. */
  tenant: string;
  agent: string;
  /** Empty: the caller's environment. */
  environment: string;
  user?: string;
}

export interface ListQuery {
  /** Trimmed; empty when no task was given. */
  task: string;
  format: ToolFormat;
  /** Resources to return: 1..50, or 0 for the default (10 with a task, all without). */
  topK: number;
  /** Empty when none was given. */
  sessionId: string;
  principal?: RequestedPrincipal;
}

export interface ToolQuery {
  name: string;
  format: ToolFormat;
  principal?: RequestedPrincipal;
}

export function listQuery(request: ListToolsRequest, plane: Plane): ListQuery {
  const problems: ErrorDetail[] = [];
  const task = request.task.trim();
  if (task.length > MAX_TASK_LENGTH) {
    problems.push({
      path: 'task',
      message: `task is longer than ${MAX_TASK_LENGTH} characters`,
      expected: `at most ${MAX_TASK_LENGTH} characters`,
      found: `${task.length} characters`,
    });
  }
  const format = checked(problems, () => formatOf(request.format));
  if (request.topK > MAX_TOP_K) {
    problems.push({
      path: 'top_k',
      message: `top_k must be between 1 and ${MAX_TOP_K} (0 for the default)`,
      expected: `0..${MAX_TOP_K}`,
      found: String(request.topK),
    });
  }
  if (request.sessionId !== '' && !SESSION_ID.test(request.sessionId)) {
    problems.push({
      path: 'session_id',
      message: 'session_id must be 1-128 of A-Z a-z 0-9 . _ : - starting with a letter or digit',
      expected: '1-128 of A-Z a-z 0-9 . _ : -',
      found: preview(request.sessionId),
    });
  }
  const principal = requestedPrincipal(request.principal, plane, problems);
  throwIfAny(problems, 'ListTools');
  return {
    task,
    format: format as ToolFormat,
    topK: request.topK,
    sessionId: request.sessionId,
    ...(principal !== undefined ? { principal } : {}),
  };
}

export function toolQuery(request: GetToolRequest, plane: Plane): ToolQuery {
  const problems: ErrorDetail[] = [];
  if (!TOOL_NAME.test(request.name)) {
    problems.push({
      path: 'name',
      message:
        request.name === ''
          ? 'name is required'
          : 'name is not a tool name (<resource>_<operation>, at most 64 characters)',
      expected: '<resource>_<operation>, e.g. es_orders_search',
      found: preview(request.name),
    });
  }
  const format = checked(problems, () => formatOf(request.format));
  const principal = requestedPrincipal(request.principal, plane, problems);
  throwIfAny(problems, 'GetTool');
  return {
    name: request.name,
    format: format as ToolFormat,
    ...(principal !== undefined ? { principal } : {}),
  };
}

function requestedPrincipal(
  principal: WirePrincipal | undefined,
  plane: Plane,
  problems: ErrorDetail[],
): RequestedPrincipal | undefined {
  if (principal === undefined) return undefined;
  if (plane === 'data') {
    problems.push({
      path: 'principal',
      message: 'principal must not be set here: an agent acts as the principal of its token',
      expected: 'no principal',
    });
    return undefined;
  }
  const before = problems.length;
  const name = (path: string, value: string, required: boolean): void => {
    if (value === '' ? required : !NAME.test(value)) {
      problems.push({
        path,
        message: `${path} must be a name (a-z 0-9 _ -, at most 63)`,
        expected: 'a-z 0-9 _ -, starting with a letter or digit',
        found: preview(value),
      });
    }
  };
  name('principal.tenant', principal.tenant, false);
  name('principal.agent', principal.agent, true);
  name('principal.environment', principal.environment, false);
  if (principal.user.length > MAX_USER_LENGTH || /\p{Cc}/u.test(principal.user)) {
    problems.push({
      path: 'principal.user',
      message: `principal.user must be at most ${MAX_USER_LENGTH} characters without control characters`,
      found: preview(principal.user),
    });
  }
  if (principal.roles.length > 0) {
    problems.push({
      path: 'principal.roles',
      message: 'principal.roles must be empty: roles come from the policy bundle',
      expected: 'no roles',
      found: `${principal.roles.length} roles`,
    });
  }
  if (problems.length > before) return undefined;
  return {
    tenant: principal.tenant,
    agent: principal.agent,
    environment: principal.environment,
    ...(principal.user !== '' ? { user: principal.user } : {}),
  };
}

function checked<T>(problems: ErrorDetail[], read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof TollgateError)) throw err;
    problems.push(...err.details);
    return undefined;
  }
}

function throwIfAny(problems: ErrorDetail[], method: string): void {
  if (problems.length === 0) return;
  const summary = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  throw new TollgateError('INVALID_ARGUMENT', `Invalid ${method} request: ${summary}.`, {
    details: problems,
  });
}

function preview(value: string): string {
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  return JSON.stringify(shown);
}
