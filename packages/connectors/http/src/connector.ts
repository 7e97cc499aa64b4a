import type { Connector, ResourceSpec } from '@tollgate/core';

import { compileRequest } from './compile/compile.js';
import { discoverHttp } from './document/discover.js';
import { clearTokens } from './execute/credential.js';
import { executeRequest } from './execute/execute.js';
import { httpKind } from './kind/kind.js';
import type { HttpRequest } from './native.js';
import { shapeResult } from './shape/shape.js';

/** The http kind with its connector: one entry in the list of kinds. */
export const httpConnector: Connector<HttpRequest, ResourceSpec> = {
  ...httpKind,
  discover: discoverHttp,
  compile: compileRequest,
  execute: executeRequest,
  shape: shapeResult,
  close: () => {
    clearTokens();
    return Promise.resolve();
  },
};
