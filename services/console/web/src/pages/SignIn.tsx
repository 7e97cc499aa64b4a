import { useState } from 'react';
import { api, ApiError } from '../api.js';
import { useLocation } from '../router.js';

/** Sign-in: the identity provider (OIDC), or on a local stack the dev sign-in. */
export function SignIn({ mode }: { mode: 'dev' | 'oidc' }) {
  const { search } = useLocation();
  const error = search.get('error');
  const returnTo = search.get('returnTo') ?? '/';
  const [user, setUser] = useState('');
  const [roles, setRoles] = useState<string[]>(['admin']);
  const [problem, setProblem] = useState<string>();
  return (
    <main id="main" className="signin">
      <h1>Tollgate console</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {mode === 'oidc' ? (
        <p>
          <a
            className="button primary"
            href={`/auth/login?returnTo=${encodeURIComponent(returnTo)}`}
          >
            Sign in with your identity provider
          </a>
        </p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            api
              .post<{ redirect: string }>('/auth/dev', { user, roles })
              .then(() =>
                window.location.assign(
                  returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/',
                ),
              )
              .catch((err: unknown) =>
                setProblem(err instanceof ApiError ? err.message : String(err)),
              );
          }}
        >
          <p className="note">
            Local stack: no identity provider is configured, so name yourself (dev sign-in).
          </p>
          <label>
            Your name
            <input
              value={user}
              onChange={(e) => setUser(e.target.value)}
              autoComplete="username"
              required
            />
          </label>
          <fieldset>
            <legend>Roles</legend>
            {['admin', 'approver', 'viewer'].map((role) => (
              <label key={role} className="inline">
                <input
                  type="checkbox"
                  checked={roles.includes(role)}
                  onChange={(e) =>
                    setRoles(e.target.checked ? [...roles, role] : roles.filter((r) => r !== role))
                  }
                />
                {role}
              </label>
            ))}
          </fieldset>
          {problem && (
            <p role="alert" className="error">
              {problem}
            </p>
          )}
          <button type="submit" className="primary">
            Sign in
          </button>
        </form>
      )}
    </main>
  );
}
