import { approvalRoutes } from './api/approvals.js';
import { auditRoutes } from './api/audit.js';
import { declarationRoutes } from './api/declarations.js';
import { memoryRoutes } from './api/memory.js';
import { overviewRoutes } from './api/overview.js';
import { resourceRoutes } from './api/resources.js';
import { toolRoutes } from './api/tools.js';
import type { EventFeed } from './events/feed.js';
import { STREAMED } from './http/route.js';
import type { Route } from './http/route.js';
import { forbidden } from './http/problem.js';

/** Every API route of the console, each with the role it needs. */
export function consoleRoutes(feed: EventFeed): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/events',
      needs: 'read',
      async handle({ session, res }) {
        feed.open(session.tenant, res);
        return STREAMED;
      },
    },
    {
      method: 'POST',
      path: '/api/session/tenant',
      needs: 'read',
      async handle({ session, body }) {
        const tenant = String(body.tenant ?? '');
        if (!session.operator.tenants.includes(tenant))
          throw forbidden(`Tenant "${tenant.slice(0, 64)}" is not yours.`);
        session.tenant = tenant;
        return { tenant };
      },
    },
    ...overviewRoutes,
    ...resourceRoutes,
    ...declarationRoutes,
    ...toolRoutes,
    ...approvalRoutes,
    ...auditRoutes,
    ...memoryRoutes,
  ];
}
