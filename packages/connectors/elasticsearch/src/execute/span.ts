import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import type { EsRequest } from '../native.js';
import type { Answer } from './send.js';

const tracer = () => trace.getTracer('tollgate.elasticsearch');

/**
 * One upstream attempt as a client span. The client library's own spans are off (`client.ts`):
 * they name the document id, the index and the path of every request, and a document id is an
 * argument. This one says what was asked and of whom — operation, server, status, error type —
 * and never which document, index or query.
 */
export async function inUpstreamSpan(
  native: EsRequest,
  endpoint: string,
  send: () => Promise<Answer>,
): Promise<Answer> {
  const url = new URL(endpoint);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return tracer().startActiveSpan(
    `elasticsearch ${native.api}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'elasticsearch',
        'db.operation.name': native.api,
        'server.address': url.hostname,
        'server.port': port,
      },
    },
    async (span) => {
      try {
        const answer = await send();
        span.setAttribute('db.response.status_code', String(answer.status));
        return answer;
      } catch (err) {
        const status = (err as { meta?: { statusCode?: unknown } }).meta?.statusCode;
        if (typeof status === 'number')
          span.setAttribute('db.response.status_code', String(status));
        span.setAttribute('error.type', (err as Error)?.name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
