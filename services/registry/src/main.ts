import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'registry',
  config: {},
  grpcAddress: serviceEndpoints.registry,
  mongo: true,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
