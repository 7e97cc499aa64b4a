/**
 * The `spec` of an mcp resource: an upstream MCP server, reached by command (stdio, run in a
 * sandbox) or by URL (Streamable HTTP), of which the operator selects tools. These types are
 * the source of truth for the kind's published schema (`schema/spec.schema.json`, generated
 * with `pnpm gen:schema`, JSDoc tags included).
 */
import type { AccessSpec, Description } from '@tollgate/core';

/** How an stdio server is started. Runs under the sandbox; never through a shell. */
export interface McpCommand {
  /**
   * Absolute path of the executable (`/usr/bin/node`).
   * @pattern ^/[^\u0000]{0,1023}$
   */
  executable: string;
  /**
   * Arguments, passed as they are (no shell).
   * @maxItems 64
   */
  args?: McpArgument[];
  /**
   * Environment variables the server gets, each from a credential reference (`env://VAR`,
   * `file://path`, `vault://path#key`); nothing else of Tollgate's environment is passed.
   * @propertyNames {"pattern": "^[A-Z_][A-Z0-9_]{0,62}$"}
   */
  env?: Record<string, McpCredentialRef>;
}

/**
 * One command-line argument.
 * @maxLength 1024
 */
export type McpArgument = string;

/**
 * Where a secret lives; never a literal secret.
 * @minLength 1
 */
export type McpCredentialRef = string;

export interface McpConnection {
  /** Start the server as a sandboxed child process speaking stdio. Exactly one of command, url. */
  command?: McpCommand;
  /**
   * Streamable HTTP endpoint, http(s) without user info. Exactly one of command, url.
   * @minLength 1
   */
  url?: string;
  /** The bearer token for `url`, as a credential reference. At most one of credentialRef, oauth. */
  credentialRef?: string;
  /** OAuth client credentials for `url`: Tollgate takes its own access token (no passthrough). */
  oauth?: McpOAuthClient;
  /**
   * Timeout of one tool call, ms (default 5000); a tool may set its own.
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
  /**
   * Largest message accepted from the server, bytes (default 8 MiB); a larger one ends the
   * session and the call fails.
   * @asType integer
   * @minimum 65536
   * @maximum 134217728
   */
  maxMessageBytes?: number;
}

/**
 * The OAuth 2.1 client-credentials grant against the token endpoint the operator names — never
 * one the upstream advertises, so the client secret goes nowhere else.
 */
export interface McpOAuthClient {
  /**
   * The authorization server's token endpoint, http(s) without user info.
   * @minLength 1
   */
  tokenUrl: string;
  /**
   * @minLength 1
   * @maxLength 256
   */
  clientId: string;
  /** The client secret, as a credential reference. */
  clientSecretRef: McpCredentialRef;
  /**
   * Scopes asked for, space-separated.
   * @maxLength 1024
   */
  scope?: string;
  /**
   * The RFC 8707 resource indicator asked for (default: the server's url).
   * @minLength 1
   * @maxLength 2048
   */
  resource?: string;
  /** How the client authenticates at the token endpoint (default client_secret_basic). */
  clientAuth?: 'client_secret_basic' | 'client_secret_post';
}

/** Limits of the sandbox an stdio server runs in (bubblewrap: own namespaces, no `/etc`). */
export interface McpSandbox {
  /**
   * Hosts the server may reach. Empty (the default): no network at all.
   * @maxItems 32
   */
  allowHosts?: McpHost[];
  /**
   * Absolute paths mounted read-only (the server's own code, data it reads). System libraries
   * (`/usr`) are always mounted; nothing else of the host is visible.
   * @maxItems 32
   */
  readPaths?: McpPath[];
  /**
   * Absolute paths mounted writable.
   * @maxItems 16
   */
  writePaths?: McpPath[];
  /**
   * Address-space limit of the process, MiB (default 4096).
   * @asType integer
   * @minimum 256
   * @maximum 65536
   */
  memoryMb?: number;
  /**
   * CPU time limit of the process, seconds (default 600); past it the process is killed.
   * @asType integer
   * @minimum 1
   * @maximum 86400
   */
  cpuSeconds?: number;
  /**
   * Time to start and answer `initialize`, ms (default 15000).
   * @asType integer
   * @minimum 500
   * @maximum 120000
   */
  startTimeoutMs?: number;
}

