export { httpConnector } from './connector.js';
export { httpKind, httpSpecSchema } from './kind/kind.js';
export type {
  HttpAuth,
  HttpConnection,
  HttpDocument,
  HttpField,
  HttpFieldType,
  HttpMethod,
  HttpOperation,
  HttpPagination,
  HttpParameter,
  HttpRequestShape,
  HttpResponseShape,
  HttpSchema,
  HttpSpec,
} from './kind/spec.js';
export type { HttpPaging, HttpRequest } from './native.js';
export { compileRequest } from './compile/compile.js';
export {
  describeSelection,
  discoverHttp,
  fetchDocument,
  readDocument,
} from './document/discover.js';
export { executeRequest } from './execute/execute.js';
export type { HttpAnswerBody } from './execute/execute.js';
export { isSpecialAddress } from './execute/address.js';
export { shapeResult } from './shape/shape.js';
