import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'policy',
  config: {},
  grpcAddress: serviceEndpoints.policy,
  mongo: true,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
