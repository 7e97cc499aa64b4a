export { resourceConnectors } from './list.js';
export {
  applyDefaults,
  createConnectors,
  parseResourceDescriptors,
  resourceKinds,
  validate,
} from './descriptors.js';
export { publishedSchemas } from './published.js';
