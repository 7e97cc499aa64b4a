/** The overview's charts: audit Stats as time series, in total and for the busiest resources and agents. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { create } from '@bufbuild/protobuf';
import { StatsGroup, StatsBucketSchema } from '@tollgate/contracts/audit/v1';
import type { StatsBucket } from '@tollgate/contracts/audit/v1';
import { json } from '../backend/backend.js';
import { badRequest } from '../http/problem.js';
import type { Route } from '../http/route.js';

/** Selectable windows: span and the width of one point (about 60 points each). */
const WINDOWS: Record<string, { spanSeconds: number; stepSeconds: number }> = {
  '15m': { spanSeconds: 900, stepSeconds: 15 },
  '1h': { spanSeconds: 3600, stepSeconds: 60 },
  '6h': { spanSeconds: 6 * 3600, stepSeconds: 360 },
  '24h': { spanSeconds: 86400, stepSeconds: 1440 },
  '7d': { spanSeconds: 7 * 86400, stepSeconds: 10080 },
};
/** Series drawn per resource and per agent, the busiest first. */
const TOP = 5;

function point(b: StatsBucket) {
  return json(StatsBucketSchema, b);
}

/** Every window of the range in order, the ones without calls as zeros (Stats leaves them out). */
function aligned(
  groups: StatsBucket[],
  fromMs: number,
  toMs: number,
  stepSeconds: number,
): unknown[] {
  const byStart = new Map(groups.map((g) => [Date.parse(g.key), g]));
  const out: unknown[] = [];
  for (let t = fromMs; t < toMs; t += stepSeconds * 1000) {
    const key = new Date(t).toISOString();
    const found = byStart.get(t);
    out.push(
      found
        ? { ...(point(found) as object), key }
        : { ...(point(create(StatsBucketSchema, {})) as object), key },
    );
  }
  return out;
}

export const overviewRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/stats',
    needs: 'read',
    async handle({ url, session, backend }) {
      const name = url.searchParams.get('window') ?? '1h';
      const window = WINDOWS[name];
      if (window === undefined) {
        throw badRequest('window is not one of the offered windows.', [
          { path: 'window', message: 'unknown', expected: Object.keys(WINDOWS).join(' | ') },
        ]);
      }
      const options = await backend.as(session, 'read');
      const now = Date.now();
      const end = Math.ceil(now / 1000 / window.stepSeconds) * window.stepSeconds * 1000;
      const start = end - window.spanSeconds * 1000;
      const range = {
        tenant: session.tenant,
        from: timestampFromDate(new Date(start)),
        to: timestampFromDate(new Date(end)),
      };
      const series = (filter: { resource?: string; agent?: string }) =>
        backend.audit
          .stats(
            { ...range, ...filter, groupBy: StatsGroup.WINDOW, windowSeconds: window.stepSeconds },
            options,
          )
          .then((r) => aligned(r.groups, start, end, window.stepSeconds));
      const [total, byResource, byAgent] = await Promise.all([
        backend.audit.stats(
          { ...range, groupBy: StatsGroup.WINDOW, windowSeconds: window.stepSeconds },
          options,
        ),
        backend.audit.stats({ ...range, groupBy: StatsGroup.RESOURCE }, options),
        backend.audit.stats({ ...range, groupBy: StatsGroup.AGENT }, options),
      ]);
      const top = (groups: StatsBucket[]) =>
        [...groups]
          .sort((a, b) => Number(b.calls - a.calls))
          .slice(0, TOP)
          .map((g) => g.key)
          .filter(Boolean);
      const [resources, agents] = await Promise.all([
        Promise.all(
          top(byResource.groups).map(async (key) => ({
            key,
            points: await series({ resource: key }),
          })),
        ),
        Promise.all(
          top(byAgent.groups).map(async (key) => ({ key, points: await series({ agent: key }) })),
        ),
      ]);
      return {
        window: name,
        stepSeconds: window.stepSeconds,
        totals: total.total ? point(total.total) : null,
        points: aligned(total.groups, start, end, window.stepSeconds),
        resources,
        agents,
      };
    },
  },
];