/**
 * A host name or address, optionally with a port.
 * @pattern ^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$
 */
export type McpHost = string;

/**
 * An absolute path.
 * @pattern ^/[^\u0000]{0,1023}$
 */
export type McpPath = string;

/** What an operation does to the data behind the server, as the operator classes it. */
export type McpToolClass = 'read' | 'write' | 'destructive';

/**
 * The definition of an upstream tool as pinned at confirmation: exactly what its hash covers.
 */
export interface McpToolDefinition {
  /**
   * @maxLength 200
   */
  title?: string;
  /**
   * The upstream's description, as it was (screened, never offered unreviewed).
   * @maxLength 20000
   */
  description?: string;
  inputSchema: McpJsonObject;
  outputSchema?: McpJsonObject;
  annotations?: McpJsonObject;
}

/** A JSON object (schemas and annotations as the upstream wrote them). */
export type McpJsonObject = Record<string, unknown>;

/** A recorded decision to select a tool whose description the screen flagged. */
export interface McpOverride {
  /**
   * Why the flagged description is acceptable.
   * @minLength 3
   * @maxLength 500
   */
  reason: string;
  /**
   * Who decided.
   * @minLength 1
   * @maxLength 200
   */
  by: string;
}

/** One selected upstream tool. Tools not listed here are never offered. */
export interface McpTool {
  /**
   * The operation (and tool suffix) it becomes; default: the upstream name in lower case,
   * other characters as `_`.
   * @pattern ^[a-z][a-z0-9_]{0,62}$
   */
  operation?: string;
  /** read, write or destructive: the operator's call (upstream annotations are only hints). */
  class: McpToolClass;
  /**
   * Timeout of one call of this tool, ms (default: the connection's).
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
  /** The description agents are offered instead of the upstream's. */
  description?: Description;
  /** Argument values the operator fixes: removed from the tool, always sent as given. */
  fixed?: McpJsonObject;
  /**
   * sha256 (hex) of the pinned definition; calls are refused when the upstream's differs.
   * @pattern ^[0-9a-f]{64}$
   */
  pin?: string;
  /** The definition pinned by confirmation; without it the tool is not callable yet. */
  definition?: McpToolDefinition;
  /** Required to select a tool whose description the screen flagged. */
  override?: McpOverride;
}

/**
 * A declared argument or result property: `<operation>.<argument>`. An argument is offered
 * only when declared `filterable` (settable) and the principal may use the field.
 */
export interface McpField {
  type: 'argument';
  description?: Description;
  /** The agent may set this argument. */
  filterable?: boolean;
  /** Not used by this kind; accepted for the shared field shape. */
  returnable?: boolean;
  /**
   * Capabilities an argument does not have: accepted as `false` only, because core fills every
   * capability into each field (defaults, discovery proposals), and a version must validate
   * again once it is stored, projected and read by executors.
   */
  sortable?: false;
  range?: false;
  searchable?: false;
  aggregatable?: false;
}

/** Declared arguments, keyed by `<operation>.<argument>`. */
export interface McpSchema {
  fields: Record<string, McpField>;
}

/** An upstream MCP server whose selected tools agents may call. */
export interface McpSpec {
  /** The resource kind. */
  type: 'mcp';
  connection: McpConnection;
  sandbox?: McpSandbox;
  /**
   * Selected upstream tools, by their upstream name.
   * @propertyNames {"pattern": "^[A-Za-z0-9_.-]{1,128}$"}
   */
  tools: Record<string, McpTool>;
  schema: McpSchema;
  access: AccessSpec;
}

/** The spec of a validated mcp resource. */
export function mcpSpec(descriptor: { spec: unknown }): McpSpec {
  return descriptor.spec as McpSpec;
}

/** The operation name an upstream tool becomes. */
export function operationOf(upstreamName: string, tool: Pick<McpTool, 'operation'>): string {
  if (tool.operation !== undefined) return tool.operation;
  const name = upstreamName.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return /^[a-z]/.test(name) ? name.slice(0, 63) : `t_${name}`.slice(0, 63);
}
