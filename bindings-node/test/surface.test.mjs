// Unit tests of the functions of the JS surface (names, matching, leases, budgets, expiry).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'

test('capability names: reserved, vendor, invalid', () => {
  for (const name of ['fs.read', 'fs.write', 'net.fetch', 'tool.call', 'agent.delegate', 'model.use', 'cost.budget']) {
    assert.equal(lk.isReservedCapabilityName(name), true, name)
    assert.equal(lk.isValidCapabilityName(name), true, name)
  }
  assert.equal(lk.isValidCapabilityName('x-vendor.acme.kafka.publish'), true)
  assert.equal(lk.isReservedCapabilityName('x-vendor.acme.cap'), false)
  for (const bad of ['x-vendor.acme', 'x-vendor.Acme.x', 'x-vendor..x', 'acme.foo', '']) {
    assert.equal(lk.isValidCapabilityName(bad), false, bad)
  }
})

test('canonicalizeTarget: paths and URLs', () => {
  assert.equal(lk.canonicalizeTarget('fs.read', '/a//b/./c/../d/'), '/a/b/d')
  assert.equal(lk.canonicalizeTarget('net.fetch', 'HTTPS://API.Example.com:443/v1/%7Euser#frag'), 'https://api.example.com/v1/~user')
  assert.throws(() => lk.canonicalizeTarget('fs.read', 'relative/path'), lk.InvalidRequestError)
  assert.throws(() => lk.canonicalizeTarget('net.fetch', 'https://api.example.com@evil.com/'), { code: 'INVALID_REQUEST' })
  assert.throws(() => lk.canonicalizeTarget('cost.budget', 'USD'), lk.InvalidRequestError)
})

test('matchGlob: separators per capability, ** and anchoring', () => {
  assert.equal(lk.matchGlob('tool.call', 'web.*', 'web.search'), true)
  assert.equal(lk.matchGlob('tool.call', 'web.*', 'web.search.advanced'), false)
  assert.equal(lk.matchGlob('model.use', 'gpt-4*', 'gpt-4.1'), true)
  assert.equal(lk.matchGlob('fs.read', '/data/**', '/data'), true)
  assert.equal(lk.matchGlob('fs.read', '/data/**', '/data/x/y.csv'), true)
  assert.equal(lk.matchGlob('fs.read', '/data/*', '/data/x/y.csv'), false)
  assert.equal(lk.matchGlob('net.fetch', 'https://api.example.com/*', 'https://api.example.com/v1'), true)
  assert.equal(lk.matchGlob('net.fetch', 'https://api.example.com/*', 'https://api.example.com/a/../v1'), true)
  assert.throws(() => lk.matchGlob('fs.read', '/a/***', '/a/b'), lk.InvalidRequestError)
})

test('matchGlob is linear: a pathological pattern answers fast', () => {
  const target = 'a'.repeat(10000)
  const started = process.hrtime.bigint()
  assert.equal(lk.matchGlob('tool.call', '*a*a*a*a*a*a*a*a*a*a*a*a*c', target), false)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  // A backtracking matcher takes minutes here; 2 s keeps a loaded machine from failing it.
  assert.ok(ms < 2000, `took ${ms} ms`)
})

test('validatePattern returns the stored form', () => {
  assert.equal(lk.validatePattern('net.fetch', 'HTTPS://API.example.com:443'), 'https://api.example.com/')
  assert.equal(lk.validatePattern('net.fetch', 'https://*.example.com/**'), 'https://*.example.com/**')
  assert.throws(() => lk.validatePattern('fs.read', 'relative/*'), lk.InvalidRequestError)
})

