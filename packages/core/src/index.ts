export { API_VERSION } from './descriptor/types.js';
export type {
  AccessSpec,
  AgentDescriptor,
  Descriptor,
  DescriptorKind,
  ElasticsearchConnection,
  ElasticsearchTarget,
  FieldSpec,
  FieldType,
  Grant,
  GrantConditions,
  GrantEffect,
  PolicyDescriptor,
  RedactionRule,
  ResourceDescriptor,
  ResourceMetadata,
  ResourceSpec,
  RowFilter,
} from './descriptor/types.js';
export type {
  AggregateArgs,
  AggregationKind,
  CountArgs,
  Filter,
  FilterOp,
  FilterValue,
  GetArgs,
  Operation,
  PermissionSet,
  SearchArgs,
  SortSpec,
  WriteArgs,
} from './tools/types.js';
export { ErrorCategory, ErrorCodes, TollgateError, categoryOf, isTollgateError } from './errors/codes.js';
export type { ErrorCode, ErrorDetail, TollgateErrorOptions } from './errors/codes.js';
