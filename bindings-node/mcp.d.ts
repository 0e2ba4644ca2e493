// Types of `leasekit/mcp`: the MCP guard for the MCP TypeScript SDK's `Client` (docs/mcp.md).

/** Options of an {@link McpGuard}. Give exactly one of `agentfile`, `agentfileText`, `lease`. */
export interface McpGuardOptions {
  /** Path of the Agentfile whose derived lease the calls must fit. */
  agentfile?: string
  /** The Agentfile's text. */
  agentfileText?: string
  /** An ARCP lease (object or JSON text) instead of an Agentfile. */
  lease?: Record<string, unknown> | string
  /** The NAME of `TOOL mcp:NAME.<tool>` (default: the Agentfile's one `MCP` line). */
  server?: string
  /** Argument maps added to the built-in ones: `{"tools": {name: [{argument, capability, list?, optional?}]}}`. */
  argsMap?: object | string
  /** Refuse tools that have no argument map. */
  strict?: boolean
  /** Allow what would be denied, and log it. */
  monitor?: boolean
  /** Append every decision to this JSONL audit chain (`leasekit audit verify FILE`). */
  audit?: string
  /** A `leasekit serve` socket (or `{socket, actor?, workspace?, org?}`): every allowed call is an Acquire, then a Release. Decisions then block on a socket round trip. */
  governor?: string | { socket: string; actor?: string; workspace?: string; org?: string }
  /** Receives the guard's log lines (denials, hidden tools, monitor notes). */
  log?: (line: string) => void
}

/** A tool result in MCP's shape (`CallToolResult`). */
export interface ToolResult {
  content: Array<{ type: string; text?: string; [key: string]: unknown }>
  isError?: boolean
  _meta?: { leasekit?: { code: string; reason: string; retryAfterMs?: number }; [key: string]: unknown }
  [key: string]: unknown
}

/** The decision on one `tools/call`. */
export type CallDecision =
  | { decision: 'allow'; callId: number; params: { name: string; arguments?: Record<string, unknown>; [key: string]: unknown } }
  | { decision: 'deny'; code: string; reason: string; retryAfterMs?: number; result: ToolResult }

/** The decision function over one MCP server's calls (leasekit core's MCP guard, the one
 * `leasekit mcp-guard` runs). Bad options throw `InvalidRequestError`. */
export declare class McpGuard {
  constructor(options: McpGuardOptions)
  /** The server name calls are checked against (`mcp:<server>.<tool>`). */
  readonly server: string
  /** The decision on one `tools/call`. Params that are not JSON data throw `InvalidRequestError`; malformed ones are a denial.
   * An approval token in `params._meta['leasekit/approvalToken']` goes to the governor's Acquire and is removed from the allowed `params`. */
  decideCall(params: unknown): CallDecision
  /** Reports the end of an allowed call (governor Release, audit record). */
  finishCall(callId: number, outcome: 'success' | 'toolError' | 'error' | 'cancelled'): void
  /** Of `names`, the tools the lease allows (all of them under `monitor`). */
  allowedTools(names: Iterable<string>): string[]
  /** The URI to read for `resources/read`; a denial throws the LeaseError of its code. */
  decideResource(uri: string): string
}

/** What the guard needs of a client: the MCP SDK `Client`'s methods. */
export interface McpClientLike {
  callTool(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, ...rest: any[]): Promise<any>
  listTools(...args: any[]): Promise<{ tools: Array<{ name: string }>; [key: string]: unknown }>
  readResource(params: { uri: string; [key: string]: unknown }, ...rest: any[]): Promise<any>
}

/** A client behind a guard: `callTool` decides first (a denial is returned as a tool result
 * with `isError: true` and never reaches the server; an allowed call carries the canonical
 * arguments), `listTools` hides what the lease does not allow, `readResource` authorizes the URI. */
export declare class GuardedClient<C extends McpClientLike = McpClientLike> {
  constructor(client: C, guard: McpGuard)
  readonly client: C
  readonly guard: McpGuard
  callTool(...args: Parameters<C['callTool']>): ReturnType<C['callTool']>
  listTools(...args: Parameters<C['listTools']>): ReturnType<C['listTools']>
  readResource(...args: Parameters<C['readResource']>): ReturnType<C['readResource']>
}

/** `client` behind a guard (an {@link McpGuard} or its options); every other member is the client's. */
export declare function guardClient<C extends McpClientLike>(client: C, guard: McpGuard | McpGuardOptions): Omit<C, 'callTool' | 'listTools' | 'readResource'> & GuardedClient<C>

declare const _default: { McpGuard: typeof McpGuard; GuardedClient: typeof GuardedClient; guardClient: typeof guardClient }
export default _default