test('validateLeaseShape / normalizeLease', () => {
  assert.equal(lk.validateLeaseShape({ 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] }), undefined)
  assert.equal(lk.validateLeaseShape({ 'tool.call': [] }), undefined)
  for (const bad of [
    { 'fs.read': '/data' },
    { 'fs.read': [1] },
    { 'fs.read': [''] },
    { 'fs.read': ['/a\u0000'] },
    { 'acme.foo': ['x'] },
    { 'cost.budget': ['USD:-1'] },
    { 'fs.read': ['data/*'] },
    ['fs.read'],
    'not json',
    '{"fs.read": ["/a"], "fs.read": ["/b"]}',
  ]) {
    assert.throws(() => lk.validateLeaseShape(bad), lk.InvalidRequestError, JSON.stringify(bad))
    assert.throws(() => lk.normalizeLease(bad), lk.InvalidRequestError, JSON.stringify(bad))
  }
  assert.deepEqual(lk.normalizeLease({ 'net.fetch': ['HTTPS://API.example.com:443'] }), { 'net.fetch': ['https://api.example.com/'] })
  assert.deepEqual(lk.normalizeLease('{"tool.call": ["web.*"]}'), { 'tool.call': ['web.*'] })
  assert.deepEqual(JSON.parse(lk.leaseToJson({ 'tool.call': ['web.*'] })), { 'tool.call': ['web.*'] })
})

test('isLeaseSubset / assertLeaseSubset', () => {
  assert.equal(lk.isLeaseSubset({ 'model.use': ['gpt-4o-mini'] }, { 'model.use': ['gpt-4*'] }), true)
  assert.equal(lk.isLeaseSubset({ 'fs.read': ['/a/**'] }, { 'fs.read': ['/a/*'] }), false)
  assert.equal(lk.isLeaseSubset({ 'fs.read': ['/x/**'] }, { 'fs.read': ['/x', '/x/*', '/x/*/**'] }), true)
  assert.equal(lk.isLeaseSubset({ 'tool.call': ['a'] }, { 'fs.read': ['/a'] }), false)
  const same = { 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] }
  assert.equal(lk.isLeaseSubset(same, same), true)
  assert.equal(lk.assertLeaseSubset(same, same), undefined)

  let err
  try {
    lk.assertLeaseSubset({ 'fs.read': ['/a/**'] }, { 'fs.read': ['/a/*'] })
  } catch (e) {
    err = e
  }
  assert.ok(err instanceof lk.LeaseSubsetViolationError)
  assert.ok(err instanceof lk.LeaseError)
  assert.ok(err instanceof Error)
  assert.equal(err.code, 'LEASE_SUBSET_VIOLATION')
  assert.equal(err.retryable, false)
  assert.equal(err.details.capability, 'fs.read')
  assert.equal(err.details.pattern, '/a/**')
  assert.equal(typeof err.details.witness, 'string')
  assert.equal(lk.matchGlob('fs.read', '/a/**', err.details.witness), true)
  assert.equal(lk.matchGlob('fs.read', '/a/*', err.details.witness), false)

  // budgets: child sum against the parent's remaining
  const parent = { 'tool.call': ['x'], 'cost.budget': ['USD:5'] }
  const child = { 'tool.call': ['x'], 'cost.budget': ['USD:3', 'USD:1'] }
  assert.equal(lk.isLeaseSubset(child, parent), true)
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { USD: '3.5' } }), false)
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { USD: '4' } }), true)
  // expiry: the child may not outlive the parent
  const parentConstraints = { expires_at: '2030-01-01T00:00:00Z' }
  assert.equal(lk.isLeaseSubset(child, parent, { parentConstraints, childConstraints: { expires_at: new Date('2029-01-01T00:00:00Z') } }), true)
  assert.equal(lk.isLeaseSubset(child, parent, { parentConstraints, childConstraints: { expires_at: '2031-01-01T00:00:00Z' } }), false)
  // invalid input throws instead of answering
  assert.throws(() => lk.isLeaseSubset({ 'fs.read': 'x' }, parent), lk.InvalidRequestError)
  assert.throws(() => lk.isLeaseSubset(child, parent, { parent_remaining: {} }), lk.InvalidRequestError)
  assert.throws(() => lk.isLeaseSubset(child, parent, { bogus: 1 }), lk.InvalidRequestError)
  // parentRemaining follows core's one rule for caller-given amounts (leasekit::wire::Amounts):
  // decimal strings, signed (a guard's remaining() after an overspend round-trips), at most 9
  // fraction digits
  const g = new lk.LeaseGuard(parent)
  g.recordMetric('cost.llm', '7.25', 'USD')
  assert.deepEqual({ ...g.remaining() }, { USD: '-2.25' })
  assert.equal(lk.isLeaseSubset({ 'cost.budget': ['USD:0'] }, parent, { parentRemaining: g.remaining() }), false)
  assert.equal(lk.isLeaseSubset({ 'tool.call': ['x'] }, parent, { parentRemaining: { USD: '-1' } }), true)
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { USD: '4.000000000' } }), true)
  // strings only: a number or bigint is refused like any other non-string
  for (const bad of ['4.0000000000', '1e3', '+1', '', 4, -1, 4n, NaN, Infinity, 0.1 + 0.2, true, null, [1]]) {
    assert.throws(() => lk.isLeaseSubset(child, parent, { parentRemaining: { USD: bad } }), lk.InvalidRequestError, String(bad))
  }
  assert.throws(() => lk.isLeaseSubset(child, parent, { childConstraints: { expires_at: '2031-01-01T00:00:00+00:00' } }), lk.InvalidRequestError)
})

