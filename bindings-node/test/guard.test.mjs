// LeaseGuard: authorization order, injectable clock, exact budgets, metrics, delegation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as lk from '../index.mjs'

/** A clock the test moves by hand. */
function manualClock(start) {
  const clock = { now: start, fn: () => clock.now }
  return clock
}

test('authorize returns the canonical target and denies outside the lease', () => {
  const guard = new lk.LeaseGuard({ 'net.fetch': ['https://api.example.com/**'], 'fs.read': ['/data/**'] })
  assert.ok(guard instanceof lk.LeaseGuard)
  assert.equal(guard.authorize('net.fetch', 'HTTPS://API.example.com:443/v1/../v2'), 'https://api.example.com/v2')
  assert.equal(guard.authorize('fs.read', '/data//x/./y'), '/data/x/y')
  assert.throws(() => guard.authorize('net.fetch', 'https://evil.example/'), lk.PermissionDeniedError)
  assert.throws(() => guard.authorize('fs.write', '/data/x'), lk.PermissionDeniedError)
  assert.throws(() => guard.authorize('fs.read', 'data/x'), lk.InvalidRequestError)
  assert.throws(() => guard.authorizeModel('gpt-4o'), lk.PermissionDeniedError)
  assert.deepEqual({ ...guard.lease() }, { 'net.fetch': ['https://api.example.com/**'], 'fs.read': ['/data/**'] })
  assert.equal(guard.expiresAt(), null)
})

test('model.use and allowAnyModel', () => {
  const guard = new lk.LeaseGuard({ 'model.use': ['gpt-4*'] })
  assert.equal(guard.authorizeModel('gpt-4.1'), 'gpt-4.1')
  assert.throws(() => guard.authorizeModel('claude-3'), lk.PermissionDeniedError)
  const any = new lk.LeaseGuard({ 'tool.call': ['x'] }, null, { allowAnyModel: true })
  assert.equal(any.authorizeModel('whatever-model'), 'whatever-model')
})

test('expiry uses the injected clock (Date, string or ms) and the grace period', () => {
  const clock = manualClock(new Date('2026-01-01T00:00:00Z'))
  const guard = new lk.LeaseGuard({ 'tool.call': ['x'] }, { expires_at: '2026-01-01T01:00:00Z' }, { clock: clock.fn })
  assert.equal(guard.expiresAt(), '2026-01-01T01:00:00Z')
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  clock.now = '2026-01-01T00:59:59.999999999Z'
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  clock.now = Date.parse('2026-01-01T01:00:00Z')
  assert.throws(() => guard.authorize('tool.call', 'x'), lk.LeaseExpiredError)
  // expiry is checked before the pattern
  assert.throws(() => guard.authorize('tool.call', 'not-granted'), lk.LeaseExpiredError)

  const graceClock = manualClock('2026-01-01T01:00:00.5Z')
  const lenient = new lk.LeaseGuard({ 'tool.call': ['x'] }, { expires_at: new Date('2026-01-01T01:00:00Z') }, { clock: graceClock.fn, graceMillis: 1000 })
  assert.equal(lenient.authorize('tool.call', 'x'), 'x')
  graceClock.now = '2026-01-01T01:00:01Z'
  assert.throws(() => lenient.authorize('tool.call', 'x'), lk.LeaseExpiredError)
})

test('a failing or invalid clock fails closed', () => {
  let mode = 'ok'
  const clock = () => {
    if (mode === 'throw') throw new Error('clock broke')
    if (mode === 'bad') return 'yesterday'
    return new Date('2026-01-01T00:00:00Z')
  }
  const guard = new lk.LeaseGuard({ 'tool.call': ['x'] }, null, { clock })
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  mode = 'throw'
  assert.throws(() => guard.authorize('tool.call', 'x'), lk.LeaseError)
  mode = 'bad'
  assert.throws(() => guard.authorize('tool.call', 'x'), lk.LeaseError)
  mode = 'ok'
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
})

