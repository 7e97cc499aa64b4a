/** One changed path of a document (server diffs use `operation`, history diffs `op`). */
export interface DiffRow {
  path: string;
  operation?: string;
  op?: string;
  before?: unknown;
  after?: unknown;
}

function show(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

function opOf(row: DiffRow): string {
  return (row.op ?? row.operation ?? '').replace('DIFF_OPERATION_', '').toLowerCase();
}

/** A diff as a table: path, what happened, before, after. */
export function DiffTable({ rows, caption }: { rows: DiffRow[]; caption: string }) {
  if (rows.length === 0) return <p className="muted">{caption}: no changes.</p>;
  return (
    <table>
      <caption className="muted">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Path</th>
          <th scope="col">Change</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.path + opOf(r)}>
            <td>
              <code>{r.path}</code>
            </td>
            <td>{opOf(r)}</td>
            <td>
              <code>{show(r.before)}</code>
            </td>
            <td>
              <code>{show(r.after)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
