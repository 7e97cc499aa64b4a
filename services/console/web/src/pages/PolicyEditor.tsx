import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api.js';
import { DiffTable } from '../components/DiffTable.js';
import type { DiffRow } from '../components/DiffTable.js';
import { ErrorBox } from '../components/Problems.js';
import { TextEditor } from '../components/TextEditor.js';
import type { EditorHandle } from '../components/TextEditor.js';
import { useCheck } from '../components/useCheck.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';

interface Applied {
  policy: { name: string; version: number };
  unchanged: boolean;
  diff: DiffRow[];
  bundleVersion: number;
}

/** A policy as YAML (grants and raw Cedar), checked as it is typed; diff first, then apply. */
export default function PolicyEditor({ name }: { name: string }) {
  const session = useSession();
  const client = useQueryClient();
  const editor = useRef<EditorHandle>(null);
  const existing = useQuery({
    queryKey: ['policy', name],
    queryFn: () => api.get<{ yaml: string; policy: { version: number } }>(`/api/policies/${name}`),
    enabled: name !== '',
  });
  const [text, setText] = useState(
    name === ''
      ? `apiVersion: tollgate.dev/v1\nkind: Policy\nmetadata:\n  name: new-policy\n  tenant: ${session.tenant}\n  description: What this policy allows or forbids.\nspec:\n  grants: []\n  cedar: |\n    forbid (principal, action, resource) when { false };\n`
      : '',
  );
  useEffect(() => {
    if (existing.data) setText(existing.data.yaml);
  }, [existing.data]);
  const problems = useCheck('/api/policies/check', text);
  const [review, setReview] = useState<Applied>();
  const dry = useMutation({
    mutationFn: () => api.post<Applied>('/api/policies/apply', { yaml: text, dryRun: true }),
    onSuccess: setReview,
  });
  const apply = useMutation({
    mutationFn: () =>
      api.post<Applied>('/api/policies/apply', {
        yaml: text,
        ...(existing.data ? { expectedVersion: existing.data.policy.version } : {}),
      }),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: ['policies'] });
      void client.invalidateQueries({ queryKey: ['policy', r.policy.name] });
      setReview(undefined);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.post(`/api/policies/${name}/delete`),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['policies'] });
      navigate('/agents');
    },
  });
  const failed = dry.error ?? apply.error ?? remove.error;
  const shown = failed instanceof ApiError && failed.details.length > 0 ? failed.details : problems;
  return (
    <section>
      <p>
        <Link to="/agents">← Agents and policies</Link>
      </p>
      <h1>{name === '' ? 'New policy' : `Policy ${name}`}</h1>
      <ErrorBox error={existing.error} />
      <TextEditor
        label="Policy descriptor (YAML)"
        value={text}
        readOnly={!session.can.manage}
        onChange={(t) => {
          setText(t);
          setReview(undefined);
          apply.reset();
        }}
        problems={shown}
        handle={editor}
      />
      {session.can.manage && (
        <div className="row">
          <button type="button" onClick={() => dry.mutate()} disabled={problems.length > 0}>
            Review changes
          </button>
          <button
            type="button"
            className="primary"
            onClick={() => apply.mutate()}
            disabled={!review || review.unchanged || apply.isPending}
          >
            Apply
          </button>
          {name !== '' && (
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Delete policy ${name}?`)) remove.mutate();
              }}
            >
              Delete
            </button>
          )}
        </div>
      )}
      <ErrorBox error={failed} onGoto={(p) => editor.current?.goto(p.line ?? 1, p.column ?? 1)} />
      {review &&
        (review.unchanged ? (
          <p>Nothing would change.</p>
        ) : (
          <DiffTable rows={review.diff} caption="Changes to apply" />
        ))}
      {apply.data && (
        <p role="status" className="panel ok">
          Applied {apply.data.policy.name} version {apply.data.policy.version}
          {apply.data.bundleVersion ? `; policy bundle ${apply.data.bundleVersion} published` : ''}.
        </p>
      )}
    </section>
  );
}
