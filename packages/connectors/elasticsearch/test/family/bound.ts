/**
 * Core's kind-taking functions bound to the Elasticsearch kind alone, so these tests read the
 * way the descriptors and tools of one Elasticsearch resource behave.
 */
import {
  ToolValidatorCache,
  applyDescriptorDefaults as applyDefaultsWith,
  createKindRegistry,
  mergeSchema as mergeSchemaWith,
  parseDescriptors as parseDescriptorsWith,
  permissionsFromAccess as permissionsFromAccessWith,
  synthesizeTools as synthesizeToolsWith,
  validateDescriptor as validateDescriptorWith,
} from '@tollgate/core';
import type {
  AccessPrincipal,
  Descriptor,
  DiscoveredSchema,
  FieldSpec,
  MergeResult,
  ParsedDescriptors,
  PermissionSet,
  ResourceDescriptor,
  SynthesisOptions,
  ToolDefinition,
  ValidationResult,
  VersionedResource,
} from '@tollgate/core';
import { elasticsearchKind } from '../../src/index.js';

export const kinds = createKindRegistry([elasticsearchKind]);

export function validateDescriptor(input: unknown): ValidationResult {
  return validateDescriptorWith(input, kinds);
}

export function parseDescriptors(text: string, source?: string): ParsedDescriptors {
  return parseDescriptorsWith(text, kinds, source);
}

export function applyDescriptorDefaults<D extends Descriptor>(descriptor: D): D {
  return applyDefaultsWith(descriptor, kinds);
}

export function synthesizeTools(
  resource: VersionedResource,
  permissions: PermissionSet,
  options?: SynthesisOptions,
): ToolDefinition[] {
  return synthesizeToolsWith(resource, permissions, elasticsearchKind, options);
}

export function permissionsFromAccess(
  resource: ResourceDescriptor,
  principal: AccessPrincipal,
): PermissionSet | undefined {
  return permissionsFromAccessWith(resource, principal, elasticsearchKind.operations(resource));
}

export function mergeSchema(
  declared: Record<string, FieldSpec>,
  discovered: DiscoveredSchema,
): MergeResult {
  return mergeSchemaWith(declared, discovered, elasticsearchKind.fieldFamily);
}

export function validatorCache(): ToolValidatorCache {
  return new ToolValidatorCache({ kinds });
}
