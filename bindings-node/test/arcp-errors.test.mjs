// ARCP error shape in Node: LeaseError's toPayload() (the core's payload shape), and
// `leasekit/arcp-compat` throwing the TypeScript SDK's error classes once they are registered,
// so that the SDK's runtime reports the real code instead of a retryable INTERNAL_ERROR.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'
import compat from '../arcp-compat.js'
import * as sdk from './arcp-sdk-errors.mjs'

const LEASE = { 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] }

function thrown(fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
  assert.fail('no error thrown')
}

test('toPayload is the ARCP payload: details only when there are any', () => {
  const denied = thrown(() => new lk.LeaseGuard(LEASE).authorize('fs.read', '/etc/passwd'))
  assert.ok(denied instanceof lk.PermissionDeniedError)
  const payload = denied.toPayload()
  assert.deepEqual(Object.keys(payload), ['code', 'message', 'retryable', 'details'])
  assert.equal(payload.code, 'PERMISSION_DENIED')
  assert.equal(payload.retryable, false)
  assert.equal(payload.message, denied.message)
  assert.deepEqual(payload.details, denied.details)
  assert.deepEqual(new lk.TimeoutError('slow').toPayload(), { code: 'TIMEOUT', message: 'slow', retryable: true })
  assert.deepEqual(new lk.BudgetExhaustedError('spent', { currency: 'USD' }).toPayload(), {
    code: 'BUDGET_EXHAUSTED',
    message: 'spent',
    retryable: false,
    details: { currency: 'USD' },
  })
  // the same shape as the SDK's own error
  const sdkShape = new sdk.PermissionDeniedError('no', { details: { capability: 'fs.read' } }).toPayload()
  assert.deepEqual(new lk.PermissionDeniedError('no', { capability: 'fs.read' }).toPayload(), sdkShape)
  assert.deepEqual(new lk.PermissionDeniedError('no').toPayload(), new sdk.PermissionDeniedError('no').toPayload())
})

test('without the SDK registered, a denial is reported by the SDK runtime as a retryable INTERNAL_ERROR', () => {
  compat.useSdkErrors(null)
  const err = thrown(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/etc/passwd' }))
  assert.ok(err instanceof lk.PermissionDeniedError)
  assert.deepEqual(sdk.reportedError(err).code, 'INTERNAL_ERROR')
})

test('with the SDK registered, compat errors are the SDK classes and reported with their code', (t) => {
  compat.useSdkErrors(sdk)
  t.after(() => compat.useSdkErrors(null))
  const denied = thrown(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/../etc/passwd' }))
  assert.ok(denied instanceof sdk.PermissionDeniedError && denied instanceof sdk.ARCPError)
  assert.deepEqual(sdk.reportedError(denied), { code: 'PERMISSION_DENIED', message: denied.message, retryable: false })
  assert.ok(denied.cause instanceof lk.PermissionDeniedError, 'leasekit error kept as the cause')
  assert.deepEqual(denied.toPayload().details, denied.cause.details)

  const spent = thrown(() =>
    compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/a', ctx: { budgetRemaining: new Map([['USD', 0]]) } }),
  )
  assert.deepEqual(sdk.reportedError(spent), { code: 'BUDGET_EXHAUSTED', message: spent.message, retryable: false })

  const wider = thrown(() => compat.assertLeaseSubset({ 'fs.read': ['/**'] }, LEASE))
  assert.ok(wider instanceof sdk.LeaseSubsetViolationError)
  assert.equal(wider.details.capability, 'fs.read')

  const bad = thrown(() => compat.canonicalizeTarget('relative', 'fs.read'))
  assert.ok(bad instanceof sdk.InvalidRequestError)
  assert.equal(sdk.reportedError(bad).code, 'INVALID_REQUEST')
})

test('a code without an SDK class of the right shape keeps leasekit\'s class', (t) => {
  class Odd extends sdk.ARCPError {
    constructor(message) {
      super({ code: 'PERMISSION_DENIED', message })
    }
  }
  // LeaseExpiredError exported with another code, PermissionDeniedError missing
  compat.useSdkErrors({ ARCPError: sdk.ARCPError, LeaseExpiredError: Odd })
  t.after(() => compat.useSdkErrors(null))
  const denied = thrown(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/etc/passwd' }))
  assert.ok(denied instanceof lk.PermissionDeniedError)
  const expired = thrown(() =>
    compat.validateLeaseOp({
      lease: LEASE,
      capability: 'fs.read',
      target: '/data/a',
      ctx: { constraints: { expires_at: '2020-01-01T00:00:00Z' } },
    }),
  )
  assert.ok(expired instanceof lk.LeaseExpiredError)
  assert.throws(() => compat.useSdkErrors({}), (e) => e instanceof lk.InvalidRequestError)
  assert.throws(() => compat.useSdkErrors(undefined), (e) => e instanceof lk.InvalidRequestError)
})

test('subset: a currency the parent does not budget is refused at any amount, as the SDK does', () => {
  const parent = { 'cost.budget': ['USD:5'] }
  for (const amount of ['1', '0']) {
    const child = { 'cost.budget': [`EUR:${amount}`] }
    assert.equal(compat.isLeaseSubset(child, parent), false, amount)
    assert.equal(compat.isLeaseSubset(child, parent, new Map([['USD', 5]])), false, amount)
    assert.throws(() => compat.assertLeaseSubset(child, parent), (e) => e.details.currency === 'EUR')
    // leasekit's own subset reads it as unlimited in the parent
    assert.equal(lk.isLeaseSubset(child, parent), true)
  }
  assert.equal(compat.isLeaseSubset({ 'cost.budget': ['USD:0'] }, parent), true)
  assert.equal(compat.isLeaseSubset({ 'cost.budget': ['USD:5'] }, parent), true)
  assert.equal(compat.isLeaseSubset({ 'cost.budget': ['USD:5.01'] }, parent), false)
  // a remaining entry grants the currency (the SDK reads the map as the grant)
  assert.equal(compat.isLeaseSubset({ 'cost.budget': ['EUR:0'] }, parent, new Map([['EUR', 0]])), true)
})
