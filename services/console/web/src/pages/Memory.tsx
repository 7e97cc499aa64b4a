import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { Json, enumName, time } from '../components/Json.js';
import { useLiveEvents } from '../events.js';
import { useSession } from '../session.js';
import { useAgents } from './Agents.js';

interface Candidate {
  id: string;
  kind: string;
  summary: string;
  confidence: number;
  proposal?: unknown;
  user: string;
  createdAt: string;
  evidenceCallIds: string[];
}
interface Revisioned {
  id: string;
  name: string;
  description: string;
  revision: number;
  status: string;
  contentHash: string;
  user: string;
  createdBy: string;
  createdAt: string;
  [key: string]: unknown;
}
interface Preference {
  id: string;
  key: string;
  text: string;
  status: string;
  kind: string;
  source: string;
  user: string;
  value?: unknown;
  lastConfirmedAt: string;
}

const TABS = ['candidates', 'saved-queries', 'skills', 'preferences'] as const;
type Tab = (typeof TABS)[number];

/** What memory proposes and holds for an agent, and a person's decisions on it. */
export default function Memory() {
  const session = useSession();
  const agents = useAgents();
  const [agent, setAgent] = useState('');
  const [tab, setTab] = useState<Tab>('candidates');
  const client = useQueryClient();
  useLiveEvents(['memory.written'], () => void client.invalidateQueries({ queryKey: ['memory'] }));
  return (
    <section>
      <h1>Memory</h1>
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
          You review as {session.user}; memory never lets a proposer confirm their own proposal.
        </span>
      </div>
      <div className="tabs" role="tablist" aria-label="Kinds of memory">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
          >
            {t.replace('-', ' ')}
          </button>
        ))}
      </div>
      {agent === '' ? (
        <p>Pick an agent to review its memory.</p>
      ) : (
        <MemoryList agent={agent} tab={tab} canReview={session.can.review} />
      )}
    </section>
  );
}

function MemoryList({ agent, tab, canReview }: { agent: string; tab: Tab; canReview: boolean }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ['memory', tab, agent],
    queryFn: () => api.get<Record<string, unknown[]>>(`/api/memory/${tab}${query({ agent })}`),
  });
  const act = useMutation({
    mutationFn: ({ path, body }: { path: string; body: unknown }) => api.post(path, body),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['memory'] }),
  });
  const items = (list.data ? Object.values(list.data).find(Array.isArray) : undefined) ?? [];
  const reason = () => window.prompt('Reason') ?? '';
  return (
    <div>
      <ErrorBox error={list.error ?? act.error} />
      {list.isSuccess && items.length === 0 && <p>Nothing here for {agent}.</p>}
      {tab === 'candidates' &&
        (items as Candidate[]).map((c) => (
          <article key={c.id} className="panel" aria-label={`Candidate ${c.id}`}>
            <h2>
              {enumName(c.kind, 'CANDIDATE_KIND_')}: {c.summary}
            </h2>
            <p className="muted">
              confidence {Math.round(c.confidence * 100)}% · {c.user || 'every user'} ·{' '}
              {time(c.createdAt)} · {c.evidenceCallIds.length} calls
            </p>
            <Json value={c.proposal} label={`Proposal ${c.id}`} />
            {canReview && (
              <div className="row">
                <button
                  type="button"
                  className="primary"
                  onClick={() =>
                    act.mutate({ path: `/api/memory/candidates/${c.id}/confirm`, body: {} })
                  }
                >
                  Confirm
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    act.mutate({
                      path: `/api/memory/candidates/${c.id}/reject`,
                      body: { reason: reason() },
                    })
                  }
                >
                  Reject
                </button>
              </div>
            )}
          </article>
        ))}
      {(tab === 'saved-queries' || tab === 'skills') &&
        (items as Revisioned[]).map((s) => (
          <article
            key={`${s.id}-${s.revision}`}
            className="panel"
            aria-label={`${s.name} revision ${s.revision}`}
          >
            <h2>
              {s.name}{' '}
              <span className="muted">
                revision {s.revision} · {enumName(s.status, 'REVISION_STATUS_')}
              </span>
            </h2>
            <p>{s.description}</p>
            <details>
              <summary>Content</summary>
              <Json value={s} label={`${s.name} content`} />
            </details>
            {canReview && (
              <div className="row">
                {s.status === 'REVISION_STATUS_PROPOSED' && (
                  <>
                    <button
                      type="button"
                      className="primary"
                      onClick={() =>
                        act.mutate({
                          path: `/api/memory/${tab}/${s.id}/approve`,
                          body: { revision: s.revision, contentHash: s.contentHash },
                        })
                      }
                    >
                      Approve
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() =>
                        act.mutate({
                          path: `/api/memory/${tab}/${s.id}/reject`,
                          body: { revision: s.revision, reason: reason() },
                        })
                      }
                    >
                      Reject
                    </button>
                  </>
                )}
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    if (window.confirm(`Forget ${s.name}?`))
                      act.mutate({ path: `/api/memory/${tab}/${s.id}/delete`, body: {} });
                  }}
                >
                  Forget
                </button>
              </div>
            )}
          </article>
        ))}
      {tab === 'preferences' &&
        (items as Preference[]).map((p) => (
          <article key={p.id} className="panel" aria-label={`Preference ${p.key}`}>
            <h2>
              {p.text || p.key}{' '}
              <span className="muted">
                {enumName(p.status, 'PREFERENCE_STATUS_')} ·{' '}
                {enumName(p.source, 'PREFERENCE_SOURCE_')}
              </span>
            </h2>
            <p className="muted">
              {p.kind} · {p.user || 'every user'} · last confirmed {time(p.lastConfirmedAt)}
            </p>
            {canReview && (
              <div className="row">
                {p.status === 'PREFERENCE_STATUS_PROPOSED' && (
                  <button
                    type="button"
                    className="primary"
                    onClick={() =>
                      act.mutate({ path: `/api/memory/preferences/${p.id}/confirm`, body: {} })
                    }
                  >
                    Confirm
                  </button>
                )}
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    act.mutate({ path: `/api/memory/preferences/${p.id}/forget`, body: {} })
                  }
                >
                  Forget
                </button>
              </div>
            )}
          </article>
        ))}
    </div>
  );
}
