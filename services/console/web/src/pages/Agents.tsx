import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, time } from '../components/Json.js';
import { TextEditor } from '../components/TextEditor.js';
import { DiffTable } from '../components/DiffTable.js';
import type { DiffRow } from '../components/DiffTable.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';
import type { ResourceVersion } from './Resources.js';

export interface AgentRecord {
  name: string;
  version: number;
  roles: string[];
  description: string;
  user: string;
  deleted: boolean;
  createdAt: string;
  createdBy: string;
  descriptor: unknown;
}
interface PolicyRecord {
  name: string;
  version: number;
  descriptor: { metadata?: { description?: string } };
  createdAt: string;
  createdBy: string;
  deleted: boolean;
}
interface ToolDef {
  name: string;
  resource: string;
  operation: string;
}
interface Explained {
  effect: string;
  decision?: { policyIds: string[]; reason: string };
  matches: Array<{ policyId: string; effect: string; policyName: string }>;
  errors: string[];
  permissionSet?: {
    operations: string[];
    visibleFields: string[];
    filterableFields: string[];
    limitCap: number;
  };
  trace?: unknown;
}

export function useAgents() {
  return useQuery({
    queryKey: ['agents'],
    queryFn: () => api.get<{ agents: AgentRecord[] }>('/api/agents'),
  });
}

