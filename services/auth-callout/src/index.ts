export { AUTH_CALLOUT_SUBJECT, serveCallout } from './api.js';
export { authorize } from './callout.js';
export type { CalloutDecision, CalloutDeps } from './callout.js';
export { AGENT_PUBLISH, agentPermissions, subscriberPermissions } from './permissions.js';
export type { BusPermissions } from './permissions.js';