test('budgets: exact decimals as strings', () => {
  assert.deepEqual({ ...lk.parseBudgetAmount('USD:2.50') }, { currency: 'USD', amount: '2.5' })
  assert.throws(() => lk.parseBudgetAmount('USD:1e3'), lk.InvalidRequestError)
  assert.throws(() => lk.parseBudgetAmount('1USD:1'), lk.InvalidRequestError)
  assert.throws(() => lk.parseBudgetAmount('USD:0.1234567891'), lk.InvalidRequestError)
  assert.equal(lk.parseAmount('0.30'), '0.3')
  assert.equal(lk.parseAmount(0.3), '0.3')
  // 0.1 + 0.2 is 0.30000000000000004 in shortest form: more than 9 fraction digits
  assert.throws(() => lk.parseAmount(0.1 + 0.2), lk.InvalidRequestError)
  assert.equal(lk.parseAmount(1e14), '100000000000000')
  assert.equal(lk.parseAmount(12n), '12')
  for (const bad of [-1, NaN, Infinity, -5n, 10n ** 40n, '-1', '1e3', '', ' 1']) {
    assert.throws(() => lk.parseAmount(bad), lk.InvalidRequestError, String(bad))
  }
  assert.deepEqual({ ...lk.sumBudgetEntries(['USD:0.1', 'USD:0.2', 'EUR:1']) }, { EUR: '1', USD: '0.3' })
  assert.deepEqual({ ...lk.initialBudgetFromLease({ 'cost.budget': ['USD:1', 'USD:0.50', 'tokens:1000'] }) }, { USD: '1.5', tokens: '1000' })
})

