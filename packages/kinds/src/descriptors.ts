/**
 * Core's descriptor functions bound to this build's kinds, so callers need not pass the list
 * around: `validate(input)` reads a Resource with the schema of the kind its `spec.type` names.
 */
import {
  applyDescriptorDefaults,
  createConnectorRegistry,
  createKindRegistry,
  parseDescriptors,
  validateDescriptor,
} from '@tollgate/core';
import type {
  Connector,
  ConnectorRegistry,
  Descriptor,
  KindRegistry,
  ParsedDescriptors,
  ValidationResult,
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
