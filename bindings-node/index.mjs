// ES module entry point of `leasekit`: the same objects as the CommonJS entry (index.js).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const leasekit = require('./index.js')

export default leasekit
export const {
  // names, targets, patterns
  isValidCapabilityName,
  isReservedCapabilityName,
  canonicalizeTarget,
  validatePattern,
  matchPattern,
  matchGlob,
  // leases
  validateLeaseShape,
  normalizeLease,
  leaseToJson,
  isLeaseSubset,
  checkLeaseSubset,
  assertLeaseSubset,
  narrowLease,
  narrowConstraints,
  // budgets
  parseBudgetAmount,
  parseAmount,
  sumBudgetEntries,
  initialBudget,
  initialBudgetFromLease,
  checkBudgetRemaining,
  // expiry
  parseExpiresAt,
  validateLeaseConstraints,
  // Agentfile
  checkAgentfile,
  Agentfile,
  // guard
  LeaseGuard,
  CompiledLease,
  lintLease,
  // governor (embedded) and the daemon's client
  Governor,
  GovernorClient,
  decodeFrame,
  // the MCP guard's native engine (`leasekit/mcp` wraps it in McpGuard)
  McpGuardCore,
  // errors
  errorCodes,
  // which native artifact the napi-rs loader loaded ('native')
  __napiBindingTarget,
  errorClasses,
  LeaseError,
  // BEGIN generated (scripts/gen-error-tables.py)
  PermissionDeniedError,
  LeaseSubsetViolationError,
  LeaseExpiredError,
  BudgetExhaustedError,
  InvalidRequestError,
  UnauthenticatedError,
  JobNotFoundError,
  DuplicateKeyError,
  AgentNotAvailableError,
  AgentVersionNotAvailableError,
  CancelledError,
  TimeoutError,
  ResumeWindowExpiredError,
  HeartbeatLostError,
  InternalError,
  // END generated
} = leasekit
