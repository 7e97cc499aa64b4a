import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'executor',
  config: {},
  grpcAddress: serviceEndpoints.executor,
  mongo: false,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
