import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { describeDescriptorProblems } from '@tollgate/core';
import { parseResourceDescriptors } from '@tollgate/kinds';
import type { Descriptor, DescriptorProblem } from '@tollgate/core';
import { CliError, usageError } from '../errors.js';

/** One valid descriptor and where it was read from. */
export interface LoadedDescriptor {
  descriptor: Descriptor;
  /** The file, relative to the working directory when inside it. */
  source: string;
  /** 1-based line where the document starts. */
  line: number;
}

const DESCRIPTOR_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * Reads every descriptor in `paths` — files, or folders searched recursively for `.yaml`,
 * `.yml` and `.json` files in name order — and validates all of them. Every problem of every
 * document is reported (`file:line:col: path: message`) in one CliError; nothing is returned
 * unless everything is valid. A path that does not exist is a usage error.
 */
export async function loadDescriptors(
  paths: readonly string[],
  cwd: string,
  onFile?: (file: string, index: number, total: number) => void,
): Promise<LoadedDescriptor[]> {
  if (paths.length === 0) throw usageError('-f: name at least one file or folder');
  const files: string[] = [];
  for (const path of paths) files.push(...(await descriptorFiles(resolve(cwd, path), path)));
  const loaded: LoadedDescriptor[] = [];
  const problems: DescriptorProblem[] = [];
  for (const [index, file] of files.entries()) {
    const source = displayPath(file, cwd);
    onFile?.(source, index, files.length);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw usageError(
        `cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const parsed = parseResourceDescriptors(text, source);
    if (parsed.documents.length === 0) {
      problems.push({
        source,
        path: '',
        message: 'no descriptor in this file',
        line: 1,
        column: 1,
      });
    }
    for (const document of parsed.documents) {
      if (document.result.ok) {
        loaded.push({ descriptor: document.result.descriptor, source, line: document.line });
      } else {
        problems.push(...document.result.problems);
      }
    }
  }
  problems.push(...duplicates(loaded));
  if (problems.length > 0) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    throw new CliError(
      'DESCRIPTOR_INVALID',
      `nothing applied: ${count} in the descriptors\n${describeDescriptorProblems(problems)}`,
      {
        details: problems.map((p) => ({
          path: `${p.source ?? ''}:${p.line ?? 1}:${p.column ?? 1}${p.path ? ` ${p.path}` : ''}`,
          message: p.message,
          ...(p.expected ? { expected: p.expected } : {}),
          ...(p.found ? { found: p.found } : {}),
        })),
      },
    );
  }
  return loaded;
}

async function descriptorFiles(absolute: string, given: string): Promise<string[]> {
  let info;
  try {
    info = await stat(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(
      code === 'ENOENT'
        ? `${given}: no such file or folder`
        : `${given}: cannot be read (${code ?? (err as Error).message})`,
    );
  }
  if (info.isFile()) return [absolute];
  if (!info.isDirectory()) throw usageError(`${given}: not a file or folder`);
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && DESCRIPTOR_EXTENSIONS.has(extname(entry.name))) found.push(path);
    }
  };
  await walk(absolute);
  if (found.length === 0)
    throw usageError(`${given}: no .yaml, .yml or .json files in this folder`);
  return found;
}

/** The same kind, tenant, environment and name twice would apply one over the other. */
function duplicates(loaded: readonly LoadedDescriptor[]): DescriptorProblem[] {
  const seen = new Map<string, LoadedDescriptor>();
  const problems: DescriptorProblem[] = [];
  for (const item of loaded) {
    const key = identity(item.descriptor);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, item);
      continue;
    }
    problems.push({
      source: item.source,
      line: item.line,
      column: 1,
      path: 'metadata.name',
      message: `${key} is also declared at ${first.source}:${first.line}`,
    });
  }
  return problems;
}

/** `Kind tenant[/environment]/name`. */
export function identity(descriptor: Descriptor): string {
  const m = descriptor.metadata;
  const scope =
    descriptor.kind === 'Resource' ? `${m.tenant}/${descriptor.metadata.environment}` : m.tenant;
  return `${descriptor.kind} ${scope}/${m.name}`;
}

function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
