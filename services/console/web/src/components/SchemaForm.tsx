/**
 * A form generated from a JSON Schema: objects as groups, maps as key/value lists, arrays as
 * repeatable items, `anyOf`/`oneOf` as a choice of branch, enums as selects. Problems from the
 * server are shown at the field whose path they name.
 */
import { useId, useState } from 'react';
import type { ProblemDetail } from '../api.js';
import {
  branchLabel,
  branchOf,
  deref,
  discriminator,
  effective,
  joinPath,
  typeOf,
} from './schema.js';
import type { Schema } from './schema.js';

interface FieldProps {
  schema: Schema | undefined;
  root: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
  label: string;
  required?: boolean;
  problems: ProblemDetail[];
  depth: number;
}

export function SchemaForm(props: {
  schema: Schema;
  root: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  problems?: ProblemDetail[];
  label: string;
}) {
  return (
    <div className="schema-form">
      <Field
        schema={props.schema}
        root={props.root}
        value={props.value}
        onChange={props.onChange}
        path=""
        label={props.label}
        required
        problems={props.problems ?? []}
        depth={0}
      />
    </div>
  );
}

function FieldProblems({ problems, path }: { problems: ProblemDetail[]; path: string }) {
  const mine = problems.filter((p) => p.path === path);
  if (mine.length === 0) return null;
  return (
    <div className="field-error" role="alert">
      {mine.map((p) => p.message).join('; ')}
    </div>
  );
}

