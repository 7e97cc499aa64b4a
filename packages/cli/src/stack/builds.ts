/**
 * When a service's code was last built: the newest compiled file in its own `dist` and in the
 * `dist` of every workspace package it depends on (transitively). A service started before
 * that runs old code.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceName } from './services.js';

const WORKSPACE_FOLDERS = ['services', 'packages', join('packages', 'connectors')];

/** Newest build time (ms since epoch) per service; 0 when nothing is built. */
export async function serviceBuilds(
  checkout: string,
  services: readonly ServiceName[],
): Promise<Record<ServiceName, number>> {
  const packages = await workspacePackages(checkout);
  const newestOf = new Map<string, Promise<number>>();
  const builtAt = (dir: string) => {
    let newest = newestOf.get(dir);
    if (newest === undefined) {
      newest = newestJs(join(dir, 'dist'));
      newestOf.set(dir, newest);
    }
    return newest;
  };
  const out = {} as Record<ServiceName, number>;
  for (const service of services) {
    const dir = join(checkout, 'services', service);
    const name = [...packages].find(([, pkg]) => pkg.dir === dir)?.[0];
    const dirs = name === undefined ? [dir] : closure(packages, name);
    out[service] = Math.max(0, ...(await Promise.all(dirs.map(builtAt))));
  }
  return out;
}

interface WorkspacePackage {
  dir: string;
  dependencies: string[];
}

async function workspacePackages(checkout: string): Promise<Map<string, WorkspacePackage>> {
  const packages = new Map<string, WorkspacePackage>();
  for (const folder of WORKSPACE_FOLDERS) {
    let children: string[];
    try {
      children = await readdir(join(checkout, folder));
    } catch {
      continue;
    }
    for (const child of children) {
      const dir = join(checkout, folder, child);
      try {
        const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
          name?: string;
          dependencies?: Record<string, string>;
        };
        if (typeof manifest.name !== 'string') continue;
        const dependencies = Object.entries(manifest.dependencies ?? {})
          .filter(([, spec]) => spec.startsWith('workspace:'))
          .map(([name]) => name);
        packages.set(manifest.name, { dir, dependencies });
      } catch {
        // not a package
      }
    }
  }
  return packages;
}

/** The folders of `name` and everything it depends on in the workspace. */
function closure(packages: Map<string, WorkspacePackage>, name: string): string[] {
  const seen = new Set<string>();
  const dirs: string[] = [];
  const visit = (pkg: string) => {
    if (seen.has(pkg)) return;
    seen.add(pkg);
    const found = packages.get(pkg);
    if (found === undefined) return;
    dirs.push(found.dir);
    found.dependencies.forEach(visit);
  };
  visit(name);
  return dirs;
}

async function newestJs(dir: string): Promise<number> {
  let newest = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestJs(path));
    else if (entry.name.endsWith('.js')) newest = Math.max(newest, (await stat(path)).mtimeMs);
  }
  return newest;
}
