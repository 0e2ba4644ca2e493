// Types of `leasekit/arcp-compat`: the ARCP TypeScript SDK's lease helpers (`@arcp/runtime`
// lease.ts) under their SDK names, answered by leasekit's core. Differences from the SDK are
// documented in arcp-compat.js; every one fails closed.
import type { BudgetAmount, ConstraintsInput, LeaseInput, TimeInput } from './index.js'

/**
 * An amount map as the SDK passes it (a Map, whose numbers are read as their shortest
 * round-trip decimal text, `String(n)`; NaN, infinities and exponent forms are refused) or as
 * leasekit does (a plain object of decimal strings).
 */
export type AmountMapInput = ReadonlyMap<string, string | number> | Record<string, string>

/** The SDK's `LeaseOpContext`: expiry constraints, caller-tracked counters, a clock override. */
export interface LeaseOpContext {
  constraints?: ConstraintsInput | undefined
  /** Caller-tracked remaining counters (numbers only in a Map, read through `String(n)`). */
  budgetRemaining?: AmountMapInput | undefined
  /** Clock override (epoch milliseconds, a Date or RFC 3339 text); default: the system clock. */
  now?: TimeInput
}

/** The SDK's `ValidateLeaseOpInput`. */
export interface ValidateLeaseOpInput {
  readonly lease: LeaseInput
  readonly capability: string
  readonly target: string
  readonly ctx?: LeaseOpContext
}

/** leasekit `validateLeaseShape`. */
export declare function validateLeaseShape(lease: LeaseInput): void
/** leasekit `isValidCapabilityName`. */
export declare function isValidCapabilityName(name: string): boolean
/** leasekit `isReservedCapabilityName`. */
export declare function isReservedCapabilityName(name: string): boolean
/** A LeaseGuard's `authorize` at `ctx.now`, then leasekit `checkBudgetRemaining(ctx.budgetRemaining)`. */
export declare function validateLeaseOp(input: ValidateLeaseOpInput): void
/** leasekit `matchPattern(capability, pattern, target)`; the capability is required. */
export declare function matchGlob(pattern: string, target: string, capability: string): boolean
/** leasekit `canonicalizeTarget(capability, target)`; the capability is required. */
export declare function canonicalizeTarget(target: string, capability: string): string
/** leasekit `initialBudget`, as a Map of exact decimal strings. */
export declare function initialBudgetFromLease(lease: LeaseInput): Map<string, string>
/** leasekit `isLeaseSubset` with `{parentRemaining: parentBudgetRemaining}`. */
export declare function isLeaseSubset(child: LeaseInput, parent: LeaseInput, parentBudgetRemaining?: AmountMapInput): boolean
/** leasekit `checkLeaseSubset` with `{parentRemaining: parentBudgetRemaining}`. */
export declare function assertLeaseSubset(child: LeaseInput, parent: LeaseInput, parentBudgetRemaining?: AmountMapInput): void
/** The expiry rule of leasekit `checkLeaseSubset` alone. */
export declare function assertLeaseConstraintsSubset(childConstraints: ConstraintsInput | undefined | null, parentConstraints: ConstraintsInput | undefined | null): void
/** leasekit `validateLeaseConstraints`; the expiry in epoch milliseconds, or null. */
export declare function validateLeaseConstraints(constraints: ConstraintsInput | undefined | null, now?: TimeInput): number | null
/** leasekit `parseBudgetAmount` (the amount as an exact decimal string). */
export declare function parseBudgetAmount(entry: string): BudgetAmount

/** The SDK's error module as `useSdkErrors` reads it: `ARCPError` and its subclasses by SDK name. */
export interface SdkErrorsModule {
  readonly ARCPError: abstract new (...args: any[]) => Error & { toPayload(): unknown }
  readonly [name: string]: unknown
}
/**
 * Registers the SDK's error module (`@agentruntimecontrolprotocol/core/errors`), `null` to
 * unregister: the functions above then throw the SDK's class for each code, so the SDK's
 * runtime reports the real ARCP code.
 */
export declare function useSdkErrors(errorsModule: SdkErrorsModule | null): void
/** `err` as the SDK's class for its code when the SDK's module is registered; `err` otherwise. */
export declare function toSdkError<E>(err: E): E | Error
