import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'audit',
  config: {},
  grpcAddress: serviceEndpoints.audit,
  mongo: true,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
