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
// BudgetExhaustedError, InvalidRequestError, LeaseSubsetViolationError) with the SDK's
// ARCPError shape: `.code` (the ARCP code string), `.retryable`, `.details`, `toPayload()`.
// The SDK's runtime reports an agent's error with its own code only when it is `instanceof`
// the SDK's ARCPError (anything else becomes a retryable INTERNAL_ERROR), so:
// useSdkErrors(errorsModule)           registers the SDK's error module
//     (`@agentruntimecontrolprotocol/core/errors`; `null` unregisters it). From then on the
//     functions above throw the SDK's class for the code (`PermissionDeniedError` ...), with
//     leasekit's message and details, retryable flag, and leasekit's error as `cause`. A code
//     whose SDK class is missing or has another shape keeps leasekit's class.
// toSdkError(err)                      the same conversion for an error of your own leasekit
//     calls (a LeaseGuard's authorize): the SDK's class when registered, `err` otherwise.

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

// The SDK's reading of budgets (stricter than leasekit's own, docs/semantics.md section 9):
// a currency the parent does not grant is a violation whatever the child's amount (core
// option requireParentCurrency); with a remaining map, the map is the grant: a currency
// missing from it is not granted, and an entry limits even a currency the parent does not
// budget (core option strictRemaining).
function subsetOptions(parentBudgetRemaining) {
  return parentBudgetRemaining === undefined
    ? { requireParentCurrency: true }
    : {
        parentRemaining: amountMap(parentBudgetRemaining, 'parentBudgetRemaining'),
        strictRemaining: true,
        requireParentCurrency: true,
      }
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

// The SDK's error classes, once registered: the TypeScript runtime reports an error thrown by
// an agent with its own code only when it is `instanceof` the SDK's ARCPError, and as a
// retryable INTERNAL_ERROR otherwise (a client would retry a denied operation).
let sdkErrors = null
const sdkClasses = new Map()

/**
 * Registers the SDK's error module (`@agentruntimecontrolprotocol/core/errors`, or any module
 * exporting `ARCPError` and its subclasses under their SDK names); `null` unregisters it. From
 * then on every error these functions throw is an instance of the SDK's class for its code.
 */
function useSdkErrors(errorsModule) {
  if (errorsModule !== null) {
    const base = errorsModule?.ARCPError
    if (typeof base !== 'function' || typeof base.prototype?.toPayload !== 'function') {
      throw new lk.InvalidRequestError('useSdkErrors: the module exports no ARCPError class with toPayload()')
    }
  }
  sdkErrors = errorsModule
  sdkClasses.clear()
}

/** The SDK's class for `code` when it has the SDK's shape; otherwise null. */
function sdkClass(code) {
  if (sdkClasses.has(code)) return sdkClasses.get(code)
  const name = lk.errorClasses[code]?.name
  const cls = Object.hasOwn(sdkErrors, name) ? sdkErrors[name] : undefined
  let found = null
  if (typeof cls === 'function' && cls.prototype instanceof sdkErrors.ARCPError) {
    try {
      const probe = new cls('probe')
      if (probe.code === code) found = cls
    } catch {
      // not the SDK's constructor shape: leasekit's class is thrown instead
    }
  }
  sdkClasses.set(code, found)
  return found
}

/**
 * `err` as the SDK's error of its code when the SDK's module is registered (leasekit's error
 * kept as its `cause`); `err` itself otherwise.
 */
function toSdkError(err) {
  if (sdkErrors === null || !(err instanceof lk.LeaseError)) return err
  const cls = sdkClass(err.code)
  if (cls === null) return err
  const out = new cls(err.message, { retryable: err.retryable, details: { ...err.details }, cause: err })
  if (typeof err.stack === 'string') out.stack = err.stack
  return out
}

/** `fn` with its errors converted by toSdkError (same name and arity). */
function bridged(fn) {
  const wrapped = {
    [fn.name]: function (...args) {
      try {
        return fn.apply(this, args)
      } catch (err) {
        throw toSdkError(err)
      }
    },
  }[fn.name]
  Object.defineProperty(wrapped, 'length', { value: fn.length })
  return wrapped
}

const functions = {
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
for (const [name, fn] of Object.entries(functions)) functions[name] = bridged(fn)

module.exports = { ...functions, useSdkErrors, toSdkError }
