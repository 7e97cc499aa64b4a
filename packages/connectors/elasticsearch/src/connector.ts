import type { Connector } from '@tollgate/core';

import { closeClients } from './client.js';
import { compileRequest, elasticsearchOperations } from './compile/compile.js';
import { discoverSchema } from './discovery/discover.js';
import { executeRequest } from './execute/execute.js';
import type { EsRequest } from './native.js';
import { shapeResult } from './shape/shape.js';

/** The Elasticsearch connector: one entry in the list services build their registry from. */
export const elasticsearchConnector: Connector<EsRequest> = {
  kind: 'elasticsearch',
  operations: (descriptor) => elasticsearchOperations(descriptor.spec.access.readonly),
  discover: discoverSchema,
  compile: compileRequest,
  execute: executeRequest,
  shape: shapeResult,
  close: closeClients,
};
