'use strict'
// `leasekit/arcp-compat`: the lease helpers of the ARCP TypeScript SDK (`@arcp/runtime`,
// `lease.ts`, SDK 2.0.0) under their SDK names and argument shapes, as documented aliases of
// leasekit's own functions. Every answer comes from leasekit's core and follows
// docs/semantics.md; this file only reshapes arguments (an options object, a Map) and answers.
//
// Names and how they map (differences from the SDK, all fail closed):
//
// validateLeaseShape(lease)            = leasekit validateLeaseShape. Stricter: vendor names
//     are `x-vendor.<seg>.<seg>...`; control characters, relative `fs.*` patterns and `***`
//     are refused.
// isValidCapabilityName(name)         = leasekit isValidCapabilityName.
// isReservedCapabilityName(name)      = leasekit isReservedCapabilityName.
// validateLeaseOp({lease, capability, target, ctx}) = a LeaseGuard (constraints, clock
//     `ctx.now`) and its `authorize`, then leasekit checkBudgetRemaining(ctx.budgetRemaining).
//     Differences: the target is canonicalized per capability (`..` resolved, URL normalized),
//     `*` stays inside one segment, the lease's own `cost.budget` counters are consulted, a
//     malformed target or `expires_at` is InvalidRequestError instead of being let through,
//     and budgetRemaining takes decimal strings only (a number is InvalidRequestError: amount
//     maps take strings only, docs/decisions.md). Order: expiry, budget, canonicalization,
//     pattern, then the caller's budgetRemaining.
// matchGlob(pattern, target, capability) = leasekit matchPattern(capability, pattern, target).
//     leasekit patterns are per capability (paths, URLs, names), so the capability is a
//     required third argument; without it the call is InvalidRequestError.
// canonicalizeTarget(target, capability) = leasekit canonicalizeTarget(capability, target),
//     capability required for the same reason.
// initialBudgetFromLease(lease)         = leasekit initialBudget, as a
//     Map<string, string> of exact decimal strings (the SDK: Map<string, number>).
// isLeaseSubset(child, parent, parentBudgetRemaining?) = leasekit isLeaseSubset with
//     {parentRemaining}. Exact pattern-language inclusion (the SDK matches the child pattern
//     string against the parent's regex); parentBudgetRemaining is a Map or plain object of
//     decimal strings (a number is InvalidRequestError).
// assertLeaseSubset(child, parent, parentBudgetRemaining?) = leasekit checkLeaseSubset, same
//     options; the error carries the witness in `details`.
// assertLeaseConstraintsSubset(childConstraints, parentConstraints) = leasekit
//     checkLeaseSubset({}, {}, {childConstraints, parentConstraints}): the expiry rule alone.
//     An unparseable `expires_at` is InvalidRequestError (the SDK lets it pass).
// validateLeaseConstraints(constraints, now = Date.now()) = leasekit validateLeaseConstraints;
//     returns the expiry in epoch milliseconds, or null, as the SDK does.
// parseBudgetAmount(entry)             = leasekit parseBudgetAmount: {currency, amount} with
//     the amount as an exact decimal string (the SDK: a number).
// Not provided: compileGlob (leasekit matches without regular expressions, in linear time).
//
// Errors are leasekit's LeaseError subclasses (PermissionDeniedError, LeaseExpiredError,
// BudgetExhaustedError, InvalidRequestError, LeaseSubsetViolationError), not the SDK's
// classes; `.code` holds the same ARCP code strings.

const lk = require('./index.js')

/** A Map (the SDK's ReadonlyMap) or a plain object of amounts, as the plain object leasekit takes. */
function amountMap(value) {
  return value instanceof Map ? Object.fromEntries(value) : value
}

function validateLeaseOp(input) {
  const { lease, capability, target, ctx } = input ?? {}
  const { constraints, budgetRemaining, now } = ctx ?? {}
  const guard = new lk.LeaseGuard(lease, constraints ?? null, {
    clock: now === undefined ? null : () => now,
  })
  guard.authorize(capability, target)
  if (budgetRemaining !== undefined) lk.checkBudgetRemaining(amountMap(budgetRemaining))
}

function matchGlob(pattern, target, capability) {
  return lk.matchPattern(capability, pattern, target)
}

function canonicalizeTarget(target, capability) {
  return lk.canonicalizeTarget(capability, target)
}

function initialBudgetFromLease(lease) {
  return new Map(Object.entries(lk.initialBudget(lease)))
}

function subsetOptions(parentBudgetRemaining) {
  return parentBudgetRemaining === undefined ? undefined : { parentRemaining: amountMap(parentBudgetRemaining) }
}

function isLeaseSubset(child, parent, parentBudgetRemaining) {
  return lk.isLeaseSubset(child, parent, subsetOptions(parentBudgetRemaining))
}

function assertLeaseSubset(child, parent, parentBudgetRemaining) {
  lk.checkLeaseSubset(child, parent, subsetOptions(parentBudgetRemaining))
}

function assertLeaseConstraintsSubset(childConstraints, parentConstraints) {
  lk.checkLeaseSubset({}, {}, { childConstraints: childConstraints ?? null, parentConstraints: parentConstraints ?? null })
}

function validateLeaseConstraints(constraints, now = Date.now()) {
  lk.validateLeaseConstraints(constraints ?? null, now)
  const expiresAt = lk.narrowConstraints(constraints ?? null, null).expires_at
  return expiresAt === undefined ? null : new Date(expiresAt).getTime()
}

function parseBudgetAmount(entry) {
  return lk.parseBudgetAmount(entry)
}

module.exports = {
  validateLeaseShape: lk.validateLeaseShape,
  isValidCapabilityName: lk.isValidCapabilityName,
  isReservedCapabilityName: lk.isReservedCapabilityName,
  validateLeaseOp,
  matchGlob,
  canonicalizeTarget,
  initialBudgetFromLease,
  isLeaseSubset,
  assertLeaseSubset,
  assertLeaseConstraintsSubset,
  validateLeaseConstraints,
  parseBudgetAmount,
}
