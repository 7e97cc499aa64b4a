import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, enumName, time } from '../components/Json.js';
import { useLiveEvents } from '../events.js';
import type { LiveEvent } from '../events.js';
import { useSession } from '../session.js';

interface Approval {
  id: string;
  status: string;
  principal?: { agent: string; user: string };
  resource: string;
  resourceVersion: number;
  tool: string;
  requestedAt: string;
  expiresAt: string;
  arguments?: unknown;
  policyIds: string[];
  callId: string;
  decidedBy: string;
  reason: string;
}

/** The approvals queue, updated live; approvers decide with a reason. */
export default function Approvals() {
  const session = useSession();
  const client = useQueryClient();
  const pending = useQuery({
    queryKey: ['approvals'],
    queryFn: () => api.get<{ approvals: Approval[] }>('/api/approvals'),
  });
  const [decided, setDecided] = useState<LiveEvent[]>([]);
  useLiveEvents(['approval.requested', 'approval.decided'], (e) => {
    if (e.type === 'approval.decided') setDecided((d) => [e, ...d].slice(0, 20));
    void client.invalidateQueries({ queryKey: ['approvals'] });
  });
  return (
    <section>
      <h1>Approvals</h1>
      <ErrorBox error={pending.error} />
      {pending.data && pending.data.approvals.length === 0 && (
        <p>Nothing is waiting for a decision.</p>
      )}
      {(pending.data?.approvals ?? []).map((a) => (
        <ApprovalCard key={a.id} approval={a} canDecide={session.can.decide} />
      ))}
      <h2>Decided while this page was open</h2>
      <ul aria-label="Decided approvals">
        {decided.map((e) => (
          <li key={e.id} data-testid="decided-approval">
            {time(e.occurredAt)} · {e.tool} for {e.agent}:{' '}
            <strong>{enumName(e.approvalStatus, '')}</strong>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ApprovalCard({ approval: a, canDecide }: { approval: Approval; canDecide: boolean }) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const decide = useMutation({
    mutationFn: (verb: 'approve' | 'reject') =>
      api.post(`/api/approvals/${a.id}/${verb}`, { reason }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['approvals'] }),
  });
  return (
    <article className="panel" aria-label={`Approval ${a.id}`} data-testid="approval">
      <h2>
        {a.tool} on {a.resource} v{a.resourceVersion}
      </h2>
      <p>
        Requested by <strong>{a.principal?.agent}</strong>
        {a.principal?.user ? ` for ${a.principal.user}` : ''} at {time(a.requestedAt)}; expires{' '}
        {time(a.expiresAt)}. Required by {a.policyIds.join(', ') || 'policy'}. Status{' '}
        {enumName(a.status, 'APPROVAL_STATUS_')}.
      </p>
      <h3>Exact arguments</h3>
      <Json value={a.arguments} label={`Arguments of approval ${a.id}`} />
      {canDecide && (
        <div className="row">
          <label>
            Reason
            <input value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <button
            type="button"
            className="primary"
            disabled={decide.isPending}
            onClick={() => decide.mutate('approve')}
          >
            Approve
          </button>
          <button
            type="button"
            className="danger"
            disabled={decide.isPending}
            onClick={() => decide.mutate('reject')}
          >
            Reject
          </button>
        </div>
      )}
      <ErrorBox error={decide.error} />
    </article>
  );
}
