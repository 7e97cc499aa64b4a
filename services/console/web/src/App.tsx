import { Suspense, lazy, useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, setCsrf } from './api.js';
import { Link, matchPath, navigate, useLocation } from './router.js';
import { SessionContext } from './session.js';
import type { SessionInfo } from './session.js';
import { SignIn } from './pages/SignIn.js';

const load = {
  overview: () => import('./pages/Overview.js'),
  resources: () => import('./pages/Resources.js'),
  resourceDetail: () => import('./pages/ResourceDetail.js'),
  registerResource: () => import('./pages/RegisterResource.js'),
  agents: () => import('./pages/Agents.js'),
  policyEditor: () => import('./pages/PolicyEditor.js'),
  playground: () => import('./pages/Playground.js'),
  approvals: () => import('./pages/Approvals.js'),
  audit: () => import('./pages/Audit.js'),
  sessionReplay: () => import('./pages/SessionReplay.js'),
  memory: () => import('./pages/Memory.js'),
};
const Overview = lazy(load.overview);
const Resources = lazy(load.resources);
const ResourceDetail = lazy(load.resourceDetail);
const RegisterResource = lazy(load.registerResource);
const Agents = lazy(load.agents);
const PolicyEditor = lazy(load.policyEditor);
const Playground = lazy(load.playground);
const Approvals = lazy(load.approvals);
const Audit = lazy(load.audit);
const SessionReplay = lazy(load.sessionReplay);
const Memory = lazy(load.memory);

/** The code of the page a person opened starts loading with the session request, not after it. */
const FIRST_PAGE: Record<string, () => Promise<unknown>> = {
  '/': load.overview,
  '/resources': load.resources,
  '/resources/new': load.registerResource,
  '/agents': load.agents,
  '/playground': load.playground,
  '/approvals': load.approvals,
  '/audit': load.audit,
  '/memory': load.memory,
};
void FIRST_PAGE[window.location.pathname]?.().catch(() => undefined);

type SessionReply = SessionInfo | { signedIn: false; signIn: 'dev' | 'oidc' };

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/resources', 'Resources'],
  ['/agents', 'Agents & policies'],
  ['/playground', 'Tools playground'],
  ['/approvals', 'Approvals'],
  ['/audit', 'Audit'],
  ['/memory', 'Memory'],
];

function page(path: string) {
  if (path === '/') return <Overview />;
  if (path === '/resources') return <Resources />;
  if (path === '/resources/new') return <RegisterResource />;
  const resource = matchPath('/resources/:name', path);
  if (resource) return <ResourceDetail name={resource.name ?? ''} />;
  if (path === '/agents') return <Agents />;
  if (path === '/policies/new') return <PolicyEditor name="" />;
  const policy = matchPath('/policies/:name', path);
  if (policy) return <PolicyEditor name={policy.name ?? ''} />;
  if (path === '/playground') return <Playground />;
  if (path === '/approvals') return <Approvals />;
  if (path === '/audit') return <Audit />;
  const replay = matchPath('/audit/sessions/:id', path);
  if (replay) return <SessionReplay id={replay.id ?? ''} />;
  if (path === '/memory') return <Memory />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page at {path}. <Link to="/">Go to the overview</Link>.
      </p>
    </section>
  );
}

export function App() {
  const { path } = useLocation();
  const session = useQuery({
    queryKey: ['session'],
    queryFn: () => api.get<SessionReply>('/api/session'),
    staleTime: 60_000,
  });
  const info = session.data?.signedIn ? session.data : undefined;
  useEffect(() => {
    if (info) setCsrf(info.csrf);
  }, [info]);
  useEffect(() => {
    if (info && path === '/signin') navigate('/', true);
  }, [info, path]);
  if ((path === '/signin' && !info) || (session.data && !session.data.signedIn)) {
    return <SignIn mode={session.data && !session.data.signedIn ? session.data.signIn : 'oidc'} />;
  }
  if (!info) return <main className="loading">Loading…</main>;
  setCsrf(info.csrf);
  return (
    <SessionContext.Provider value={info}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Tollgate</span>
        <nav aria-label="Pages">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link
                  to={to}
                  aria-current={
                    (to === '/' ? path === '/' : path.startsWith(to)) ? 'page' : undefined
                  }
                >
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span title={info.user}>
            {info.name} · <span className="roles">{info.roles.join(', ')}</span> · {info.tenant}
          </span>
          <button
            type="button"
            className="link"
            onClick={() => {
              void api
                .post<{ redirect: string }>('/auth/logout')
                .then((r) => window.location.assign(r.redirect));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Suspense fallback={<p>Loading…</p>}>{page(path)}</Suspense>
      </main>
    </SessionContext.Provider>
  );
}

export { navigate };
