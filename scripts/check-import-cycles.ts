/**
 * Fails when source files import each other in a circle — type-only imports included, since a
 * circle of types is still two files that cannot be read one after the other (the shared types
 * belong in the lower file). `pnpm lint` runs it over every package's and service's `src/`.
 *
 * ESLint's import-x/no-cycle skips `import type`, so it would not see the circles this is for.
 * Imports are read with TypeScript's own pre-processor; only relative ones can close a circle
 * (packages depend on each other through project references, which tsc keeps acyclic).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every `src/` folder of the workspace. */
function sourceRoots(): string[] {
  const roots: string[] = [];
  const add = (dir: string) => {
    if (existsSync(join(dir, 'src'))) roots.push(join(dir, 'src'));
  };
  for (const area of ['packages', 'services']) {
    for (const name of readdirSync(join(root, area))) {
      const dir = join(root, area, name);
      if (!statSync(dir).isDirectory()) continue;
      add(dir);
      if (name === 'connectors') for (const kind of readdirSync(dir)) add(join(dir, kind));
    }
  }
  return roots;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'gen' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in source), if it is one of ours. */
function resolveImport(from: string, specifier: string, known: Set<string>): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), base]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((ref) => ref.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveImport(file, specifier, known))
      .filter((target): target is string => target !== undefined && target !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** One concrete circle through `start` inside its component, for the message. */
function pathBack(graph: Map<string, string[]>, component: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

const files = sourceRoots().flatMap(sourceFiles);
const graph = importGraph(files);
const found = circles(graph);
if (found.length > 0) {
  process.stderr.write(`import circles (move the types both files share into the lower one):\n`);
  for (const component of found) {
    const start = [...component].sort()[0]!;
    const path = pathBack(graph, new Set(component), start);
    const more = component.length > path.length - 1 ? ` (${component.length} files in all)` : '';
    process.stderr.write(`  ${path.map((file) => relative(root, file)).join(' → ')}${more}\n`);
  }
  process.exit(1);
}
process.stdout.write(`no import circles (${files.length} source files)\n`);