function Field(props: FieldProps) {
  const { root, value, onChange, path, label, required, problems, depth } = props;
  const schema = effective(props.schema, root, value);
  const id = useId();
  const hint = schema.description;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0)
    return <Branches {...props} schema={schema} branches={branches} />;
  if (schema.const !== undefined) {
    if (value !== schema.const) queueMicrotask(() => onChange(schema.const));
    return (
      <div className="form-field">
        <span className="muted">{label}: </span>
        <code>{JSON.stringify(schema.const)}</code>
      </div>
    );
  }
  const type = typeOf(schema);
  if (type === 'object') return <ObjectField {...props} schema={schema} />;
  if (type === 'array') return <ArrayField {...props} schema={schema} />;
  const text = `${label}${required ? ' *' : ''}`;
  let control;
  if (schema.enum) {
    control = (
      <select
        id={id}
        value={value === undefined ? '' : String(value)}
        onChange={(e) =>
          onChange(
            e.target.value === ''
              ? undefined
              : schema.enum?.find((v) => String(v) === e.target.value),
          )
        }
      >
        <option value="">—</option>
        {schema.enum.map((v) => (
          <option key={String(v)} value={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  } else if (type === 'boolean') {
    return (
      <div className="form-field">
        <label className="inline">
          <input
            type="checkbox"
            checked={value === true}
            onChange={(e) =>
              onChange(e.target.checked ? true : depth > 0 && !required ? undefined : false)
            }
          />
          {text}
        </label>
        {hint && <div className="hint">{hint}</div>}
        <FieldProblems problems={problems} path={path} />
      </div>
    );
  } else if (type === 'number' || type === 'integer') {
    control = (
      <input
        id={id}
        type="number"
        step={type === 'integer' ? 1 : 'any'}
        {...(schema.minimum !== undefined ? { min: schema.minimum } : {})}
        {...(schema.maximum !== undefined ? { max: schema.maximum } : {})}
        value={typeof value === 'number' ? value : ''}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
      />
    );
  } else {
    control = (
      <input
        id={id}
        type="text"
        value={typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)}
        placeholder={schema.format ?? ''}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
      />
    );
  }
  return (
    <div className="form-field">
      <label htmlFor={id}>{text}</label>
      {control}
      {hint && <div className="hint">{hint}</div>}
      <FieldProblems problems={problems} path={path} />
    </div>
  );
}

function ObjectField(props: FieldProps & { schema: Schema }) {
  const { schema, root, value, onChange, path, label, problems, depth } = props;
  const object = (
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  ) as Record<string, unknown>;
  const set = (key: string, v: unknown) => {
    const next = { ...object };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(Object.keys(next).length === 0 && depth > 0 ? undefined : next);
  };
  const properties = Object.entries(schema.properties ?? {});
  const extra =
    typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const body = (
    <>
      {schema.description && depth > 0 && <div className="hint">{schema.description}</div>}
      <FieldProblems problems={problems} path={path} />
      {properties.map(([key, child]) => (
        <Field
          key={key}
          schema={child}
          root={root}
          value={object[key]}
          onChange={(v) => set(key, v)}
          path={joinPath(path, key)}
          label={key}
          required={schema.required?.includes(key) ?? false}
          problems={problems}
          depth={depth + 1}
        />
      ))}
      {extra && (
        <MapEntries
          {...props}
          extra={extra}
          object={object}
          set={set}
          known={new Set(properties.map(([k]) => k))}
        />
      )}
    </>
  );
  if (depth === 0) return <div>{body}</div>;
  return (
    <fieldset className="form-field">
      <legend>
        {label}
        {props.required ? ' *' : ''}
      </legend>
      {body}
    </fieldset>
  );
}

function MapEntries(
  props: FieldProps & {
    extra: Schema;
    object: Record<string, unknown>;
    set: (k: string, v: unknown) => void;
    known: Set<string>;
  },
) {
  const { extra, object, set, known, root, path, problems, depth, label } = props;
  const [key, setKey] = useState('');
  const id = useId();
  const entries = Object.entries(object).filter(([k]) => !known.has(k));
  return (
    <div className="form-field">
      {entries.map(([k, v]) => (
        <div key={k}>
          <Field
            schema={extra}
            root={root}
            value={v}
            onChange={(nv) => set(k, nv)}
            path={joinPath(path, k)}
            label={k}
            problems={problems}
            depth={depth + 1}
          />
          <button type="button" className="danger" onClick={() => set(k, undefined)}>
            Remove {k}
          </button>
        </div>
      ))}
      <div className="row">
        <label htmlFor={id}>New entry in {label}</label>
        <input id={id} value={key} onChange={(e) => setKey(e.target.value)} />
        <button
          type="button"
          disabled={key === '' || key in object}
          onClick={() => {
            const ex = deref(extra, root);
            set(key, typeOf(ex) === 'object' ? {} : typeOf(ex) === 'array' ? [] : '');
            setKey('');
          }}
        >
          Add
        </button>
      </div>
    </div>
  );
}

function ArrayField(props: FieldProps & { schema: Schema }) {
  const { schema, root, value, onChange, path, label, problems, depth, required } = props;
  const list = Array.isArray(value) ? value : [];
  const item = deref(schema.items, root);
  const setAt = (i: number, v: unknown) => {
    const next = [...list];
    if (v === undefined) next.splice(i, 1);
    else next[i] = v;
    onChange(next.length === 0 && !required ? undefined : next);
  };
  if (item.enum && schema.uniqueItems) {
    return (
      <fieldset className="form-field">
        <legend>{label}</legend>
        {item.enum.map((v) => (
          <label key={String(v)} className="inline">
            <input
              type="checkbox"
              checked={list.includes(v)}
              onChange={(e) => {
                const next = e.target.checked ? [...list, v] : list.filter((x) => x !== v);
                onChange(next.length === 0 && !required ? undefined : next);
              }}
            />
            {String(v)}
          </label>
        ))}
        <FieldProblems problems={problems} path={path} />
      </fieldset>
    );
  }
  const blank = () => {
    const t = typeOf(effective(item, root, undefined));
    return t === 'object' || item.anyOf || item.oneOf
      ? {}
      : t === 'array'
        ? []
        : t === 'boolean'
          ? false
          : undefined;
  };
  return (
    <fieldset className="form-field">
      <legend>
        {label}
        {required ? ' *' : ''}
      </legend>
      {schema.description && <div className="hint">{schema.description}</div>}
      <FieldProblems problems={problems} path={path} />
      {list.map((v, i) => (
        <div key={i} className="array-item">
          <Field
            schema={schema.items}
            root={root}
            value={v}
            onChange={(nv) => setAt(i, nv)}
            path={joinPath(path, i)}
            label={`${label} ${i + 1}`}
            problems={problems}
            depth={depth + 1}
            required
          />
          <button type="button" className="danger" onClick={() => setAt(i, undefined)}>
            Remove {label} {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...list, blank() ?? ''])}>
        Add {label}
      </button>
    </fieldset>
  );
}

function Branches(props: FieldProps & { schema: Schema; branches: Schema[] }) {
  const { branches, root, value, onChange, label, path, problems, depth, required } = props;
  const id = useId();
  const chosen = branchOf(branches, root, value);
  const branch = branches[chosen];
  return (
    <div className="form-field">
      <label htmlFor={id}>
        {label} — kind{required ? ' *' : ''}
      </label>
      <select
        id={id}
        value={chosen}
        onChange={(e) => {
          const next = branches[Number(e.target.value)];
          const d = next ? discriminator(next, root) : undefined;
          onChange(d ? { [d[0]]: d[1] } : undefined);
        }}
      >
        {branches.map((b, i) => (
          <option key={i} value={i}>
            {branchLabel(b, root, i)}
          </option>
        ))}
      </select>
      <Field
        schema={branch}
        root={root}
        value={value}
        onChange={onChange}
        path={path}
        label={label}
        problems={problems}
        depth={depth + 1}
        required={required ?? false}
      />
    </div>
  );
}
