// leasekit/arcp-compat: the ARCP TypeScript SDK's lease helper names (`@arcp/runtime`
// lease.ts, SDK 2.0.0) and argument shapes, answered by leasekit's core. The SDK is not a test
// dependency: its names and arities are recorded below.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import * as compat from 'leasekit/arcp-compat'
import * as lk from 'leasekit'

// name -> Function.length in the SDK (parameters before the first default/optional one).
const SDK_ARITY = {
  validateLeaseShape: 1,
  isValidCapabilityName: 1,
  isReservedCapabilityName: 1,
  validateLeaseOp: 1,
  matchGlob: 2,
  canonicalizeTarget: 1,
  initialBudgetFromLease: 1,
  isLeaseSubset: 3,
  assertLeaseSubset: 3,
  assertLeaseConstraintsSubset: 2,
  validateLeaseConstraints: 1,
  parseBudgetAmount: 1,
}

test('every SDK lease helper name is exported, from both entry points, and documented', () => {
  const cjs = createRequire(import.meta.url)('leasekit/arcp-compat')
  const doc = readFileSync(new URL('../arcp-compat.js', import.meta.url), 'utf8')
  // plus the registration of the SDK's error classes
  assert.deepEqual(Object.keys(cjs).sort(), [...Object.keys(SDK_ARITY), 'toSdkError', 'useSdkErrors'].sort())
  for (const name of Object.keys(SDK_ARITY)) {
    assert.equal(typeof compat[name], 'function', name)
    assert.equal(compat[name], cjs[name], name)
    assert.match(doc, new RegExp(`^// ${name}\\(`, 'm'), `${name} is documented`)
  }
  // same arity as the SDK, except the capability leasekit needs: one more (required) argument
  // at the end (the three plain re-exports of leasekit functions are not measured)
  for (const [name, arity] of Object.entries(SDK_ARITY)) {
    if (name.startsWith('is') && name.endsWith('Name')) continue
    if (name === 'validateLeaseShape') continue
    const extra = name === 'matchGlob' || name === 'canonicalizeTarget' ? 1 : 0
    assert.equal(compat[name].length, arity + extra, name)
  }
  assert.match(doc, /Not provided: compileGlob/)
})

const LEASE = { 'fs.read': ['/data/*'], 'tool.call': ['web.*'], 'cost.budget': ['USD:5.00'] }

