// ES module entry point of `leasekit/mcp`: the same objects as mcp.js.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const mcp = require('./mcp.js')

export default mcp
export const { McpGuard, GuardedClient, guardClient } = mcp
