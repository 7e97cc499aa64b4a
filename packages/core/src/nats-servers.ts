/**
 * The servers a NATS URL setting names: one URL, or several comma-separated (every node of a
 * cluster, so a client reaches the others when one is down). Empty entries are dropped.
 */
export function natsServers(url: string | readonly string[]): string[] {
  const parts = typeof url === 'string' ? url.split(',') : url;
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}