test('spend metrics decrement exact decimal budgets; exhaustion gates authorize', () => {
  const guard = new lk.LeaseGuard({ 'tool.call': ['x'], 'cost.budget': ['USD:1'] })
  assert.deepEqual({ ...guard.remaining() }, { USD: '1' })
  // binary floats go through their shortest decimal form: 0.1 + 0.2 + 0.3 + 0.4 is exactly 1
  for (const v of [0.1, 0.2, 0.3]) guard.recordMetric('cost.llm', v, 'USD')
  assert.deepEqual({ ...guard.remaining() }, { USD: '0.4' })
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  // non-spend metrics and unbudgeted units are ignored, whatever their value
  assert.deepEqual(guard.recordMetric('latency', -5, 'ms'), [])
  assert.deepEqual(guard.recordMetric('cost.llm', '7', 'EUR'), [])
  assert.throws(() => guard.recordMetric('cost.llm', '-1', 'USD'), lk.InvalidRequestError)
  assert.throws(() => guard.recordMetric('cost.llm', NaN, 'USD'), lk.InvalidRequestError)
  const emitted = guard.recordMetric('cost.llm', '0.4', 'USD')
  assert.deepEqual({ ...guard.remaining() }, { USD: '0' })
  assert.ok(emitted.length >= 1)
  const last = emitted[emitted.length - 1]
  assert.deepEqual({ ...last }, { name: 'cost.budget.remaining', value: '0', unit: 'USD' })
  assert.throws(() => guard.authorize('tool.call', 'x'), lk.BudgetExhaustedError)
  // spend is still recorded (overspend), as a bigint too
  guard.recordMetric('cost.llm', 2n, 'USD')
  assert.deepEqual({ ...guard.remaining() }, { USD: '-2' })
})

test('remaining-budget metrics at each further 5 % step', () => {
  const guard = new lk.LeaseGuard({ 'cost.budget': ['USD:100'] })
  assert.deepEqual(guard.recordMetric('cost.x', '4.99', 'USD'), [])
  const five = guard.recordMetric('cost.x', '0.01', 'USD')
  assert.deepEqual(five.map((m) => ({ ...m })), [{ name: 'cost.budget.remaining', value: '95', unit: 'USD' }])
  // one spend crossing several steps emits once, with the current value
  const many = guard.recordMetric('cost.x', '20', 'USD')
  assert.deepEqual(many.map((m) => m.value), ['75'])
})

test('reserve is atomic and never overdraws', () => {
  const guard = new lk.LeaseGuard({ 'tool.call': ['x'], 'cost.budget': ['USD:1'] })
  guard.reserve('USD', '0.6')
  assert.throws(() => guard.reserve('USD', 0.5), lk.BudgetExhaustedError)
  assert.deepEqual({ ...guard.remaining() }, { USD: '0.4' })
  guard.reserve('USD', 0.4)
  assert.deepEqual({ ...guard.remaining() }, { USD: '0' })
  assert.throws(() => guard.reserve('EUR', '1'), lk.InvalidRequestError)
  assert.throws(() => guard.reserve('USD', '0x1'), lk.InvalidRequestError)
})

test('delegate: subset enforced, budget reserved from the parent, returned on close', () => {
  const clock = manualClock('2026-01-01T00:00:00Z')
  const parent = new lk.LeaseGuard(
    { 'fs.read': ['/data/**'], 'cost.budget': ['USD:10'] },
    { expires_at: '2026-01-02T00:00:00Z' },
    { clock: clock.fn },
  )
  assert.throws(() => parent.delegate({ 'fs.read': ['/**'] }), lk.LeaseSubsetViolationError)
  assert.throws(() => parent.delegate({ 'fs.read': ['/data/**'], 'cost.budget': ['USD:11'] }), lk.LeaseSubsetViolationError)
  const child = parent.delegate({ 'fs.read': ['/data/public/**'], 'cost.budget': ['USD:4'] })
  assert.ok(child instanceof lk.LeaseGuard)
  assert.deepEqual({ ...parent.remaining() }, { USD: '6' })
  assert.equal(child.expiresAt(), '2026-01-02T00:00:00Z')
  assert.equal(child.authorize('fs.read', '/data/public/a'), '/data/public/a')
  assert.throws(() => child.authorize('fs.read', '/data/private/a'), lk.PermissionDeniedError)
  child.recordMetric('cost.x', '1.5', 'USD')
  assert.equal(child.isClosed(), false)
  child.close()
  assert.equal(child.isClosed(), true)
  child.close()
  assert.deepEqual({ ...parent.remaining() }, { USD: '8.5' })
  // the child shares the parent's clock
  const late = parent.delegate({ 'fs.read': ['/data/x'] })
  clock.now = '2026-01-02T00:00:00Z'
  assert.throws(() => late.authorize('fs.read', '/data/x'), lk.LeaseExpiredError)
})

test('the constructor rejects invalid leases and constraints with INVALID_REQUEST', () => {
  assert.throws(() => new lk.LeaseGuard({ 'fs.read': '/a' }), lk.InvalidRequestError)
  assert.throws(() => new lk.LeaseGuard({ 'fs.read': ['/a'] }, { expires_at: 'tomorrow' }), lk.InvalidRequestError)
  assert.throws(() => new lk.LeaseGuard({ 'fs.read': ['/a'] }, { ttl: 5 }), lk.InvalidRequestError)
})

