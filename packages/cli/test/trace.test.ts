import { afterEach, describe, expect, it } from 'vitest';
import { createStyle, plainOutcome, renderOutcome } from '../src/index.js';
import { traceText, traceUrl } from '../src/render/trace.js';

const id = '4bf92f3577b34da6a3ce929d0e0e4736';
const jaeger = 'http://127.0.0.1:16686/trace/{traceId}';

afterEach(() => {
  delete process.env['TOLLGATE_TRACE_URL'];
});

describe('trace - the trace URL next to the trace id', () => {
  it('trace - with a backend configured the URL follows the id; without, the id alone', () => {
    expect(traceText(id, { TOLLGATE_TRACE_URL: jaeger })).toBe(
      `trace ${id} http://127.0.0.1:16686/trace/${id}`,
    );
    expect(traceText(id, {})).toBe(`trace ${id}`);
  });

  it('trace - a template that is not an http(s) URL with {traceId}, or an id that is not one, prints no link', () => {
    expect(traceUrl(id, 'http://127.0.0.1:16686/search')).toBeUndefined();
    expect(traceUrl(id, 'javascript:alert({traceId})')).toBeUndefined();
    expect(traceUrl(id, 'file:///tmp/{traceId}')).toBeUndefined();
    expect(traceUrl(id, 'not a url {traceId}')).toBeUndefined();
    expect(traceUrl('../../admin', jaeger)).toBeUndefined();
    expect(traceUrl(id.toUpperCase(), jaeger)).toBeUndefined();
  });

  it("trace - a call's envelope shows the link when TOLLGATE_TRACE_URL is set", () => {
    process.env['TOLLGATE_TRACE_URL'] = jaeger;
    const text = renderOutcome(
      plainOutcome({
        callId: 'c1',
        status: 'ok',
        data: [],
        meta: {
          tool: 'es_orders_search',
          resource: 'es_orders',
          resourceVersion: 1,
          returned: 0,
          truncated: false,
          latencyMs: 3,
          traceId: id,
        },
      } as never),
      createStyle(false),
    );
    expect(text).toContain(`trace ${id} http://127.0.0.1:16686/trace/${id}`);
  });
});
