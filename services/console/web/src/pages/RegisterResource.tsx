import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { parse, stringify } from 'yaml';
import { api, ApiError } from '../api.js';
import type { ProblemDetail } from '../api.js';
import { DiffTable } from '../components/DiffTable.js';
import type { DiffRow } from '../components/DiffTable.js';
import { ErrorBox } from '../components/Problems.js';
import { SchemaForm } from '../components/SchemaForm.js';
import type { Schema } from '../components/schema.js';
import { TextEditor } from '../components/TextEditor.js';
import type { EditorHandle } from '../components/TextEditor.js';
import { useCheck } from '../components/useCheck.js';
import { Link, useLocation } from '../router.js';
import { useSession } from '../session.js';

interface DiscoveredField {
  name: string;
  type: string;
  nativeType: string;
  declared: boolean;
  declaredType: string;
  searchable: boolean;
  aggregatable: boolean;
  proposedCapabilities: string[];
}
interface Warning {
  code: string;
  path: string;
  message: string;
}
interface Discovery {
  fields: DiscoveredField[];
  warnings: Warning[];
  yaml: string;
}
interface Applied {
  resource?: { name: string; version: number };
  unchanged: boolean;
  diff: DiffRow[];
  warnings: Warning[];
}

function starter(tenant: string): string {
  return `apiVersion: tollgate.dev/v1
kind: Resource
metadata:
  name: my_resource
  tenant: ${tenant}
  environment: prod
  description: What this resource holds.
spec:
  type: ''
`;
}

