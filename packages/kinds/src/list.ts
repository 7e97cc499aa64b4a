/**
 * The resource kinds of this build. Adding a kind is adding its connector here — one line —
 * and nothing else: every service, the CLI and the SDK read this list.
 */
import type { Connector } from '@tollgate/core';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import { httpConnector } from '@tollgate/connector-http';
import { mcpConnector } from '@tollgate/connector-mcp';
import { mysqlConnector } from '@tollgate/connector-mysql';
import { postgresConnector } from '@tollgate/connector-postgres';

export const resourceConnectors: readonly Connector[] = [
  elasticsearchConnector,
  httpConnector,
  mcpConnector,
  mysqlConnector,
  postgresConnector,
];
