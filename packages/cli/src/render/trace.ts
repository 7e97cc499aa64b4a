/**
 * `trace <id>`, followed by where to see it when a trace backend is configured:
 * `TOLLGATE_TRACE_URL` is a URL template holding `{traceId}` (Jaeger from deploy/local:
 * `http://127.0.0.1:16686/trace/{traceId}`). A template that is not an http(s) URL with
 * `{traceId}` in it is ignored, and the id alone is printed.
 */
export function traceText(
  traceId: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const url = traceUrl(traceId, env['TOLLGATE_TRACE_URL'] ?? '');
  return url === undefined ? `trace ${traceId}` : `trace ${traceId} ${url}`;
}

/** The template with the id filled in, or undefined when there is no usable template. */
export function traceUrl(traceId: string, template: string): string | undefined {
  if (!template.includes('{traceId}') || !/^[0-9a-f]{32}$/.test(traceId)) return undefined;
  let url: URL;
  try {
    url = new URL(template.replaceAll('{traceId}', traceId));
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
}
