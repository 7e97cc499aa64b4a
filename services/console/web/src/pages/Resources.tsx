import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, query } from '../api.js';
import { ErrorBox } from '../components/Problems.js';
import { time } from '../components/Json.js';
import { useLiveEvents } from '../events.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';

export interface ResourceVersion {
  name: string;
  version: number;
  descriptor: {
    metadata?: { description?: string; labels?: Record<string, string> };
    spec?: { type?: string };
  };
  createdAt: string;
  createdBy: string;
  deleted: boolean;
  contentHash: string;
  rolledBackFrom: number;
}

export default function Resources() {
  const session = useSession();
  const client = useQueryClient();
  const [type, setType] = useState('');
  const [label, setLabel] = useState('');
  const [text, setText] = useState('');
  const [deleted, setDeleted] = useState(false);
  const list = useQuery({
    queryKey: ['resources', type, label, deleted],
    queryFn: () =>
      api.get<{ resources: ResourceVersion[] }>(
        `/api/resources${query({ type, label: label.includes('=') ? label : '', deleted: deleted ? 'true' : '' })}`,
      ),
  });
  useLiveEvents(
    ['resource.changed'],
    () => void client.invalidateQueries({ queryKey: ['resources'] }),
  );
  const shown = (list.data?.resources ?? []).filter((r) => {
    const t = text.toLowerCase();
    return (
      t === '' ||
      r.name.includes(t) ||
      (r.descriptor.metadata?.description ?? '').toLowerCase().includes(t)
    );
  });
  return (
    <section>
      <h1>Resources</h1>
      <div className="row">
        <label>
          Search
          <input
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="name or description"
          />
        </label>
        <label>
          Type
          <input value={type} onChange={(e) => setType(e.target.value)} placeholder="any" />
        </label>
        <label>
          Label
          <input value={label} onChange={(e) => setLabel(e.target.value)} placeholder="key=value" />
        </label>
        <label className="inline">
          <input type="checkbox" checked={deleted} onChange={(e) => setDeleted(e.target.checked)} />
          Include deleted
        </label>
        {session.can.manage && (
          <Link to="/resources/new" className="button primary">
            Register a resource
          </Link>
        )}
      </div>
      <ErrorBox error={list.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Version</th>
            <th scope="col">Description</th>
            <th scope="col">Labels</th>
            <th scope="col">Changed</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.name}>
              <td>
                <Link to={`/resources/${r.name}`}>{r.name}</Link>
                {r.deleted && <span className="badge bad"> deleted</span>}
              </td>
              <td>{r.descriptor.spec?.type}</td>
              <td>v{r.version}</td>
              <td>{r.descriptor.metadata?.description}</td>
              <td>
                {Object.entries(r.descriptor.metadata?.labels ?? {})
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ')}
              </td>
              <td>
                {time(r.createdAt)} by {r.createdBy}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && shown.length === 0 && <p className="muted">No resources match.</p>}
    </section>
  );
}
