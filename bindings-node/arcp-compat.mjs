// ES module entry point of `leasekit/arcp-compat`: the same functions as arcp-compat.js (the
// ARCP TypeScript SDK's lease helper names, documented there).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const compat = require('./arcp-compat.js')

export default compat
export const {
  validateLeaseShape,
  isValidCapabilityName,
  isReservedCapabilityName,
  validateLeaseOp,
  matchGlob,
  canonicalizeTarget,
  initialBudgetFromLease,
  isLeaseSubset,
  assertLeaseSubset,
  assertLeaseConstraintsSubset,
  validateLeaseConstraints,
  parseBudgetAmount,
  useSdkErrors,
  toSdkError,
} = compat
