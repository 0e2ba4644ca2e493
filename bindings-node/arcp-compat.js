'use strict'
// `leasekit/arcp-compat`: the lease helpers of the ARCP TypeScript SDK (`lease.ts`; published
// as `@agentruntimecontrolprotocol/runtime`, earlier `@arcp/runtime` 2.0.0, whose names are
// the ones below) under their SDK names and argument shapes, as documented aliases of
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
//     and budgetRemaining is a plain object of decimal strings or a Map (how the TypeScript
//     runtime holds budgets) whose numbers are read as their shortest round-trip decimal
//     text, String(n) (NaN, infinities and exponent forms such as 1e-7 are
//     InvalidRequestError). Float drift in the caller's own arithmetic (0.1 + 0.2) is the
//     caller's. Order: expiry, budget, canonicalization, pattern, then the caller's
//     budgetRemaining.
// matchGlob(pattern, target, capability) = leasekit matchPattern(capability, pattern, target).
//     leasekit patterns are per capability (paths, URLs, names), so the capability is a
//     required third argument; without it the call is InvalidRequestError.
// canonicalizeTarget(target, capability) = leasekit canonicalizeTarget(capability, target),
//     capability required for the same reason.
// initialBudgetFromLease(lease)         = leasekit initialBudget, as a
//     Map<string, string> of exact decimal strings (the SDK: Map<string, number>).
// isLeaseSubset(child, parent, parentBudgetRemaining?) = leasekit isLeaseSubset with
//     {parentRemaining}. Exact pattern-language inclusion (the SDK matches the child pattern
//     string against the parent's regex); parentBudgetRemaining is read as budgetRemaining
//     above, and as the SDK reads it: a currency missing from it has nothing left, and an
//     entry limits even a currency the parent does not budget (leasekit alone ignores it).
// assertLeaseSubset(child, parent, parentBudgetRemaining?) = leasekit checkLeaseSubset, same
//     options; the error carries the witness in `details`.
// assertLeaseConstraintsSubset(childConstraints, parentConstraints) = leasekit
//     checkLeaseSubset({}, {}, {childConstraints, parentConstraints}): the expiry rule alone,
//     where a child without `expires_at` under a parent with one is a violation (an SDK
//     runtime does not apply leasekit's inheritance, so the child would outlive the parent).
//     An unparseable `expires_at` is InvalidRequestError (the SDK lets it pass).
// validateLeaseConstraints(constraints, now = Date.now()) = leasekit validateLeaseConstraints;
//     returns the expiry in epoch milliseconds, or null, as the SDK does.
// parseBudgetAmount(entry)             = leasekit parseBudgetAmount: {currency, amount} with
//     the amount as an exact decimal string (the SDK: a number).
// Not provided: compileGlob (it returns a RegExp; leasekit matches without regular
// expressions, in linear time, and a RegExp of a leasekit pattern would drop canonicalization:
// use matchGlob or a LeaseGuard). The SDK's Effect-style wrappers are not provided either (no
// Effect dependency here); wrap these functions with Effect.try where needed.
//
// Errors are leasekit's LeaseError subclasses (PermissionDeniedError, LeaseExpiredError,
// BudgetExhaustedError, InvalidRequestError, LeaseSubsetViolationError), not the SDK's
// classes; `.code` holds the ARCP code strings and `.retryable` the code's flag.

const lk = require('./index.js')

/**
 * A number as its shortest round-trip decimal text (`String(n)`: 0.1 is "0.1"). NaN, the
 * infinities and numbers that JavaScript writes in exponent form (1e-7, 1e21) have no such
 * text: InvalidRequestError.
 */
function numberText(n, what) {
  if (!Number.isFinite(n)) {
    throw new lk.InvalidRequestError(`${what}: ${n} is not a finite number`, { field: what })
  }
  const text = String(n)
  if (/[eE]/.test(text)) {
    throw new lk.InvalidRequestError(`${what}: ${text} is in exponent form; pass a decimal string`, { field: what })
  }
  return text
}

/**
 * A Map (the SDK's ReadonlyMap, whose values are numbers in the TypeScript runtime) or a plain
 * object of amounts, as the plain object of decimal strings leasekit takes. Numbers are read
 * from a Map only; a plain object is passed on as given (core refuses numbers there).
 */
function amountMap(value, what) {
  if (!(value instanceof Map)) return value
  const out = {}
  for (const [currency, amount] of value) {
    out[currency] = typeof amount === 'number' ? numberText(amount, `${what}.${currency}`) : amount
  }
  return out
}

function validateLeaseOp(input) {
  const { lease, capability, target, ctx } = input ?? {}
  const { constraints, budgetRemaining, now } = ctx ?? {}
  const guard = new lk.LeaseGuard(lease, constraints ?? null, {
    clock: now === undefined ? null : () => now,
  })
  guard.authorize(capability, target)
  if (budgetRemaining !== undefined) lk.checkBudgetRemaining(amountMap(budgetRemaining, 'budgetRemaining'))
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

// With a remaining map, the SDK's reading of it (stricter than leasekit's own): a currency
// missing from it has nothing left, and an entry limits even a currency the parent does not
// budget (core option strictRemaining, docs/semantics.md section 9).
function subsetOptions(parentBudgetRemaining) {
  return parentBudgetRemaining === undefined
    ? undefined
    : { parentRemaining: amountMap(parentBudgetRemaining, 'parentBudgetRemaining'), strictRemaining: true }
}

function isLeaseSubset(child, parent, parentBudgetRemaining) {
  return lk.isLeaseSubset(child, parent, subsetOptions(parentBudgetRemaining))
}

function assertLeaseSubset(child, parent, parentBudgetRemaining) {
  lk.checkLeaseSubset(child, parent, subsetOptions(parentBudgetRemaining))
}

function assertLeaseConstraintsSubset(childConstraints, parentConstraints) {
  // An SDK runtime applies no expiry inheritance: a child without an expiry under a parent
  // with one would outlive it (core option requireChildExpiry).
  lk.checkLeaseSubset({}, {}, {
    childConstraints: childConstraints ?? null,
    parentConstraints: parentConstraints ?? null,
    requireChildExpiry: true,
  })
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
