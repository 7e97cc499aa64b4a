/**
 * Rules of Policy and Agent descriptors beyond their JSON Schema: a policy says something
 * (grants or Cedar), every grant names its principals, and conditions are well-formed.
 */
import type { DescriptorProblem } from './problems.js';
import { mismatch } from './problems.js';
import { checkCidr, checkTimeWindow } from './formats.js';
import { joinPath } from './path.js';
import { asRecord, stringItems } from './record.js';

/** Every rule violation in a Policy descriptor. */
export function policyRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  if (spec === undefined) return [];
  const problems: DescriptorProblem[] = [];
  const noGrants =
    spec.grants === undefined || (Array.isArray(spec.grants) && spec.grants.length === 0);
  if (noGrants && spec.cedar === undefined) {
    problems.push(mismatch('spec', 'at least one of grants or cedar', 'neither'));
  }
  if (typeof spec.cedar === 'string' && spec.cedar !== '' && spec.cedar.trim() === '') {
    problems.push(mismatch('spec.cedar', 'Cedar policy text', 'only whitespace'));
  }
  const grants: unknown[] = Array.isArray(spec.grants) ? spec.grants : [];
  grants.forEach((grant, index) =>
    problems.push(...grantRules(joinPath('spec.grants', index), asRecord(grant))),
  );
  return problems;
}

function grantRules(at: string, grant: Record<string, unknown> | undefined): DescriptorProblem[] {
  if (grant === undefined) return [];
  const problems: Array<DescriptorProblem | undefined> = [];
  const principals = asRecord(grant.principals);
  if (
    principals !== undefined &&
    principals.roles === undefined &&
    principals.agents === undefined
  ) {
    problems.push(
      mismatch(joinPath(at, 'principals'), 'at least one of roles or agents', 'neither'),
    );
  }
  const conditions = asRecord(grant.conditions);
  const conditionsAt = joinPath(at, 'conditions');
  for (const { index, item } of stringItems(conditions?.ipCidr)) {
    problems.push(checkCidr(joinPath(joinPath(conditionsAt, 'ipCidr'), index), item));
  }
  if (typeof conditions?.timeWindow === 'string') {
    problems.push(checkTimeWindow(joinPath(conditionsAt, 'timeWindow'), conditions.timeWindow));
  }
  return problems.filter((p) => p !== undefined);
}

/** Agents have no rules beyond their schema. */
export function agentRules(): DescriptorProblem[] {
  return [];
}