export default function Agents() {
  const session = useSession();
  const agents = useAgents();
  const policies = useQuery({
    queryKey: ['policies'],
    queryFn: () => api.get<{ policies: PolicyRecord[] }>('/api/policies'),
  });
  return (
    <section>
      <h1>Agents and policies</h1>
      <ErrorBox error={agents.error ?? policies.error} />
      <div className="grid2">
        <div>
          <h2>Agents</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Roles</th>
                <th scope="col">Acts for</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {(agents.data?.agents ?? [])
                .filter((a) => !a.deleted)
                .map((a) => (
                  <tr key={a.name}>
                    <td>{a.name}</td>
                    <td>{a.roles.join(', ')}</td>
                    <td>{a.user}</td>
                    <td>{a.description}</td>
                  </tr>
                ))}
            </tbody>
          </table>
          {session.can.manage && <AgentEditor />}
        </div>
        <div>
          <h2>Policies</h2>
          {session.can.manage && (
            <p>
              <Link to="/policies/new" className="button primary">
                New policy
              </Link>
            </p>
          )}
          <table>
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col">Version</th>
                <th scope="col">Description</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {(policies.data?.policies ?? [])
                .filter((p) => !p.deleted)
                .map((p) => (
                  <tr key={p.name}>
                    <td>
                      <Link to={`/policies/${p.name}`}>{p.name}</Link>
                    </td>
                    <td>v{p.version}</td>
                    <td>{p.descriptor.metadata?.description}</td>
                    <td>
                      {time(p.createdAt)} by {p.createdBy}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </div>
      {session.can.explain && <Explain agents={agents.data?.agents ?? []} />}
    </section>
  );
}

function AgentEditor() {
  const session = useSession();
  const [text, setText] = useState(
    `apiVersion: tollgate.dev/v1\nkind: Agent\nmetadata:\n  name: new_agent\n  tenant: ${session.tenant}\nspec:\n  roles: [support]\n  description: What this agent does.\n`,
  );
  const [diff, setDiff] = useState<DiffRow[]>();
  const dry = useMutation({
    mutationFn: () =>
      api.post<{ diff: DiffRow[] }>('/api/agents/apply', { yaml: text, dryRun: true }),
    onSuccess: (r) => setDiff(r.diff),
  });
  const apply = useMutation({
    mutationFn: () =>
      api.post<{ agent: { name: string; version: number } }>('/api/agents/apply', { yaml: text }),
  });
  return (
    <details className="panel">
      <summary>Declare or change an agent</summary>
      <TextEditor
        label="Agent descriptor (YAML)"
        value={text}
        onChange={(t) => {
          setText(t);
          setDiff(undefined);
        }}
        rows={10}
      />
      <div className="row">
        <button type="button" onClick={() => dry.mutate()}>
          Review changes
        </button>
        <button
          type="button"
          className="primary"
          disabled={diff === undefined}
          onClick={() => apply.mutate()}
        >
          Apply
        </button>
      </div>
      <ErrorBox error={dry.error ?? apply.error} />
      {diff && <DiffTable rows={diff} caption="Changes" />}
      {apply.data && (
        <p role="status">
          Applied {apply.data.agent.name} version {apply.data.agent.version}.
        </p>
      )}
    </details>
  );
}

function Explain({ agents }: { agents: AgentRecord[] }) {
  const session = useSession();
  const [agent, setAgent] = useState('');
  const [resource, setResource] = useState('');
  const [action, setAction] = useState('');
  const [field, setField] = useState('');
  const resources = useQuery({
    queryKey: ['resources', 'explain'],
    queryFn: () => api.get<{ resources: ResourceVersion[] }>('/api/resources'),
  });
  const tools = useQuery({
    queryKey: ['tools', agent],
    queryFn: () => api.get<{ tools: ToolDef[] }>(`/api/tools${query({ agent })}`),
    enabled: agent !== '' && session.can.manage,
  });
  const explain = useMutation({
    mutationFn: () => api.post<Explained>('/api/explain', { agent, resource, action }),
  });
  const p = explain.data?.permissionSet;
  return (
    <div className="panel">
      <h2>Explain a decision</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          explain.mutate();
        }}
      >
        <label>
          Agent
          <select value={agent} onChange={(e) => setAgent(e.target.value)} required>
            <option value="">—</option>
            {agents.map((a) => (
              <option key={a.name}>{a.name}</option>
            ))}
          </select>
        </label>
        {tools.data && (
          <label>
            Tool
            <select
              value=""
              onChange={(e) => {
                const t = tools.data.tools.find((x) => x.name === e.target.value);
                if (t) {
                  setResource(t.resource);
                  setAction(t.operation);
                }
              }}
            >
              <option value="">pick a tool…</option>
              {tools.data.tools.map((t) => (
                <option key={t.name}>{t.name}</option>
              ))}
            </select>
          </label>
        )}
        <label>
          Resource
          <select value={resource} onChange={(e) => setResource(e.target.value)} required>
            <option value="">—</option>
            {(resources.data?.resources ?? []).map((r) => (
              <option key={r.name}>{r.name}</option>
            ))}
          </select>
        </label>
        <label>
          Action
          <input
            value={action}
            onChange={(e) => setAction(e.target.value)}
            list="explain-actions"
            required
          />
          <datalist id="explain-actions">
            {(p?.operations ?? []).map((o) => (
              <option key={o} value={o} />
            ))}
          </datalist>
        </label>
        <label>
          Field (optional)
          <input value={field} onChange={(e) => setField(e.target.value)} list="explain-fields" />
          <datalist id="explain-fields">
            {(p?.visibleFields ?? []).map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
        </label>
        <button type="submit" className="primary">
          Explain
        </button>
      </form>
      <ErrorBox error={explain.error} />
      {explain.data && (
        <div>
          <p>
            <strong
              data-testid="explain-effect"
              className={
                explain.data.effect === 'ALLOW'
                  ? 'ok'
                  : explain.data.effect === 'DENY'
                    ? 'error'
                    : 'warn'
              }
            >
              {explain.data.effect === 'REQUIRE_APPROVAL'
                ? 'needs approval'
                : explain.data.effect.toLowerCase()}
            </strong>{' '}
            — {explain.data.decision?.reason}
          </p>
          <p>Deciding policies: {(explain.data.decision?.policyIds ?? []).join(', ') || 'none'}</p>
          {field !== '' && p && (
            <p data-testid="explain-field">
              Field <code>{field}</code>: {p.visibleFields.includes(field) ? 'visible' : 'hidden'}{' '}
              in results,{' '}
              {p.filterableFields.includes(field) ? 'may be filtered on' : 'may not be filtered on'}
              .
            </p>
          )}
          {p && (
            <p className="muted">
              May: {p.operations.join(', ') || 'nothing'} · limit ≤ {p.limitCap} · sees{' '}
              {p.visibleFields.length} fields, filters on {p.filterableFields.length}
            </p>
          )}
          <h3>Matching policies</h3>
          <ul>
            {explain.data.matches.map((m) => (
              <li key={m.policyId}>
                {m.policyName || 'resource access block'} ({m.policyId}):{' '}
                {m.effect.replace('DECISION_EFFECT_', '').toLowerCase()}
              </li>
            ))}
          </ul>
          {explain.data.errors.length > 0 && (
            <p className="error">{explain.data.errors.join('; ')}</p>
          )}
          <details>
            <summary>Full trace</summary>
            <Json value={explain.data.trace} label="Explain trace" />
          </details>
        </div>
      )}
    </div>
  );
}
