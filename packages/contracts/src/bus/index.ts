// The NATS contract: subjects, headers, stream and bucket names.
export {
  AUTHORIZATION_HEADER,
  ERROR_HEADER,
  EVENTS_STREAM,
  EventTypes,
  buckets,
  eventTenant,
  isCallSubject,
  parsePolicyBundleKey,
  policyBundleKey,
  policyBundleLookup,
  parseWithdrawalKey,
  resourceKey,
  subjects,
  withdrawalKey,
} from './subjects.js';
export type { EventType } from './subjects.js';