/** Register or edit a resource: YAML or a form from the published schema → discovery → diff → apply. */
export default function RegisterResource() {
  const session = useSession();
  const { search } = useLocation();
  const from = search.get('from') ?? '';
  const [text, setText] = useState(() => starter(session.tenant));
  const [mode, setMode] = useState<'yaml' | 'form'>('yaml');
  const [formValue, setFormValue] = useState<unknown>(undefined);
  const editor = useRef<EditorHandle>(null);
  const existing = useQuery({
    queryKey: ['resource', from],
    queryFn: () => api.get<{ yaml: string }>(`/api/resources/${from}`),
    enabled: from !== '',
  });
  useEffect(() => {
    if (existing.data) setText(existing.data.yaml);
  }, [existing.data]);
  const schema = useQuery({
    queryKey: ['schema'],
    queryFn: () => api.get<Schema>('/api/schema'),
    staleTime: Infinity,
  });
  const problems = useCheck('/api/resources/check', text);
  const [discovery, setDiscovery] = useState<Discovery>();
  const [review, setReview] = useState<{ applied: Applied; expectedVersion: number }>();
  const discover = useMutation({
    mutationFn: () => api.post<Discovery>('/api/resources/discover', { yaml: text }),
    onSuccess: (d) => {
      setDiscovery(d);
      setReview(undefined);
    },
  });
  const dryRun = useMutation({
    mutationFn: async () => {
      const applied = await api.post<Applied>('/api/resources/apply', { yaml: text, dryRun: true });
      const name = applied.resource?.name ?? '';
      const current = await api
        .get<{ resource: { version: number } }>(`/api/resources/${name}`)
        .then((r) => r.resource.version)
        .catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return 0;
          throw err;
        });
      return { applied, expectedVersion: current };
    },
    onSuccess: setReview,
  });
  const apply = useMutation({
    mutationFn: () =>
      api.post<Applied>('/api/resources/apply', {
        yaml: text,
        expectedVersion: review?.expectedVersion ?? 0,
      }),
  });
  const serverProblems: ProblemDetail[] = [discover.error, dryRun.error, apply.error].flatMap(
    (e) => (e instanceof ApiError ? e.details : []),
  );
  const shown = serverProblems.length > 0 ? serverProblems : problems;
  const edit = (next: string) => {
    setText(next);
    setReview(undefined);
    apply.reset();
  };
  const toForm = () => {
    try {
      setFormValue(parse(text) as unknown);
      setMode('form');
    } catch {
      setMode('form');
    }
  };
  const root = schema.data;
  const definitions = (root?.definitions ?? {}) as Record<string, Schema>;
  const resourceSchema = definitions.ResourceDescriptor;
  if (!session.can.manage) return <p>Registering resources needs the admin role.</p>;
  return (
    <section>
      <h1>{from ? `Edit ${from}` : 'Register a resource'}</h1>
      <div className="tabs" role="tablist" aria-label="Editor">
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'yaml'}
          onClick={() => {
            if (mode === 'form') edit(stringify(formValue ?? {}));
            setMode('yaml');
          }}
        >
          YAML
        </button>
        <button type="button" role="tab" aria-selected={mode === 'form'} onClick={toForm}>
          Form
        </button>
      </div>
      {mode === 'yaml' ? (
        <TextEditor
          label="Resource descriptor (YAML)"
          value={text}
          onChange={edit}
          problems={shown}
          handle={editor}
        />
      ) : root && resourceSchema ? (
        <div className="panel">
          <SchemaForm
            label="Resource"
            schema={resourceSchema}
            root={root}
            value={formValue}
            problems={shown}
            onChange={(v) => {
              setFormValue(v);
              edit(stringify(v ?? {}));
            }}
          />
        </div>
      ) : (
        <p>Loading the schema…</p>
      )}
      <div className="row">
        <button
          type="button"
          className="primary"
          onClick={() => discover.mutate()}
          disabled={discover.isPending}
        >
          1. Discover
        </button>
        <button type="button" onClick={() => dryRun.mutate()} disabled={dryRun.isPending}>
          2. Review changes
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => apply.mutate()}
          disabled={!review || apply.isPending || review.applied.unchanged}
        >
          3. Apply
        </button>
      </div>
      <ErrorBox
        error={discover.error ?? dryRun.error ?? apply.error}
        onGoto={(p) => {
          setMode('yaml');
          setTimeout(() => editor.current?.goto(p.line ?? 1, p.column ?? 1));
        }}
      />
      {apply.data && (
        <p role="status" className="panel ok">
          Applied:{' '}
          <Link to={`/resources/${apply.data.resource?.name}`}>{apply.data.resource?.name}</Link> is
          now version {apply.data.resource?.version}.
        </p>
      )}
      {discovery && <DiscoveryTable discovery={discovery} onUse={() => edit(discovery.yaml)} />}
      {review && (
        <div className="panel">
          <h2>Changes to apply</h2>
          {review.applied.unchanged ? (
            <p>The descriptor equals the current version; nothing would change.</p>
          ) : (
            <DiffTable
              rows={review.applied.diff}
              caption={
                review.expectedVersion === 0
                  ? 'A new resource'
                  : `Against version ${review.expectedVersion}`
              }
            />
          )}
          <Warnings warnings={review.applied.warnings} />
        </div>
      )}
    </section>
  );
}

function Warnings({ warnings }: { warnings: Warning[] }) {
  if (warnings.length === 0) return null;
  return (
    <ul aria-label="Warnings">
      {warnings.map((w, i) => (
        <li key={i} className="warn">
          {w.code}
          {w.path ? ` at ${w.path}` : ''}: {w.message}
        </li>
      ))}
    </ul>
  );
}

function DiscoveryTable({ discovery, onUse }: { discovery: Discovery; onUse: () => void }) {
  return (
    <div className="panel">
      <h2>Discovery preview</h2>
      <table>
        <caption className="muted">What the real system reports, next to what is declared</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Native type</th>
            <th scope="col">Declared</th>
            <th scope="col">Proposed capabilities</th>
          </tr>
        </thead>
        <tbody>
          {discovery.fields.map((f) => (
            <tr key={f.name}>
              <td>
                <code>{f.name}</code>
              </td>
              <td>{f.type}</td>
              <td>{f.nativeType}</td>
              <td>
                {f.declared
                  ? f.declaredType && f.declaredType !== f.type
                    ? `yes (as ${f.declaredType})`
                    : 'yes'
                  : 'no'}
              </td>
              <td>{f.proposedCapabilities.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Warnings warnings={discovery.warnings} />
      <button type="button" onClick={onUse}>
        Use the merged descriptor
      </button>
    </div>
  );
}
