import { useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { Chart } from '../components/Chart.js';
import type { Series } from '../components/Chart.js';
import { ErrorBox } from '../components/Problems.js';
import { time } from '../components/Json.js';
import { useLiveEvents } from '../events.js';
import type { LiveEvent } from '../events.js';

interface Bucket {
  key: string;
  calls: string;
  ok: string;
  errors: string;
  denials: string;
  truncated: string;
  argumentValidationFailures: string;
  idempotencyConflicts: string;
  p50LatencyMs: number;
  p95LatencyMs: number;
  p99LatencyMs: number;
  successRate: number;
}

interface Stats {
  window: string;
  stepSeconds: number;
  totals: Bucket | null;
  points: Bucket[];
  resources: Array<{ key: string; points: Bucket[] }>;
  agents: Array<{ key: string; points: Bucket[] }>;
}

const WINDOWS = ['15m', '1h', '6h', '24h', '7d'];

const n = (v: string | number | undefined) => Number(v ?? 0);

/** Per-minute rate of a count in a bucket of `step` seconds. */
const perMinute = (v: string, step: number) => Math.round((n(v) * 60 * 10) / step) / 10;

export default function Overview() {
  const [window, setWindow] = useState('1h');
  const client = useQueryClient();
  const stats = useQuery({
    queryKey: ['stats', window],
    queryFn: () => api.get<Stats>(`/api/stats${query({ window })}`),
  });
  const [recent, setRecent] = useState<LiveEvent[]>([]);
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  useLiveEvents(['call.completed', 'call.denied'], (e) => {
    setRecent((r) => [e, ...r].slice(0, 12));
    if (pending.current === undefined) {
      pending.current = setTimeout(() => {
        pending.current = undefined;
        void client.invalidateQueries({ queryKey: ['stats'] });
      }, 1000);
    }
  });
  const charts = useMemo(() => (stats.data ? chartsOf(stats.data) : undefined), [stats.data]);
  const t = stats.data?.totals;
  return (
    <section>
      <h1>Overview</h1>
      <div className="row">
        <label>
          Window
          <select value={window} onChange={(e) => setWindow(e.target.value)}>
            {WINDOWS.map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
        </label>
        <span className="muted" aria-live="polite">
          {stats.isFetching ? 'Updating…' : 'Live: new calls update the charts.'}
        </span>
      </div>
      <ErrorBox error={stats.error} />
      {t && (
        <div className="totals" aria-label="Totals">
          <div>
            Calls<strong data-testid="total-calls">{n(t.calls)}</strong>
          </div>
          <div>
            Success rate<strong>{Math.round(t.successRate * 1000) / 10}%</strong>
          </div>
          <div>
            Latency p50 / p95 / p99
            <strong>
              {t.p50LatencyMs} / {t.p95LatencyMs} / {t.p99LatencyMs} ms
            </strong>
          </div>
          <div>
            Denials<strong>{n(t.denials)}</strong>
          </div>
          <div>
            Validation failures<strong>{n(t.argumentValidationFailures)}</strong>
          </div>
          <div>
            Idempotency conflicts<strong>{n(t.idempotencyConflicts)}</strong>
          </div>
          <div>
            Truncations<strong>{n(t.truncated)}</strong>
          </div>
        </div>
      )}
      {charts && (
        <div className="grid3">
          {charts.map((c) => (
            <Chart
              key={c.title}
              title={c.title}
              x={c.x}
              series={c.series}
              {...(c.unit ? { unit: c.unit } : {})}
            />
          ))}
        </div>
      )}
      <h2>Latest calls</h2>
      {recent.length === 0 ? (
        <p className="muted">No calls since this page opened.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Agent</th>
              <th scope="col">Tool</th>
              <th scope="col">Outcome</th>
              <th scope="col">Latency</th>
            </tr>
          </thead>
          <tbody>
            {recent.map((e) => (
              <tr key={e.id}>
                <td>{time(e.occurredAt)}</td>
                <td>{e.agent}</td>
                <td>{e.tool}</td>
                <td>
                  {(e.status ?? '').toLowerCase()}
                  {e.errorCode ? ` (${e.errorCode})` : ''}
                </td>
                <td>{e.latencyMs ?? ''} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function chartsOf(
  s: Stats,
): Array<{ title: string; x: number[]; series: Series[]; unit?: string }> {
  const x = s.points.map((p) => Math.floor(Date.parse(p.key) / 1000));
  const line = (label: string, f: (b: Bucket) => number | null): Series => ({
    label,
    values: s.points.map(f),
  });
  const byKey = (groups: Stats['resources']): Series[] =>
    groups.map((g) => {
      const at = new Map(g.points.map((p) => [p.key, p]));
      return {
        label: g.key,
        values: s.points.map((p) => perMinute(at.get(p.key)?.calls ?? '0', s.stepSeconds)),
      };
    });
  const step = s.stepSeconds;
  return [
    { title: 'Calls per minute', x, series: [line('calls', (b) => perMinute(b.calls, step))] },
    {
      title: 'Success rate',
      x,
      unit: '%',
      series: [line('success', (b) => (n(b.calls) ? Math.round(b.successRate * 1000) / 10 : null))],
    },
    {
      title: 'Latency',
      x,
      unit: ' ms',
      series: [
        line('p50', (b) => b.p50LatencyMs),
        line('p95', (b) => b.p95LatencyMs),
        line('p99', (b) => b.p99LatencyMs),
      ],
    },
    {
      title: 'Refusals and cuts',
      x,
      series: [
        line('denials', (b) => n(b.denials)),
        line('validation failures', (b) => n(b.argumentValidationFailures)),
        line('idempotency conflicts', (b) => n(b.idempotencyConflicts)),
        line('truncations', (b) => n(b.truncated)),
      ],
    },
    { title: 'Calls per minute by resource', x, series: byKey(s.resources) },
    { title: 'Calls per minute by agent', x, series: byKey(s.agents) },
  ];
}
