/**
 * Core's descriptor functions bound to this build's kinds, so callers need not pass the list
 * around: `validate(input)` reads a Resource with the schema of the kind its `spec.type` names.
 */
import {
  ToolValidatorCache,
  applyDescriptorDefaults,
  createConnectorRegistry,
  createKindRegistry,
  parseDescriptors,
  synthesizeTools,
  validateDescriptor,
} from '@tollgate/core';
import type {
  Connector,
  ConnectorRegistry,
  Descriptor,
  KindRegistry,
  OperationSpec,
  ParsedDescriptors,
  PermissionSet,
  ResourceDescriptor,
  SynthesisOptions,
  ToolDefinition,
  ValidationResult,
  VersionedResource,
} from '@tollgate/core';
import { resourceConnectors } from './list.js';

/** Every kind of this build, by `spec.type`. */
export const resourceKinds: KindRegistry<Connector> = createKindRegistry(resourceConnectors);

/** A registry of this build's connectors for a service (closing it closes their pools). */
export function createConnectors(): ConnectorRegistry {
  return createConnectorRegistry(resourceConnectors);
}

/** Validates one descriptor of any kind (see core's `validateDescriptor`). */
export function validate(input: unknown): ValidationResult {
  return validateDescriptor(input, resourceKinds);
}

/** Parses and validates every descriptor in a YAML or JSON text (see core's `parseDescriptors`). */
export function parseResourceDescriptors(text: string, source?: string): ParsedDescriptors {
  return parseDescriptors(text, resourceKinds, source);
}

/** The descriptor with every default filled in, its kind's included. */
export function applyDefaults<D extends Descriptor>(descriptor: D): D {
  return applyDescriptorDefaults(descriptor, resourceKinds);
}

/** The tools of a resource version for a permission set, with its kind from the list. */
export function synthesize(
  resource: VersionedResource,
  permissions: PermissionSet,
  options?: SynthesisOptions,
): ToolDefinition[] {
  return synthesizeTools(resource, permissions, resourceKinds.get(resource.spec.type), options);
}

/** A validator cache over this build's kinds. */
export function validatorCache(options: { maxEntries?: number } = {}): ToolValidatorCache {
  return new ToolValidatorCache({ kinds: resourceKinds, ...options });
}

/** The operations a resource declares, as a policy bundle records them. */
export function operationsOf(descriptor: ResourceDescriptor): OperationSpec[] {
  return resourceKinds.get(descriptor.spec.type).operations(descriptor);
}
