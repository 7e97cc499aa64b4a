import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the local stack lives: the source checkout the services run from (when there is one)
 * and the `.tollgate/` state folder — `run/<service>.{pid,json,log}`, `keys/issuer.json`
 * (the dev issuer) and `trusted-issuers.json` (what the services trust).
 */
export interface StackHome {
  /** The Tollgate source checkout (with `deploy/local` and `services/`), when found. */
  checkout: string | undefined;
  /** `.tollgate/` */
  root: string;
  run: string;
  issuerKeyFile: string;
  trustedIssuersFile: string;
}

/** `TOLLGATE_HOME`, else `<checkout>/.tollgate`, else `<cwd>/.tollgate`. */
export function resolveHome(env: NodeJS.ProcessEnv, cwd: string): StackHome {
  const checkout = findCheckout(cwd);
  const root = env.TOLLGATE_HOME
    ? resolve(cwd, env.TOLLGATE_HOME)
    : join(checkout ?? cwd, '.tollgate');
  return {
    checkout,
    root,
    run: join(root, 'run'),
    issuerKeyFile: join(root, 'keys', 'issuer.json'),
    trustedIssuersFile: join(root, 'trusted-issuers.json'),
  };
}

/** The checkout this CLI was built in, else the nearest one above `cwd`. */
function findCheckout(cwd: string): string | undefined {
  const own = fileURLToPath(new URL('../../../../', import.meta.url));
  if (isCheckout(own)) return resolve(own);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (isCheckout(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isCheckout(dir: string): boolean {
  return existsSync(join(dir, 'deploy', 'local', 'up.sh')) && existsSync(join(dir, 'services'));
}
