// A stand-in for the ARCP TypeScript SDK's error module (`@agentruntimecontrolprotocol/core`
// errors.ts), which is not published to the npm registry: the shape its runtime relies on
// (ARCPError with code, retryable, details, toPayload(); one subclass per code with the
// constructor `(message, {retryable, details, cause})`), written from the SDK's documented
// API, for tests only.

const RETRYABLE_BY_DEFAULT = new Set(['INTERNAL_ERROR', 'TIMEOUT'])

export class ARCPError extends Error {
  constructor(opts) {
    super(opts.message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'ARCPError'
    this.code = opts.code
    this.retryable = opts.retryable ?? RETRYABLE_BY_DEFAULT.has(opts.code)
    this.details = Object.freeze({ ...(opts.details ?? {}) })
  }

  toPayload() {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(Object.keys(this.details).length > 0 ? { details: { ...this.details } } : {}),
    }
  }
}

function codeClass(name, code, fixedRetryable) {
  return {
    [name]: class extends ARCPError {
      constructor(message, opts = {}) {
        super({ ...(fixedRetryable === undefined ? {} : { retryable: fixedRetryable }), ...opts, code, message })
        this.name = name
      }
    },
  }[name]
}

export const PermissionDeniedError = codeClass('PermissionDeniedError', 'PERMISSION_DENIED')
export const LeaseSubsetViolationError = codeClass('LeaseSubsetViolationError', 'LEASE_SUBSET_VIOLATION')
export const InvalidRequestError = codeClass('InvalidRequestError', 'INVALID_REQUEST')
export const InternalError = codeClass('InternalError', 'INTERNAL_ERROR')
export const LeaseExpiredError = codeClass('LeaseExpiredError', 'LEASE_EXPIRED', false)
export const BudgetExhaustedError = codeClass('BudgetExhaustedError', 'BUDGET_EXHAUSTED', false)

/**
 * How the SDK's job runner turns what an agent threw into the job's error (its
 * `wrapHandlerError`): its own errors keep their code; anything else is a retryable
 * INTERNAL_ERROR.
 */
export function reportedError(error) {
  const wrapped =
    error instanceof ARCPError
      ? error
      : new InternalError(error instanceof Error ? error.message : String(error))
  return { code: wrapped.code, message: wrapped.message, retryable: wrapped.retryable }
}
