import { useEffect, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, enumName } from '../components/Json.js';
import { SchemaForm } from '../components/SchemaForm.js';
import { deref, typeOf } from '../components/schema.js';
import type { Schema } from '../components/schema.js';
import { useLiveEvents } from '../events.js';
import { Link, useLocation } from '../router.js';
import { useSession } from '../session.js';
import { useAgents } from './Agents.js';
import { AuditRecords } from './Audit.js';
import type { AuditRecord } from './Audit.js';

interface ToolDef {
  name: string;
  description: string;
  version: string;
  resource: string;
  resourceVersion: number;
  operation: string;
  inputSchema: Schema;
  resourceKind: string;
}
interface CallReply {
  callId: string;
  traceId?: string;
  result: {
    callId: string;
    status: string;
    data?: unknown;
    error?: { code: string; category: string; message: string; details: unknown[] };
    meta?: { traceId: string; latencyMs: number; returned: number; truncated: boolean };
    approvalId: string;
  };
}

function newId(): string {
  return crypto.randomUUID();
}

/** One tool's arguments, readably: name, type, allowed values, description. */
function SchemaSummary({ schema }: { schema: Schema }) {
  const props = Object.entries(schema.properties ?? {});
  return (
    <table>
      <caption className="muted">Arguments</caption>
      <thead>
        <tr>
          <th scope="col">Argument</th>
          <th scope="col">Type</th>
          <th scope="col">Allowed</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {props.map(([name, raw]) => {
          const s = deref(raw, schema);
          const items = s.items ? deref(s.items, schema) : undefined;
          const branches = items?.anyOf ?? s.anyOf;
          const allowed =
            s.enum ??
            items?.enum ??
            (branches
              ? branches.map((b) =>
                  Object.values(deref(b, schema).properties ?? {})
                    .map((p) => deref(p, schema).const)
                    .find((c) => c !== undefined),
                )
              : undefined);
          return (
            <tr key={name}>
              <td>
                <code>{name}</code>
                {schema.required?.includes(name) ? ' *' : ''}
              </td>
              <td>
                {typeOf(s) === 'array'
                  ? `array of ${items ? (typeOf(items) ?? 'choice') : 'any'}`
                  : typeOf(s)}
              </td>
              <td>
                {allowed
                  ? allowed
                      .filter((a) => a !== undefined)
                      .map(String)
                      .join(', ')
                  : s.minimum !== undefined || s.maximum !== undefined
                    ? `${s.minimum ?? ''}…${s.maximum ?? ''}`
                    : ''}
              </td>
              <td>{s.description}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Pick an agent, see its exact tools, fill the arguments, run the call, read envelope and audit. */
export default function Playground() {
  const session = useSession();
  const { search } = useLocation();
  const agents = useAgents();
  const [agent, setAgent] = useState(search.get('agent') ?? '');
  const [toolName, setToolName] = useState('');
  const [args, setArgs] = useState<unknown>({});
  const [asJson, setAsJson] = useState(false);
  const [jsonText, setJsonText] = useState('{}');
  const [sessionId] = useState(() => `console-${newId()}`);
  const [final, setFinal] = useState<CallReply['result']>();
  const tools = useQuery({
    queryKey: ['tools', agent],
    queryFn: () => api.get<{ tools: ToolDef[] }>(`/api/tools${query({ agent })}`),
    enabled: agent !== '' && session.can.manage,
  });
  const tool = tools.data?.tools.find((t) => t.name === toolName);
  useEffect(() => {
    setArgs({});
    setJsonText('{}');
    run.reset();
    setFinal(undefined);
  }, [toolName, agent]);
  const run = useMutation({
    mutationFn: () => {
      const parsed = asJson ? (JSON.parse(jsonText) as unknown) : (args ?? {});
      return api.post<CallReply>('/api/tools/call', {
        agent,
        tool: toolName,
        arguments: parsed,
        sessionId,
        idempotencyKey: newId(),
      });
    },
    onSuccess: () => setFinal(undefined),
  });
  const pendingCall =
    run.data?.result.status === 'CALL_STATUS_PENDING_APPROVAL' ? run.data.callId : undefined;
  useLiveEvents(['call.completed'], (e) => {
    if (pendingCall && e.callId === pendingCall) {
      void api
        .get<CallReply>(`/api/tools/calls/${pendingCall}${query({ agent })}`)
        .then((r) => setFinal(r.result));
    }
  });
  if (!session.can.manage)
    return <p>The tools playground needs the admin role: it makes calls as an agent.</p>;
  const outcome = final ?? run.data?.result;
  return (
    <section>
      <h1>Tools playground</h1>
      <div className="row">
        <label>
          Agent
          <select value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">—</option>
            {(agents.data?.agents ?? [])
              .filter((a) => !a.deleted)
              .map((a) => (
                <option key={a.name}>{a.name}</option>
              ))}
          </select>
        </label>
        <span className="muted">
          Calls run as the agent, for you ({session.user}), session {sessionId}.
        </span>
      </div>
      <ErrorBox error={tools.error} />
      <div className="grid2">
        <div>
          <h2>Tools offered to {agent || '…'}</h2>
          {tools.data && tools.data.tools.length === 0 && (
            <p>No tools are offered to this agent.</p>
          )}
          <ul aria-label="Offered tools">
            {(tools.data?.tools ?? []).map((t) => (
              <li key={t.name}>
                <button
                  type="button"
                  aria-pressed={t.name === toolName}
                  onClick={() => setToolName(t.name)}
                >
                  {t.name}
                </button>{' '}
                <span className="muted">
                  {t.resource} v{t.resourceVersion} · {t.operation}
                </span>
              </li>
            ))}
          </ul>
          {tool && (
            <div className="panel">
              <h3>{tool.name}</h3>
              <p>{tool.description}</p>
              <SchemaSummary schema={tool.inputSchema} />
              <details>
                <summary>Raw JSON schema</summary>
                <Json value={tool.inputSchema} label="Raw JSON schema" />
              </details>
            </div>
          )}
        </div>
        <div>
          {tool && (
            <>
              <h2>Arguments</h2>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={asJson}
                  onChange={(e) => {
                    setAsJson(e.target.checked);
                    setJsonText(JSON.stringify(args ?? {}, null, 2));
                  }}
                />
                Edit as JSON
              </label>
              {asJson ? (
                <label>
                  Arguments (JSON)
                  <textarea
                    rows={12}
                    value={jsonText}
                    onChange={(e) => setJsonText(e.target.value)}
                  />
                </label>
              ) : (
                <div className="panel">
                  <SchemaForm
                    label="Arguments"
                    schema={tool.inputSchema}
                    root={tool.inputSchema}
                    value={args}
                    onChange={(v) => setArgs(v ?? {})}
                  />
                </div>
              )}
              <button
                type="button"
                className="primary"
                onClick={() => run.mutate()}
                disabled={run.isPending}
              >
                Run {tool.name}
              </button>
              <ErrorBox error={run.error} />
            </>
          )}
          {run.data && outcome && (
            <div className="panel" aria-live="polite">
              <h2>Result</h2>
              <p>
                Status:{' '}
                <strong data-testid="call-status">
                  {enumName(outcome.status, 'CALL_STATUS_')}
                </strong>
                {outcome.error && ` — ${outcome.error.code}: ${outcome.error.message}`}
                {pendingCall && !final && ` — waiting for approval ${run.data.result.approvalId}`}
              </p>
              <p>
                Call <code>{run.data.callId}</code> · trace{' '}
                <code data-testid="trace-id">{outcome.meta?.traceId || run.data.traceId}</code> ·{' '}
                <Link to={`/audit${query({ callId: run.data.callId })}`}>
                  Open in the audit trail
                </Link>
              </p>
              <Json value={outcome} label="Envelope" />
              <CallAudit callId={run.data.callId} settled={!pendingCall || final !== undefined} />
            </div>
          )}
        </div>
      </div>
    </section>
  );
}

/**
 * The audit records a call produced. Audit stores the write-ahead `call.started` as the call
 * heads upstream and its outcome a moment after the answer, so the list is polled until a
 * record other than the start is there.
 */
function CallAudit({ callId, settled }: { callId: string; settled: boolean }) {
  const [open, setOpen] = useState(false);
  const records = useQuery({
    queryKey: ['audit', 'call', callId, settled],
    queryFn: () => api.get<{ records: AuditRecord[] }>(`/api/audit${query({ callId })}`),
    enabled: open,
    refetchInterval: (q) =>
      !settled || !(q.state.data?.records ?? []).some((r) => r.event.type !== 'call.started')
        ? 1000
        : false,
  });
  return (
    <div>
      <button type="button" onClick={() => setOpen(true)} disabled={open}>
        Show its audit record
      </button>
      {open &&
        (records.data?.records.length ? (
          <AuditRecords records={records.data.records} />
        ) : (
          <p className="muted">Waiting for the audit record…</p>
        ))}
    </div>
  );
}
