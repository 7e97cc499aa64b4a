import { bootService, serviceEndpoints } from '@tollgate/kit';
import { registerPolicyApi } from './api/api.js';
import { policyConfig } from './config.js';
import { startPolicyService } from './service.js';

await bootService({
  name: 'policy',
  config: policyConfig,
  grpcAddress: serviceEndpoints.policy,
  mongo: true,
  async start({ config, logger, nc, mongo, grpcServer, lifecycle, verifier }) {
    const parts = await startPolicyService({
      db: (mongo as NonNullable<typeof mongo>).db,
      nc,
      logger,
      approvalTtlMs: config.approvalTtlMs,
      approvalSweepIntervalMs: config.approvalSweepIntervalMs,
      approvalsDurable: config.approvalsDurable,
      approvalsReplayMs: config.approvalsReplayMs,
      bundleWindowMs: config.bundleWindowMs,
      reconcileIntervalMs: config.reconcileIntervalMs,
      resourcesBucket: config.resourcesBucket,
      bundlesBucket: config.bundlesBucket,
    });
    lifecycle.add('policy', () => parts.stop());
    registerPolicyApi(grpcServer, {
      declarations: parts.declarations,
      decisions: parts.decisions,
      approvals: parts.approvals,
      verifier,
      logger,
    });
  },
});