test('validateLeaseOp: allows, denies, and differs from the SDK only by failing closed', () => {
  compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/a.csv' })
  assert.throws(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/etc/passwd' }), lk.PermissionDeniedError)
  // no traversal, `*` stays in its segment
  assert.throws(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/../etc/passwd' }), lk.PermissionDeniedError)
  assert.throws(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/a/b' }), lk.PermissionDeniedError)
  // expiry at ctx.now
  const constraints = { expires_at: '2026-01-01T00:00:10Z' }
  const t0 = Date.parse('2026-01-01T00:00:00Z')
  compat.validateLeaseOp({ lease: LEASE, capability: 'tool.call', target: 'web.search', ctx: { constraints, now: t0 } })
  assert.throws(
    () => compat.validateLeaseOp({ lease: LEASE, capability: 'tool.call', target: 'web.search', ctx: { constraints, now: t0 + 10_000 } }),
    lk.LeaseExpiredError,
  )
  // caller-tracked counters (a Map, as the SDK passes them, or a plain object of strings)
  const ok = new Map([['USD', '0.5']])
  compat.validateLeaseOp({ lease: LEASE, capability: 'tool.call', target: 'web.search', ctx: { budgetRemaining: ok } })
  for (const spent of [new Map([['USD', '0']]), { USD: '-1' }]) {
    assert.throws(
      () => compat.validateLeaseOp({ lease: LEASE, capability: 'tool.call', target: 'web.search', ctx: { budgetRemaining: spent } }),
      lk.BudgetExhaustedError,
    )
  }
  // a Map of numbers (how the TypeScript runtime holds budgets) is read through String(n)
  compat.validateLeaseOp({ lease: LEASE, capability: 'tool.call', target: 'web.search', ctx: { budgetRemaining: new Map([['USD', 5]]) } })
  assert.throws(() => compat.validateLeaseOp({ lease: LEASE, capability: 'fs.read', target: '/data/\uD800' }), lk.InvalidRequestError)
  assert.throws(() => compat.validateLeaseOp(undefined), lk.InvalidRequestError)
})

test('matchGlob and canonicalizeTarget take the SDK order plus the capability', () => {
  assert.equal(compat.matchGlob('/data/*', '/data/x', 'fs.read'), true)
  assert.equal(compat.matchGlob('/data/*', '/data/x/y', 'fs.read'), false)
  assert.equal(compat.matchGlob('web.*', 'web.search', 'tool.call'), lk.matchPattern('tool.call', 'web.*', 'web.search'))
  assert.throws(() => compat.matchGlob('/data/*', '/data/x'), lk.InvalidRequestError) // no capability: refused
  assert.equal(compat.canonicalizeTarget('/a/./b/../c', 'fs.read'), '/a/c')
  assert.equal(compat.canonicalizeTarget('HTTPS://API.example.com/x', 'net.fetch'), lk.canonicalizeTarget('net.fetch', 'HTTPS://API.example.com/x'))
  assert.throws(() => compat.canonicalizeTarget('/a'), lk.InvalidRequestError)
})

test('budgets: exact decimal strings in a Map; the SDK numbers are refused', () => {
  const budget = compat.initialBudgetFromLease({ 'cost.budget': ['USD:2.50', 'USD:0.1', 'EUR:1'] })
  assert.ok(budget instanceof Map)
  assert.deepEqual([...budget].sort(), [['EUR', '1'], ['USD', '2.6']])
  assert.deepEqual({ ...compat.parseBudgetAmount('USD:2.50') }, { currency: 'USD', amount: '2.5' })
  assert.throws(() => compat.parseBudgetAmount('USD:1e3'), lk.InvalidRequestError)
})

test('isLeaseSubset / assertLeaseSubset with parentBudgetRemaining as a Map or object', () => {
  const parent = { 'tool.call': ['web.*'], 'cost.budget': ['USD:5'] }
  const child = { 'tool.call': ['web.search'], 'cost.budget': ['USD:2'] }
  assert.equal(compat.isLeaseSubset(child, parent), true)
  assert.equal(compat.isLeaseSubset(child, parent, new Map([['USD', '1']])), false)
  assert.equal(compat.isLeaseSubset(child, parent, { USD: '3' }), true)
  assert.equal(compat.isLeaseSubset(child, parent, new Map([['USD', 3]])), true)
  assert.throws(() => compat.isLeaseSubset(child, parent, { USD: 3 }), lk.InvalidRequestError)
  // a guard's remaining() after an overspend is accepted back
  const g = new lk.LeaseGuard(parent)
  g.recordMetric('cost.llm', '6', 'USD')
  assert.equal(compat.isLeaseSubset(child, parent, g.remaining()), false)
  compat.assertLeaseSubset(child, parent)
  assert.throws(() => compat.assertLeaseSubset({ 'fs.read': ['/a'] }, parent), lk.LeaseSubsetViolationError)
  // exact inclusion: `/a/**` is not within `/a/*` (the SDK's regex test said it was)
  assert.equal(compat.isLeaseSubset({ 'fs.read': ['/a/**'] }, { 'fs.read': ['/a/*'] }), false)
})

test('assertLeaseConstraintsSubset and validateLeaseConstraints', () => {
  const early = { expires_at: '2030-01-01T00:00:00Z' }
  const late = { expires_at: '2031-01-01T00:00:00Z' }
  compat.assertLeaseConstraintsSubset(early, late)
  assert.throws(() => compat.assertLeaseConstraintsSubset(undefined, late), lk.LeaseSubsetViolationError)
  compat.assertLeaseConstraintsSubset(late, undefined)
  assert.throws(() => compat.assertLeaseConstraintsSubset(late, early), lk.LeaseSubsetViolationError)
  assert.throws(() => compat.assertLeaseConstraintsSubset({ expires_at: 'soon' }, early), lk.InvalidRequestError)
  const now = Date.parse('2029-01-01T00:00:00Z')
  assert.equal(compat.validateLeaseConstraints(early, now), Date.parse(early.expires_at))
  assert.equal(compat.validateLeaseConstraints(undefined, now), null)
  assert.equal(compat.validateLeaseConstraints({}, now), null)
  assert.throws(() => compat.validateLeaseConstraints(early, Date.parse('2030-01-01T00:00:00Z')), lk.InvalidRequestError)
  assert.throws(() => compat.validateLeaseConstraints({ expires_at: '2030-01-01T00:00:00+01:00' }, now), lk.InvalidRequestError)
})

test('checkBudgetRemaining (leasekit): decimal strings only, <= 0 is exhausted', () => {
  lk.checkBudgetRemaining({ USD: '0.000000001', EUR: '3' })
  assert.throws(() => lk.checkBudgetRemaining({ USD: '0' }), lk.BudgetExhaustedError)
  assert.throws(() => lk.checkBudgetRemaining({ USD: '-2.25' }), (e) => e instanceof lk.BudgetExhaustedError && e.details.currency === 'USD')
  for (const bad of [{ USD: 1 }, { USD: '1e3' }, ['USD'], 'USD:1', { USD: '1\uDC00' }]) {
    assert.throws(() => lk.checkBudgetRemaining(bad), lk.InvalidRequestError, JSON.stringify(bad))
  }
})

test('main API: core names, with the former (SDK) names as aliases of the same functions', () => {
  assert.equal(lk.matchGlob, lk.matchPattern)
  assert.equal(lk.assertLeaseSubset, lk.checkLeaseSubset)
  assert.equal(lk.initialBudgetFromLease, lk.initialBudget)
  assert.equal(lk.matchPattern('fs.read', '/a/*', '/a/b'), true)
  assert.throws(() => lk.checkLeaseSubset({ 'fs.read': ['/b'] }, { 'fs.read': ['/a/*'] }), lk.LeaseSubsetViolationError)
  assert.deepEqual({ ...lk.initialBudget({ 'cost.budget': ['USD:1', 'USD:2'] }) }, { USD: '3' })
})

test('budgets held as Map<string, number> are read through their shortest decimal text', () => {
  const lease = { 'tool.call': ['web.*'], 'cost.budget': ['USD:5'] }
  const op = (budgetRemaining) => compat.validateLeaseOp({ lease, capability: 'tool.call', target: 'web.search', ctx: { budgetRemaining } })
  op(new Map([['USD', 0.1]]))
  // 1 - 0.9 is 0.09999999999999998: the caller's float drift, read exactly, is more than the
  // 9 fraction digits a remaining amount may have (semantics 6), so it is refused, not rounded
  assert.throws(() => op(new Map([['USD', 1 - 0.9]])), (e) => e instanceof lk.InvalidRequestError && /0\.09999999999999998/.test(e.message))
  assert.throws(() => op(new Map([['USD', 0]])), lk.BudgetExhaustedError)
  assert.throws(() => op(new Map([['USD', -0.5]])), lk.BudgetExhaustedError)
  for (const bad of [NaN, Infinity, -Infinity, 1e-7, 1e21]) {
    assert.throws(() => op(new Map([['USD', bad]])), (e) => e instanceof lk.InvalidRequestError && /budgetRemaining\.USD/.test(e.message), String(bad))
  }
  // a plain object still takes decimal strings only
  assert.throws(() => op({ USD: 1 }), lk.InvalidRequestError)
  // the same reading for a parent's remaining budget
  const child = { 'cost.budget': ['USD:0.3'] }
  assert.equal(compat.isLeaseSubset(child, lease, new Map([['USD', 0.3]])), true)
  assert.equal(compat.isLeaseSubset(child, lease, new Map([['USD', 0.29]])), false)
  assert.throws(() => compat.isLeaseSubset(child, lease, new Map([['USD', 0.1 + 0.2]])), lk.InvalidRequestError)
  assert.throws(() => compat.isLeaseSubset(child, lease, new Map([['USD', NaN]])), lk.InvalidRequestError)
})

test('a remaining map is read as the SDK reads it: complete, and binding for every currency it names', () => {
  const parent = { 'cost.budget': ['USD:10'] }
  const child = { 'cost.budget': ['EUR:5'] }
  // leasekit alone: EUR is not budgeted by the parent, so unlimited; the SDK's rule is stricter
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { EUR: '1' } }), true)
  assert.equal(compat.isLeaseSubset(child, parent, new Map([['EUR', 1]])), false)
  assert.equal(compat.isLeaseSubset(child, parent, new Map([['EUR', 5]])), true)
  assert.equal(compat.isLeaseSubset(child, parent, { USD: '9' }), false) // EUR missing: nothing left
  assert.throws(() => compat.assertLeaseSubset(child, parent, { EUR: '1' }), lk.LeaseSubsetViolationError)
})

test('a child without an expiry under an expiring parent is a violation', () => {
  const parent = { expires_at: '2030-01-01T00:00:00Z' }
  // leasekit alone lets the child inherit the parent's expiry; an SDK runtime does not
  lk.checkLeaseSubset({}, {}, { childConstraints: null, parentConstraints: parent })
  assert.throws(() => compat.assertLeaseConstraintsSubset(null, parent), lk.LeaseSubsetViolationError)
  assert.throws(() => compat.assertLeaseConstraintsSubset({}, parent), lk.LeaseSubsetViolationError)
  compat.assertLeaseConstraintsSubset(parent, parent)
  compat.assertLeaseConstraintsSubset(null, null)
})
