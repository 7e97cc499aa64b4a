import { bootService, ensureEventStream, serviceEndpoints } from '@tollgate/kit';

await bootService({
  name: 'synthesizer',
  config: {},
  grpcAddress: serviceEndpoints.synthesizer,
  mongo: false,
  async start({ nc }) {
    await ensureEventStream(nc);
  },
});
