import { Suspense, lazy, useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, setCsrf } from './api.js';
import { Link, matchPath, navigate, useLocation } from './router.js';
import { SessionContext } from './session.js';
import type { SessionInfo } from './session.js';
import { SignIn } from './pages/SignIn.js';

const Overview = lazy(() => import('./pages/Overview.js'));
const Resources = lazy(() => import('./pages/Resources.js'));
const ResourceDetail = lazy(() => import('./pages/ResourceDetail.js'));
const RegisterResource = lazy(() => import('./pages/RegisterResource.js'));
const Agents = lazy(() => import('./pages/Agents.js'));
const PolicyEditor = lazy(() => import('./pages/PolicyEditor.js'));
const Playground = lazy(() => import('./pages/Playground.js'));
const Approvals = lazy(() => import('./pages/Approvals.js'));
const Audit = lazy(() => import('./pages/Audit.js'));
const SessionReplay = lazy(() => import('./pages/SessionReplay.js'));
const Memory = lazy(() => import('./pages/Memory.js'));

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
