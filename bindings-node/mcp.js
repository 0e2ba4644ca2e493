'use strict'
// `leasekit/mcp`: the MCP guard for the MCP TypeScript SDK's `Client` (docs/mcp.md). An
// Agentfile (or a lease) is enforced on every tool call the client makes, decided by leasekit's
// core (the guard `leasekit mcp-guard` runs) before the server sees anything. This file only
// converts: JavaScript values to the core's JSON text and back. The SDK is not a dependency:
// any object with `callTool`, `listTools` and `readResource` can be wrapped.

const fs = require('node:fs')
const leasekit = require('./index.js')
const { McpGuardCore } = require('./load-native.js')

const { errorClasses } = leasekit

/** An error the native constructor threw, as the LeaseError of its code. */
function toLeaseError(err) {
  if (err instanceof leasekit.LeaseError) return err
  const code = typeof err?.code === 'string' && Object.hasOwn(errorClasses, err.code) ? err.code : undefined
  if (!code) return new errorClasses.INVALID_REQUEST(`invalid argument: ${err?.message ?? err}`, {}, { cause: err })
  let wire
  try {
    wire = JSON.parse(err.message)
  } catch {
    wire = undefined
  }
  return new errorClasses[code](String(wire?.message ?? err.message), wire?.details ?? {})
}

/** JSON text of `value`; what JSON cannot hold (cycles, BigInt) is InvalidRequestError. */
function jsonText(value, what) {
  let text
  try {
    text = JSON.stringify(value)
  } catch (err) {
    throw new errorClasses.INVALID_REQUEST(`${what} is not JSON data: ${err.message}`)
  }
  if (typeof text !== 'string') throw new errorClasses.INVALID_REQUEST(`${what} is not JSON data`)
  return text
}

const LOG = Symbol('leasekit.mcp.log')
const CORE = Symbol('leasekit.mcp.core')

/** The decision function over one MCP server's calls; see mcp.d.ts. */
class McpGuard {
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new errorClasses.INVALID_REQUEST('McpGuard options must be an object')
    }
    const known = ['agentfile', 'agentfileText', 'lease', 'server', 'argsMap', 'strict', 'monitor', 'audit', 'governor', 'log']
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) throw new errorClasses.INVALID_REQUEST(`McpGuard: unknown option ${JSON.stringify(key)}`)
    }
    const config = { strict: options.strict === true, monitor: options.monitor === true }
    if (options.agentfile != null) config.agentfile = fs.readFileSync(options.agentfile, 'utf8')
    if (options.agentfileText != null) {
      if (config.agentfile !== undefined) throw new errorClasses.INVALID_REQUEST('give one of agentfile and agentfileText')
      config.agentfile = options.agentfileText
    }
    for (const key of ['lease', 'server', 'argsMap', 'audit']) {
      if (options[key] != null) config[key] = options[key]
    }
    if (options.governor != null) {
      config.governor = typeof options.governor === 'string' ? { socket: options.governor } : options.governor
    }
    if (options.log != null && typeof options.log !== 'function') {
      throw new errorClasses.INVALID_REQUEST('McpGuard option log must be a function')
    }
    this[LOG] = options.log ?? null
    try {
      this[CORE] = new McpGuardCore(jsonText(config, 'the MCP guard configuration'))
    } catch (err) {
      throw toLeaseError(err)
    }
  }

  /** The server name calls are checked against (`mcp:<server>.<tool>`). */
  get server() {
    return this[CORE].server
  }

  #emit(lines) {
    if (this[LOG] && Array.isArray(lines)) for (const line of lines) this[LOG](line)
  }

  /** The decision on one `tools/call` (`{name, arguments?}`). */
  decideCall(params) {
    const answer = JSON.parse(this[CORE].decideCall(jsonText(params, 'the tool call')))
    this.#emit(answer.log)
    delete answer.log
    return answer
  }

  /** Reports the end of an allowed call: `success`, `toolError`, `error` or `cancelled`. */
  finishCall(callId, outcome) {
    this.#emit(JSON.parse(this[CORE].finishCall(callId, outcome)))
  }

  /** Of `names`, the tools the lease allows (all of them under `monitor`). */
  allowedTools(names) {
    const listing = { tools: Array.from(names, (name) => ({ name })) }
    const answer = JSON.parse(this[CORE].filterTools(jsonText(listing, 'the tool names')))
    this.#emit(answer.log)
    return (answer.result?.tools ?? []).map((t) => t.name)
  }

  /** The URI to read for `resources/read`; a denial throws the LeaseError of its code. */
  decideResource(uri) {
    const answer = JSON.parse(this[CORE].decideResource(String(uri)))
    this.#emit(answer.log)
    if (answer.decision === 'allow') return answer.uri
    const cls = Object.hasOwn(errorClasses, answer.code) ? errorClasses[answer.code] : errorClasses.INTERNAL_ERROR
    throw new cls(String(answer.reason ?? ''))
  }
}

/** `client` (an MCP SDK `Client`) behind `guard`; see mcp.d.ts. */
class GuardedClient {
  #client
  #guard

  constructor(client, guard) {
    if (!(guard instanceof McpGuard)) throw new errorClasses.INVALID_REQUEST('GuardedClient needs an McpGuard')
    this.#client = client
    this.#guard = guard
  }

  get client() {
    return this.#client
  }

  get guard() {
    return this.#guard
  }

  async callTool(params, ...rest) {
    const decision = this.#guard.decideCall(params)
    if (decision.decision !== 'allow') return decision.result
    let outcome = 'error'
    try {
      const result = await this.#client.callTool(decision.params, ...rest)
      outcome = result?.isError === true ? 'toolError' : 'success'
      return result
    } catch (err) {
      // callTool(params, resultSchema, options): an aborted options.signal is a cancellation.
      if (rest[1]?.signal?.aborted === true) outcome = 'cancelled'
      throw err
    } finally {
      this.#guard.finishCall(decision.callId, outcome)
    }
  }

  async listTools(...args) {
    const result = await this.#client.listTools(...args)
    const allowed = new Set(this.#guard.allowedTools((result.tools ?? []).map((t) => t.name)))
    return { ...result, tools: (result.tools ?? []).filter((t) => allowed.has(t.name)) }
  }

  async readResource(params, ...rest) {
    const uri = this.#guard.decideResource(params?.uri)
    return this.#client.readResource({ ...params, uri }, ...rest)
  }
}

/** `client` behind a guard: `guardClient(client, guard)` or `guardClient(client, options)`.
 * Every other property of the client is reached through the returned object. */
function guardClient(client, guardOrOptions) {
  const guard = guardOrOptions instanceof McpGuard ? guardOrOptions : new McpGuard(guardOrOptions)
  const guarded = new GuardedClient(client, guard)
  return new Proxy(guarded, {
    get(target, prop) {
      if (prop in target) {
        const v = target[prop]
        return typeof v === 'function' ? v.bind(target) : v
      }
      const v = client[prop]
      return typeof v === 'function' ? v.bind(client) : v
    },
  })
}

module.exports = { McpGuard, GuardedClient, guardClient }
