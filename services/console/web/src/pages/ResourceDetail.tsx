import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api.js';
import { DiffTable } from '../components/DiffTable.js';
import type { DiffRow } from '../components/DiffTable.js';
import { ErrorBox } from '../components/Problems.js';
import { time } from '../components/Json.js';
import { TextEditor } from '../components/TextEditor.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { ResourceVersion } from './Resources.js';

/** One resource: its current version, every version with what changed, rollback. */
export default function ResourceDetail({ name }: { name: string }) {
  const session = useSession();
  const client = useQueryClient();
  const current = useQuery({
    queryKey: ['resource', name],
    queryFn: () => api.get<{ resource: ResourceVersion; yaml: string }>(`/api/resources/${name}`),
  });
  const history = useQuery({
    queryKey: ['history', name],
    queryFn: () =>
      api.get<{ versions: ResourceVersion[]; diffs: DiffRow[][] }>(
        `/api/resources/${name}/history`,
      ),
  });
  const [open, setOpen] = useState<number>();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['resource', name] });
    void client.invalidateQueries({ queryKey: ['history', name] });
    void client.invalidateQueries({ queryKey: ['resources'] });
  };
  const rollback = useMutation({
    mutationFn: (to: number) =>
      api.post(`/api/resources/${name}/rollback`, {
        toVersion: to,
        expectedVersion: current.data?.resource.version,
      }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () =>
      api.post(`/api/resources/${name}/delete`, {
        expectedVersion: current.data?.resource.version,
      }),
    onSuccess: refresh,
  });
  const r = current.data?.resource;
  return (
    <section>
      <p>
        <Link to="/resources">← Resources</Link>
      </p>
      <h1>
        {name} {r && <span className="muted">version {r.version}</span>}
      </h1>
      <ErrorBox error={current.error ?? history.error ?? rollback.error ?? remove.error} />
      {r && (
        <div className="row">
          <span>
            {r.descriptor.spec?.type} · changed {time(r.createdAt)} by {r.createdBy}
            {r.deleted && <span className="badge bad"> deleted</span>}
          </span>
          {session.can.manage && !r.deleted && (
            <>
              <button
                type="button"
                className="primary"
                onClick={() => navigate(`/resources/new?from=${encodeURIComponent(name)}`)}
              >
                Edit
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => {
                  if (window.confirm(`Delete ${name}? Its history is kept.`)) remove.mutate();
                }}
              >
                Delete
              </button>
            </>
          )}
        </div>
      )}
      <div className="grid2">
        <div>
          <h2>Current version</h2>
          {current.data && (
            <TextEditor label="Current descriptor" value={current.data.yaml} readOnly rows={18} />
          )}
        </div>
        <div>
          <h2>History</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">When</th>
                <th scope="col">By</th>
                <th scope="col">What</th>
                <th scope="col">
                  <span className="muted">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(history.data?.versions ?? []).map((v, i) => (
                <tr key={v.version} className={open === v.version ? 'selected' : undefined}>
                  <td>v{v.version}</td>
                  <td>{time(v.createdAt)}</td>
                  <td>{v.createdBy}</td>
                  <td>
                    {v.deleted
                      ? 'deleted'
                      : v.rolledBackFrom
                        ? `rolled back to v${v.rolledBackFrom}`
                        : `${history.data?.diffs[i]?.length ?? 0} changes`}
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() => setOpen(open === v.version ? undefined : v.version)}
                      aria-expanded={open === v.version}
                    >
                      Diff v{v.version}
                    </button>{' '}
                    {session.can.manage && r && v.version !== r.version && !v.deleted && (
                      <button
                        type="button"
                        onClick={() => {
                          if (window.confirm(`Make version ${v.version} current again?`))
                            rollback.mutate(v.version);
                        }}
                      >
                        Roll back to v{v.version}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {open !== undefined && history.data && (
            <DiffTable
              caption={`Changes in version ${open}`}
              rows={
                history.data.diffs[history.data.versions.findIndex((v) => v.version === open)] ?? []
              }
            />
          )}
        </div>
      </div>
    </section>
  );
}