test('authorize fast path: conversions, refusals and misuse', () => {
  const guard = new lk.LeaseGuard({ 'fs.read': ['/data/**'], 'tool.call': ['web.*'], 'model.use': ['gpt-*'] })
  // Targets up to the 16 KiB bound (docs/security.md) pass; longer ones are refused.
  const long = '/data/' + 'x'.repeat(16_000)
  assert.equal(guard.authorize('fs.read', long), long)
  assert.throws(() => guard.authorize('fs.read', '/data/' + 'x'.repeat(100_000)), lk.InvalidRequestError)
  assert.equal(guard.authorize('fs.read', '/data/./' + 'y/'.repeat(5000) + 'z'), '/data/' + 'y/'.repeat(5000) + 'z')
  assert.equal(guard.authorize('fs.read', '/data/é/日本/😀'), '/data/é/日本/😀')
  assert.equal(guard.authorizeModel('gpt-4o'), 'gpt-4o')
  // A lone surrogate has no UTF-8 form: refused, not replaced by U+FFFD.
  assert.throws(() => guard.authorize('fs.read', '/data/\uD800'), lk.InvalidRequestError)
  assert.throws(() => guard.authorize('fs.read\uDC00', '/data/x'), lk.InvalidRequestError)
  assert.throws(() => guard.authorizeModel('gpt-\uD800'), lk.InvalidRequestError)
  // Wrong types are invalid requests, as for every other function.
  assert.throws(() => guard.authorize('fs.read', 5), lk.InvalidRequestError)
  assert.throws(() => guard.authorize(null, '/data/x'), lk.InvalidRequestError)
  assert.throws(() => guard.authorize('fs.read'), lk.InvalidRequestError)
  assert.throws(() => guard.authorizeModel({}), lk.InvalidRequestError)
  // Reserved names cross as their index; a number from the caller is never taken for one.
  for (const notAName of [0, 1, 5, -1, 1.5, NaN, 2 ** 40]) {
    assert.throws(() => guard.authorize(notAName, '/data/x'), lk.InvalidRequestError, String(notAName))
  }
  const vendor = new lk.LeaseGuard({ 'x-vendor.acme.run': ['job:*'] })
  assert.equal(vendor.authorize('x-vendor.acme.run', 'job:1'), 'job:1')
  assert.throws(() => vendor.authorize('x-vendor.acme.other', 'job:1'), lk.PermissionDeniedError)
  assert.throws(() => vendor.authorize('fs.read', '/x'), lk.PermissionDeniedError)
  // Called on something that is not a guard: a LeaseError, never a crash.
  assert.throws(() => lk.LeaseGuard.prototype.authorize.call({}, 'tool.call', 'web.x'), lk.LeaseError)
  assert.throws(() => lk.LeaseGuard.prototype.authorizeModel.call(null, 'm'), lk.LeaseError)
  // The fast-path key is internal: not on the prototype, not enumerable.
  const native = createRequire(import.meta.url)('../native.js')
  assert.equal(native.LeaseGuard.prototype.__fastKey, undefined)
  assert.deepEqual(Object.keys(guard), [])
  // Denials keep their class and details.
  try {
    guard.authorize('tool.call', 'shell.exec')
    assert.fail('not denied')
  } catch (err) {
    assert.ok(err instanceof lk.PermissionDeniedError)
    assert.equal(err.code, 'PERMISSION_DENIED')
    assert.equal(err.details.capability, 'tool.call')
  }
  // Children made by delegate take the same path; a closed guard answers LEASE_EXPIRED.
  const child = guard.delegate({ 'tool.call': ['web.search'] })
  assert.equal(child.authorize('tool.call', 'web.search'), 'web.search')
  assert.throws(() => child.authorize('tool.call', 'web.other'), lk.PermissionDeniedError)
  child.close()
  assert.throws(() => child.authorize('tool.call', 'web.search'), lk.LeaseExpiredError)
  guard.close()
  assert.throws(() => guard.authorize('fs.read', '/data/x'), lk.LeaseExpiredError)
})

test('a clock may re-enter authorize', () => {
  let inner
  let guard = null
  guard = new lk.LeaseGuard({ 'tool.call': ['x', 'y'] }, null, {
    clock: () => {
      if (guard !== null && inner === undefined) {
        inner = null
        inner = guard.authorize('tool.call', 'y')
      }
      return new Date('2026-01-01T00:00:00Z')
    },
  })
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  assert.equal(inner, 'y')
})
