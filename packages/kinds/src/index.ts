export { resourceConnectors } from './list.js';
export {
  applyDefaults,
  createConnectors,
  operationsOf,
  parseResourceDescriptors,
  resourceKinds,
  synthesize,
  validate,
  validatorCache,
} from './descriptors.js';
export { publishedSchemas, selfContainedSchemas } from './published.js';
