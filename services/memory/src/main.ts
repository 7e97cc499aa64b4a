import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'memory',
  config: {},
  grpcAddress: serviceEndpoints.memory,
  mongo: true,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
