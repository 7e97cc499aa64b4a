/** Approvals: the queue, one approval, approve or reject with a reason (approvers only). */
import {
  ApproveResponseSchema,
  GetApprovalResponseSchema,
  ListPendingResponseSchema,
  RejectResponseSchema,
} from '@tollgate/contracts/policy/v1';
import { json } from '../backend/backend.js';
import type { Route } from '../http/route.js';
import { idParam, optionalName, textParam } from './params.js';

export const approvalRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/approvals',
    needs: 'read',
    async handle({ url, session, backend }) {
      const reply = await backend.policy.listPending(
        { resource: optionalName(url.searchParams.get('resource'), 'resource'), pageSize: 200 },
        await backend.as(session, 'read'),
      );
      return json(ListPendingResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/approvals/:id',
    needs: 'read',
    async handle({ params, session, backend }) {
      const reply = await backend.policy.getApproval(
        { id: idParam(params.id, 'id') },
        await backend.as(session, 'read'),
      );
      return json(GetApprovalResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/approvals/:id/approve',
    needs: 'decide',
    async handle({ params, body, session, backend }) {
      const reply = await backend.policy.approve(
        { id: idParam(params.id, 'id'), reason: textParam(body.reason, 'reason') },
        await backend.as(session, 'decide'),
      );
      return json(ApproveResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/approvals/:id/reject',
    needs: 'decide',
    async handle({ params, body, session, backend }) {
      const reply = await backend.policy.reject(
        { id: idParam(params.id, 'id'), reason: textParam(body.reason, 'reason') },
        await backend.as(session, 'decide'),
      );
      return json(RejectResponseSchema, reply);
    },
  },
];
