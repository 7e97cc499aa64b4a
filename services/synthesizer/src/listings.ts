/**
 * `tools.listed`: what an agent was offered in a session, so audit can replay it. A listing
 * that cannot be recorded is not handed out.
 */
import { ToolsListedSchema } from '@tollgate/contracts/events/v1';
import { create } from '@bufbuild/protobuf';
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { EventTypes, envelope, publishEnvelope } from '@tollgate/kit';
import type { EventPublisher } from '@tollgate/kit';

/** One listing as recorded. */
export interface Listing {
  sessionId: string;
  principal: Principal;
  /** Roles the bundle gave the principal, sorted. */
  roles: string[];
  task: string;
  tools: { name: string; version: string; resource: string; resourceVersion: number }[];
}

/** Records listings; resolves once the record is durable. */
export interface ListingRecorder {
  record(listing: Listing): Promise<void>;
}

/** Records nothing (a synthesizer without an event bus, e.g. in benchmarks). */
export const noListings: ListingRecorder = {
  record: () => Promise.resolve(),
};

/** Publishes `tools.listed` on JetStream and waits until it is stored. */
export class BusListingRecorder implements ListingRecorder {
  readonly #publisher: EventPublisher;

  constructor(publisher: EventPublisher) {
    this.#publisher = publisher;
  }

  async record(listing: Listing): Promise<void> {
    const { principal } = listing;
    const event = envelope(EventTypes.toolsListed, principal.tenant, {
      case: 'toolsListed',
      value: create(ToolsListedSchema, {
        sessionId: listing.sessionId,
        principal: {
          tenant: principal.tenant,
          agent: principal.agent,
          user: principal.user ?? '',
          roles: listing.roles,
          environment: principal.environment,
          tokenId: principal.tokenId ?? '',
        },
        tools: listing.tools,
        task: listing.task,
      }),
    });
    try {
      await publishEnvelope(this.#publisher, event);
    } catch (err) {
      throw new TollgateError(
        'UPSTREAM_UNAVAILABLE',
        'The tool listing could not be recorded for audit (event bus unavailable); try again.',
        { cause: err },
      );
    }
  }
}
