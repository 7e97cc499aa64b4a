import { useQuery } from '@tanstack/react-query';
import { api } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, enumName, time } from '../components/Json.js';
import { Link } from '../router.js';

interface Step {
  sequence: string;
  occurredAt: string;
  type: string;
  summary: string;
  callId: string;
  agent: string;
  tool: string;
  offeredTools: Array<{ name: string }>;
  arguments?: unknown;
  decision: string;
  reason: string;
  approvalId: string;
  approvalStatus: string;
  decidedBy: string;
  status: string;
  traceId: string;
}

/** A session as a timeline: tools offered → calls → decisions → approvals → results. */
export default function SessionReplay({ id }: { id: string }) {
  const replay = useQuery({
    queryKey: ['replay', id],
    queryFn: () => api.get<{ steps: Step[] }>(`/api/audit/sessions/${encodeURIComponent(id)}`),
  });
  return (
    <section>
      <p>
        <Link to="/audit">← Audit</Link>
      </p>
      <h1>Session {id}</h1>
      <p>
        <a
          className="button"
          href={`/api/audit/sessions/${encodeURIComponent(id)}/export`}
          download
        >
          Export JSONL
        </a>
      </p>
      <ErrorBox error={replay.error} />
      <ol className="timeline" aria-label="Session timeline">
        {(replay.data?.steps ?? []).map((s) => (
          <li key={s.sequence}>
            <div>
              <strong>{s.type}</strong> · {time(s.occurredAt)} · {s.agent}
            </div>
            <div>{s.summary}</div>
            {s.offeredTools.length > 0 && (
              <div className="muted">offered: {s.offeredTools.map((t) => t.name).join(', ')}</div>
            )}
            {s.approvalId && (
              <div className="muted">
                approval {s.approvalId}: {enumName(s.approvalStatus, 'APPROVAL_STATUS_')}{' '}
                {s.decidedBy && `by ${s.decidedBy}`} {s.reason && `— ${s.reason}`}
              </div>
            )}
            <details>
              <summary>Step {s.sequence} details</summary>
              <Json value={s} label={`Step ${s.sequence}`} />
            </details>
          </li>
        ))}
      </ol>
      {replay.data && replay.data.steps.length === 0 && <p>No records for this session.</p>}
    </section>
  );
}