test('expiry: strict parsing and the submit-time check', () => {
  assert.equal(lk.parseExpiresAt('2026-01-01T00:00:00.500000000Z'), '2026-01-01T00:00:00.5Z')
  for (const bad of ['2026-01-01T00:00:00+00:00', '2026-01-01t00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:60Z']) {
    assert.throws(() => lk.parseExpiresAt(bad), lk.InvalidRequestError, bad)
  }
  const now = '2026-01-01T00:00:00Z'
  assert.equal(lk.validateLeaseConstraints({ expires_at: '2026-01-01T00:00:01Z' }, now), undefined)
  assert.throws(() => lk.validateLeaseConstraints({ expires_at: '2026-01-01T00:00:00Z' }, now), lk.InvalidRequestError)
  assert.throws(() => lk.validateLeaseConstraints({ expires_at: new Date('2025-12-31T23:59:59Z') }, new Date(now)), lk.InvalidRequestError)
  assert.equal(lk.validateLeaseConstraints({ expires_at: Date.parse(now) + 1 }, Date.parse(now)), undefined)
  assert.equal(lk.validateLeaseConstraints(null), undefined)
  assert.equal(lk.validateLeaseConstraints({}), undefined)
  // the default `now` is the system clock
  assert.throws(() => lk.validateLeaseConstraints({ expires_at: '2000-01-01T00:00:00Z' }), lk.InvalidRequestError)
  assert.equal(lk.validateLeaseConstraints({ expires_at: '2999-01-01T00:00:00Z' }), undefined)
  assert.throws(() => lk.validateLeaseConstraints({ expiresAt: '2999-01-01T00:00:00Z' }), lk.InvalidRequestError)
  assert.throws(() => lk.validateLeaseConstraints({ expires_at: new Date('nope') }), lk.InvalidRequestError)
})

test('narrowLease: effective lease and reductions', () => {
  const { lease, reductions } = lk.narrowLease(
    { 'fs.read': ['/data/**'], 'tool.call': ['web.search'], 'net.fetch': ['https://x.example/**'] },
    { 'fs.read': ['/data/public/**'], 'tool.call': ['web.*'] },
  )
  assert.deepEqual(lease['fs.read'], ['/data/public/**'])
  assert.deepEqual(lease['tool.call'], ['web.search'])
  assert.equal('net.fetch' in lease, false)
  assert.ok(Array.isArray(reductions) && reductions.length >= 2)
  assert.ok(reductions.every((r) => typeof r.capability === 'string' && typeof r.action === 'string'))
  assert.deepEqual({ ...lk.narrowConstraints({ expires_at: '2030-01-01T00:00:00Z' }, { expires_at: '2029-01-01T00:00:00Z' }) }, { expires_at: '2029-01-01T00:00:00Z' })
})

test('CompiledLease: compiled once, accepted wherever a lease is', () => {
  const parent = new lk.CompiledLease({ 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] })
  const child = new lk.CompiledLease('{"fs.read": ["/data/reports/*.csv"], "cost.budget": ["USD:1"]}')
  assert.ok(parent instanceof lk.CompiledLease)
  assert.deepEqual(parent.toJSON(), { 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] })
  assert.equal(JSON.stringify(child), '{"cost.budget":["USD:1"],"fs.read":["/data/reports/*.csv"]}')
  assert.equal(String(child), lk.leaseToJson(child))
  // every function taking a lease takes it, mixed with plain objects
  assert.equal(lk.isLeaseSubset(child, parent), true)
  assert.equal(lk.isLeaseSubset(parent, child), false)
  assert.equal(lk.isLeaseSubset({ 'fs.read': ['/data/x'] }, parent), true)
  assert.throws(() => lk.assertLeaseSubset(parent, child), lk.LeaseSubsetViolationError)
  assert.deepEqual(lk.normalizeLease(child), child.toJSON())
  lk.validateLeaseShape(child)
  assert.deepEqual(lk.initialBudgetFromLease(parent), { USD: '5' })
  assert.deepEqual(lk.narrowLease(child, parent).lease, child.toJSON())
  assert.deepEqual(new lk.CompiledLease(parent).toJSON(), parent.toJSON())
  const guard = new lk.LeaseGuard(parent)
  assert.equal(guard.authorize('fs.read', '/data/a'), '/data/a')
  const sub = guard.delegate(child)
  assert.equal(sub.authorize('fs.read', '/data/reports/q3.csv'), '/data/reports/q3.csv')
  assert.deepEqual(guard.remaining(), { USD: '4' })
  // invalid leases are refused at construction, with the usual class
  assert.throws(() => new lk.CompiledLease({ 'fs.read': ['relative'] }), lk.InvalidRequestError)
  assert.throws(() => new lk.CompiledLease('{"fs.read": [], "fs.read": []}'), lk.InvalidRequestError)
})
