import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, time } from '../components/Json.js';
import { useLiveEvents } from '../events.js';
import type { LiveEvent } from '../events.js';
import { Link, navigate, useLocation } from '../router.js';

/** One stored audit record as the audit service returns it (the event is its proto JSON). */
export interface AuditRecord {
  id: string;
  tenant: string;
  sequence: string;
  recordedAt: string;
  hash: string;
  prevHash: string;
  event: {
    type: string;
    occurredAt: string;
    traceId: string;
    callCompleted?: {
      callId: string;
      sessionId: string;
      tool: string;
      status: string;
      principal?: { agent: string; user: string };
    };
    callDenied?: {
      callId: string;
      sessionId: string;
      tool: string;
      principal?: { agent: string; user: string };
    };
    callStarted?: {
      callId: string;
      sessionId: string;
      tool: string;
      principal?: { agent: string; user: string };
    };
    [key: string]: unknown;
  };
}

function facts(r: AuditRecord): {
  agent: string;
  tool: string;
  outcome: string;
  sessionId: string;
} {
  const c = r.event.callCompleted;
  const d = r.event.callDenied;
  if (c)
    return {
      agent: c.principal?.agent ?? '',
      tool: c.tool,
      outcome: c.status.replace('CALL_STATUS_', '').toLowerCase(),
      sessionId: c.sessionId,
    };
  if (d)
    return {
      agent: d.principal?.agent ?? '',
      tool: d.tool,
      outcome: 'denied',
      sessionId: d.sessionId,
    };
  const st = r.event.callStarted;
  if (st)
    return {
      agent: st.principal?.agent ?? '',
      tool: st.tool,
      outcome: 'started',
      sessionId: st.sessionId,
    };
  return { agent: '', tool: '', outcome: '', sessionId: '' };
}

export function AuditRecords({ records }: { records: AuditRecord[] }) {
  const [open, setOpen] = useState<string>();
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Agent</th>
          <th scope="col">Tool</th>
          <th scope="col">Outcome</th>
          <th scope="col">Trace</th>
          <th scope="col">
            <span className="muted">Details</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {records.map((r) => {
          const f = facts(r);
          return [
            <tr key={r.id} data-testid="audit-record">
              <td>{r.sequence}</td>
              <td>{time(r.event.occurredAt)}</td>
              <td>{r.event.type}</td>
              <td>{f.agent}</td>
              <td>{f.tool}</td>
              <td>{f.outcome}</td>
              <td>
                <code>{r.event.traceId}</code>
              </td>
              <td>
                <button
                  type="button"
                  aria-expanded={open === r.id}
                  onClick={() => setOpen(open === r.id ? undefined : r.id)}
                >
                  Record {r.sequence}
                </button>{' '}
                {f.sessionId && (
                  <Link to={`/audit/sessions/${encodeURIComponent(f.sessionId)}`}>
                    Replay session
                  </Link>
                )}
              </td>
            </tr>,
            open === r.id ? (
              <tr key={`${r.id}-json`}>
                <td colSpan={8}>
                  <Json value={r} label={`Audit record ${r.sequence}`} />
                </td>
              </tr>
            ) : null,
          ];
        })}
      </tbody>
    </table>
  );
}

const FILTERS = [
  'agent',
  'resource',
  'tool',
  'status',
  'type',
  'callId',
  'sessionId',
  'from',
  'to',
] as const;

export default function Audit() {
  const { search } = useLocation();
  const initial = Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? '']));
  const [draft, setDraft] = useState<Record<string, string>>(initial);
  const [filters, setFilters] = useState<Record<string, string>>(initial);
  const [pages, setPages] = useState<string[]>(['']);
  const q = query({
    ...filters,
    from: filters.from ? new Date(filters.from).toISOString() : '',
    to: filters.to ? new Date(filters.to).toISOString() : '',
  });
  const page = pages[pages.length - 1] ?? '';
  const records = useQuery({
    queryKey: ['audit', q, page],
    queryFn: () =>
      api.get<{ records: AuditRecord[]; nextPageToken: string }>(
        `/api/audit${q}${q ? '&' : '?'}pageToken=${encodeURIComponent(page)}`,
      ),
  });
  const [tail, setTail] = useState<LiveEvent[]>([]);
  const [paused, setPaused] = useState(false);
  useLiveEvents('all', (e) => {
    if (!paused) setTail((t) => [e, ...t].slice(0, 50));
  });
  const verify = useMutation({
    mutationFn: () =>
      api.post<{
        results: Array<{
          tenant: string;
          ok: boolean;
          checked: number;
          firstBrokenSequence: number;
          reason: string;
          headHash: string;
        }>;
      }>('/api/audit/verify'),
  });
  return (
    <section>
      <h1>Audit</h1>
      <div className="grid2">
        <div className="panel">
          <h2>Live tail</h2>
          <button type="button" onClick={() => setPaused(!paused)} aria-pressed={paused}>
            {paused ? 'Resume' : 'Pause'}
          </button>
          <ol aria-label="Live events" className="timeline">
            {tail.map((e) => (
              <li key={e.id}>
                {time(e.occurredAt)} · <strong>{e.type}</strong> {e.agent} {e.tool ?? e.name ?? ''}{' '}
                {(e.status ?? e.approvalStatus ?? '').toLowerCase()}{' '}
                {e.callId && (
                  <Link to={`/audit${query({ callId: e.callId })}`} onClick={() => undefined}>
                    records
                  </Link>
                )}
              </li>
            ))}
          </ol>
          {tail.length === 0 && <p className="muted">Waiting for events…</p>}
        </div>
        <div className="panel">
          <h2>Verify the chain</h2>
          <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
            Verify every tenant’s chain
          </button>
          <ErrorBox error={verify.error} />
          {verify.data && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Tenant</th>
                  <th scope="col">Result</th>
                  <th scope="col">Records checked</th>
                  <th scope="col">Head</th>
                </tr>
              </thead>
              <tbody>
                {verify.data.results.map((r) => (
                  <tr key={r.tenant}>
                    <td>{r.tenant}</td>
                    <td data-testid="verify-result" className={r.ok ? 'ok' : 'error'}>
                      {r.ok ? 'intact' : `broken at ${r.firstBrokenSequence}: ${r.reason}`}
                    </td>
                    <td>{r.checked}</td>
                    <td>
                      <code>{r.headHash.slice(0, 16)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      <h2>Query</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
          setPages(['']);
          navigate(`/audit${query(draft)}`, true);
        }}
      >
        {FILTERS.map((f) => (
          <label key={f}>
            {f}
            {f === 'status' ? (
              <select
                value={draft[f]}
                onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
              >
                <option value="">any</option>
                <option>ok</option>
                <option>error</option>
                <option>pending_approval</option>
                <option>accepted</option>
              </select>
            ) : (
              <input
                type={f === 'from' || f === 'to' ? 'datetime-local' : 'text'}
                value={draft[f]}
                onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
                placeholder={f === 'type' ? 'call.completed' : ''}
              />
            )}
          </label>
        ))}
        <button type="submit" className="primary">
          Search
        </button>
        <a className="button" href={`/api/audit/export${q}`} download>
          Export JSONL
        </a>
      </form>
      <ErrorBox error={records.error} />
      {records.data && <AuditRecords records={records.data.records} />}
      <div className="row">
        {pages.length > 1 && (
          <button type="button" onClick={() => setPages(pages.slice(0, -1))}>
            Previous page
          </button>
        )}
        {records.data?.nextPageToken && (
          <button type="button" onClick={() => setPages([...pages, records.data.nextPageToken])}>
            Next page
          </button>
        )}
      </div>
    </section>
  );
}
