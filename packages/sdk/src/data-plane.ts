import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { AUTHORIZATION_HEADER, ERROR_HEADER } from '@tollgate/contracts/bus';
import { inClientSpan, injectTraceparent } from './trace.js';
import { errorFromHeader, errorFromTransport, malformed } from './wire-errors.js';

/** One request on the data plane: what to send where, and what the reply should be. */
export interface DataPlaneRequest<I extends DescMessage, O extends DescMessage> {
  subject: string;
  schema: I;
  message: MessageShape<I>;
  replySchema: O;
  timeoutMs: number;
  /** Span attributes (tool, call id). */
  attributes?: Record<string, string>;
}

/**
 * Protobuf request/reply over NATS as the agent side: every request carries the principal
 * token and a `traceparent`; a `tollgate-error` reply header, a transport failure or an
 * undecodable reply is thrown as a typed ToolCallError.
 */
export class DataPlane {
  readonly #nc: NatsConnection;
  readonly #token: string;

  constructor(nc: NatsConnection, token: string) {
    this.#nc = nc;
    this.#token = token;
  }

  async request<I extends DescMessage, O extends DescMessage>(
    request: DataPlaneRequest<I, O>,
  ): Promise<MessageShape<O>> {
    const { subject, timeoutMs, replySchema } = request;
    const attributes = { 'messaging.destination.name': subject, ...request.attributes };
    return inClientSpan(`tollgate request ${subject}`, attributes, async () => {
      const hdrs = natsHeaders();
      hdrs.set(AUTHORIZATION_HEADER, `Bearer ${this.#token}`);
      injectTraceparent(hdrs);
      let reply;
      try {
        reply = await this.#nc.request(subject, toBinary(request.schema, request.message), {
          timeout: timeoutMs,
          headers: hdrs,
        });
      } catch (err) {
        throw errorFromTransport(err, subject, timeoutMs);
      }
      const failure = reply.headers?.get(ERROR_HEADER);
      if (failure) throw errorFromHeader(failure);
      try {
        return fromBinary(replySchema, reply.data);
      } catch {
        throw malformed(`the reply on ${subject} is not a ${replySchema.typeName}`);
      }
    });
  }
}
