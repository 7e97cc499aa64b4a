import type { Connector, ResourceSpec } from '@tollgate/core';

import { closeClients } from './client.js';
import { compileRequest } from './compile/compile.js';
import { discoverSchema } from './discovery/discover.js';
import { executeRequest } from './execute/execute.js';
import { elasticsearchKind } from './kind/kind.js';
import type { EsRequest } from './native.js';
import { shapeResult } from './shape/shape.js';

/** The Elasticsearch kind with its connector: one entry in the list of kinds. */
export const elasticsearchConnector: Connector<EsRequest, ResourceSpec> = {
  ...elasticsearchKind,
  discover: discoverSchema,
  compile: compileRequest,
  execute: executeRequest,
  shape: shapeResult,
  close: closeClients,
};
