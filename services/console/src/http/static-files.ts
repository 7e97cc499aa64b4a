import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** Fingerprinted build output (`assets/…`) may be cached for good. */
  immutable: boolean;
}

/**
 * The built single-page app, read and compressed (brotli, gzip) once at start. Paths that are
 * not files are the app's own routes and get `index.html`.
 */
export class StaticFiles {
  readonly #files: Map<string, StaticFile>;

  private constructor(files: Map<string, StaticFile>) {
    this.#files = files;
  }

  static async load(root: string): Promise<StaticFiles> {
    const files = new Map<string, StaticFile>();
    for (const path of await walk(root)) {
      const raw = await readFile(path);
      const name = `/${relative(root, path).split(sep).join('/')}`;
      files.set(name, {
        type: TYPES[extname(path)] ?? 'application/octet-stream',
        raw,
        gzip: gzipSync(raw, { level: 9 }),
        br: brotliCompressSync(raw, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
        }),
        immutable: name.startsWith('/assets/'),
      });
    }
    if (!files.has('/index.html')) {
      throw new Error(`${root} has no index.html: build the app (pnpm build)`);
    }
    return new StaticFiles(files);
  }

  /** Sizes of every JavaScript file: raw, gzip and brotli bytes (for the size report). */
  scriptSizes(): Array<{ path: string; raw: number; gzip: number; br: number }> {
    return [...this.#files]
      .filter(([path]) => path.endsWith('.js'))
      .map(([path, f]) => ({ path, raw: f.raw.length, gzip: f.gzip.length, br: f.br.length }));
  }

  serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const file =
      this.#files.get(path) ??
      (path.startsWith('/assets/') ? undefined : this.#files.get('/index.html'));
    if (file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const [body, encoding] = /\bbr\b/.test(accepts)
      ? [file.br, 'br']
      : /\bgzip\b/.test(accepts)
        ? [file.gzip, 'gzip']
        : [file.raw, undefined];
    res.writeHead(200, {
      'content-type': file.type,
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-store',
      vary: 'accept-encoding',
      'content-length': body.length,
      ...(encoding ? { 'content-encoding': encoding } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
