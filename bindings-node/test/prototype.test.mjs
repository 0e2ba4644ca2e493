// A JavaScript object crossing into native code is read through its own
// enumerable string keys only, so prototype pollution anywhere in the host process cannot add
// a capability, a pattern, a budget or an option. Every public function is probed before and
// after Object.prototype and Array.prototype are polluted with every capability name and every
// option key; the answers must be identical. Non-plain objects and sparse arrays are refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'

const CAPABILITIES = ['fs.read', 'fs.write', 'net.fetch', 'tool.call', 'agent.delegate', 'model.use', 'cost.budget', 'x-vendor.acme.cap']
// What an attacker would inherit into every object: grants, budgets, option values.
const POLLUTION = {
  ...Object.fromEntries(CAPABILITIES.map((c) => [c, c === 'cost.budget' ? ['USD:1000000'] : ['/**', '**', '*', 'https://**']])),
  parentRemaining: { USD: '1000000' },
  childConstraints: null,
  parentConstraints: { expires_at: '2999-01-01T00:00:00Z' },
  expires_at: '2000-01-01T00:00:00Z',
  clock: () => new Date('2999-01-01T00:00:00Z'),
  graceMillis: 1e15,
  allowAnyModel: true,
  compat: true,
  USD: '1000000',
  EUR: '1000000',
  capability: 'fs.read',
  pattern: '/**',
  target: '/etc/shadow',
  // governor policy, open options, client options and request fields
  maxInFlight: 0,
  dailyBudgetCents: 0,
  requireSignedBundles: true,
  ids: 'random',
  manualClock: '2999-01-01T00:00:00Z',
  synchronous: 'normal',
  fallback: 'off',
  timeoutMs: 1,
  estimatedCostCents: 1e9,
  role: 'admin',
  approvalToken: 'stolen',
  leaseId: 'lease-1',
}
const ARRAY_POLLUTION = ['/**', 'USD:1000000', 'https://**', '**']

const T0 = '2026-01-01T00:00:00Z'
const clock = () => new Date(T0)
const LEASE = { 'tool.call': ['web.*'], 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] }
const AGENTFILE = 'AGENT x\nMOUNT /workspace ro\n'
const BIND_AGENTFILE = 'AGENT x\nBIND a b\n'

/** A fresh governor with a manual clock and deterministic ids (the same answers every time). */
function governor() {
  return lk.Governor.open('memory', { leaseTtlMs: 1000 }, { manualClock: T0, ids: 'deterministic' })
}

// [name, call]: every public function, with inputs an attacker would like to widen.
function probes() {
  const guard = () => new lk.LeaseGuard(LEASE, { expires_at: '2026-01-01T00:00:01Z' }, { clock })
  return [
    ['isValidCapabilityName', () => lk.isValidCapabilityName('x-vendor.acme.cap')],
    ['isReservedCapabilityName', () => lk.isReservedCapabilityName('fs.read')],
    ['canonicalizeTarget', () => lk.canonicalizeTarget('fs.read', '/a/../b')],
    ['validatePattern', () => lk.validatePattern('net.fetch', 'HTTPS://X.com')],
    ['matchGlob', () => lk.matchGlob('fs.read', '/data/*', '/etc/shadow')],
    ['validateLeaseShape', () => lk.validateLeaseShape({ 'tool.call': ['web.*'] })],
    ['normalizeLease', () => lk.normalizeLease({ 'tool.call': ['web.*'] })],
    ['normalizeLease.empty', () => lk.normalizeLease({})],
    ['normalizeLease.emptyList', () => lk.normalizeLease({ 'fs.read': [] })],
    ['leaseToJson', () => lk.leaseToJson({ 'tool.call': ['web.*'] })],
    ['CompiledLease', () => new lk.CompiledLease({ 'tool.call': ['web.*'] }).toJSON()],
    ['isLeaseSubset.patterns', () => lk.isLeaseSubset({ 'fs.read': ['/etc/**'] }, LEASE)],
    ['isLeaseSubset.budget', () => lk.isLeaseSubset({ 'cost.budget': ['USD:100'] }, LEASE)],
    ['isLeaseSubset.options', () => lk.isLeaseSubset({ 'cost.budget': ['USD:1'] }, LEASE, {})],
    ['isLeaseSubset.remaining', () => lk.isLeaseSubset({ 'cost.budget': ['USD:1'] }, LEASE, { parentRemaining: {} })],
    ['isLeaseSubset.expiry', () => lk.isLeaseSubset({}, LEASE, { childConstraints: { expires_at: '2030-01-01T00:00:00Z' }, parentConstraints: {} })],
    ['assertLeaseSubset', () => lk.assertLeaseSubset({ 'net.fetch': ['https://x.com/'] }, LEASE)],
    ['narrowLease', () => lk.narrowLease({ 'fs.read': ['/**'], 'net.fetch': ['https://**'] }, LEASE)],
    ['narrowConstraints', () => lk.narrowConstraints({}, {})],
    ['parseBudgetAmount', () => lk.parseBudgetAmount('USD:2.50')],
    ['parseAmount', () => lk.parseAmount('2.50')],
    ['sumBudgetEntries', () => lk.sumBudgetEntries(['USD:1', 'EUR:2'])],
    ['sumBudgetEntries.empty', () => lk.sumBudgetEntries([])],
    ['initialBudgetFromLease', () => lk.initialBudgetFromLease({ 'tool.call': [] })],
    ['parseExpiresAt', () => lk.parseExpiresAt(T0)],
    ['validateLeaseConstraints', () => lk.validateLeaseConstraints({}, T0)],
    ['checkAgentfile', () => lk.checkAgentfile(AGENTFILE)],
    ['checkAgentfile.options', () => lk.checkAgentfile(BIND_AGENTFILE, {})],
    ['guard.authorize.read', () => guard().authorize('fs.read', '/etc/shadow')],
    ['guard.authorize.write', () => guard().authorize('fs.write', '/data/x')],
    ['guard.authorize.fetch', () => guard().authorize('net.fetch', 'https://evil.example/')],
    ['guard.authorize.vendor', () => guard().authorize('x-vendor.acme.cap', 'x')],
    ['guard.authorize.ok', () => guard().authorize('tool.call', 'web.search')],
    ['guard.authorizeModel', () => guard().authorizeModel('gpt-4')],
    ['guard.options', () => new lk.LeaseGuard(LEASE, null, {}).authorizeModel('gpt-4')],
    ['guard.expiry', () => new lk.LeaseGuard(LEASE, {}, { clock }).expiresAt()],
    ['guard.lease', () => guard().lease()],
    ['guard.remaining', () => ({ ...guard().remaining() })],
    ['guard.reserve', () => guard().reserve('EUR', '1')],
    ['guard.recordMetric', () => guard().recordMetric('cost.llm', '6', 'USD')],
    ['guard.delegate', () => guard().delegate({ 'fs.read': ['/etc/**'] })],
    ['guard.delegate.budget', () => guard().delegate({ 'cost.budget': ['USD:100'] })],
    ['guard.delegate.child', () => guard().delegate({ 'tool.call': ['web.*'] }).authorize('fs.read', '/data/x')],
    ['guard.close', () => guard().close()],
    ['lintLease', () => lk.lintLease({ 'net.fetch': ['https://api.example.com**'] })],
    ['Governor.acquire', () => governor().acquire({ actorId: 'a', workspaceId: 'w' })],
    ['Governor.release', () => {
      const g = governor()
      return g.release({ leaseId: g.acquire({ actorId: 'a' }).leaseId, actualCostCents: 1 })
    }],
    ['Governor.metrics', () => governor().metrics()],
    ['Governor.handle', () => governor().handle('Acquire', '{"actorId":"a"}')],
    ['GovernorClient.fallback', () => {
      const g = lk.GovernorClient.connect('/nonexistent/leasekit.sock', { fallback: 'dev' }).acquire({ actorId: 'a', maxOutputTokens: 10 })
      return [g.granted, g.degradedMode]
    }],
  ]
}

/** The answer of a call: its JSON-comparable result, or the code it threw. */
function answer(call) {
  try {
    const out = call()
    return { ok: JSON.parse(JSON.stringify(out ?? null)) }
  } catch (err) {
    return { threw: err?.code ?? String(err) }
  }
}

function pollute() {
  const undo = []
  for (const [proto, entries] of [[Object.prototype, Object.entries(POLLUTION)], [Array.prototype, ARRAY_POLLUTION.map((v, i) => [i, v])]]) {
    for (const [key, value] of entries) {
      const had = Object.getOwnPropertyDescriptor(proto, key)
      Object.defineProperty(proto, key, { value, enumerable: true, configurable: true, writable: true })
      undo.push(() => (had ? Object.defineProperty(proto, key, had) : delete proto[key]))
    }
  }
  return () => undo.reverse().forEach((f) => f())
}

test('every public function answers the same with a polluted Object.prototype and Array.prototype', () => {
  const before = probes().map(([name, call]) => [name, answer(call)])
  const restore = pollute()
  let after
  try {
    // sanity: the pollution is visible to plain JavaScript
    assert.deepEqual({}['fs.read'], POLLUTION['fs.read'])
    after = probes().map(([name, call]) => [name, answer(call)])
  } finally {
    restore()
  }
  assert.deepEqual(after, before)
  // and the example stays denied
  assert.equal(answer(() => new lk.LeaseGuard({ 'tool.call': ['web.*'] }).authorize('fs.read', '/etc/shadow')).threw, 'PERMISSION_DENIED')
})

test('the issue example: an inherited capability is not granted, even to a delegated child', () => {
  const restore = pollute()
  let read, child
  try {
    const g = new lk.LeaseGuard({ 'tool.call': ['web.*'] })
    read = answer(() => g.authorize('fs.read', '/etc/shadow'))
    child = answer(() => g.delegate({ 'tool.call': ['web.search'] }).authorize('fs.read', '/etc/shadow'))
  } finally {
    restore()
  }
  assert.deepEqual(read, { threw: 'PERMISSION_DENIED' })
  assert.deepEqual(child, { threw: 'PERMISSION_DENIED' })
})

test('non-plain objects are refused where a plain one is expected', () => {
  class Lease {
    constructor() {
      this['fs.read'] = ['/a']
    }
  }
  const inherits = Object.create({ 'fs.read': ['/**'] })
  inherits['tool.call'] = ['x']
  for (const [name, call] of [
    ['class instance lease', () => lk.normalizeLease(new Lease())],
    ['lease with a custom prototype', () => lk.normalizeLease(inherits)],
    ['Map lease', () => lk.normalizeLease(new Map([['fs.read', ['/a']]]))],
    ['Date in a lease', () => lk.normalizeLease({ 'fs.read': [new Date()] })],
    ['options instance', () => lk.isLeaseSubset({}, {}, new Lease())],
    ['constraints instance', () => lk.validateLeaseConstraints(new Lease())],
    ['guard options instance', () => new lk.LeaseGuard({}, null, new Lease())],
    ['agentfile options instance', () => lk.checkAgentfile('AGENT x\n', new Lease())],
    ['remaining instance', () => lk.isLeaseSubset({}, {}, { parentRemaining: new Lease() })],
    ['governor policy instance', () => lk.Governor.open('memory', new Lease())],
    ['governor options instance', () => lk.Governor.open('memory', {}, new Lease())],
    ['governor request instance', () => governor().acquire(new Lease())],
    ['client options instance', () => lk.GovernorClient.connect('/nonexistent.sock', new Lease())],
    ['typed array of patterns', () => lk.normalizeLease({ 'fs.read': new Uint8Array([47]) })],
  ]) {
    assert.throws(call, lk.InvalidRequestError, name)
  }
  // a null-prototype object is plain data
  const bare = Object.create(null)
  bare['tool.call'] = ['x']
  assert.deepEqual(lk.normalizeLease(bare), { 'tool.call': ['x'] })
})

test('sparse arrays and arrays with extra properties are refused', () => {
  const sparse = ['/a']
  sparse[2] = '/b'
  const extra = ['/a']
  extra.more = '/b'
  for (const patterns of [sparse, extra, new Array(1)]) {
    assert.throws(() => lk.normalizeLease({ 'fs.read': patterns }), lk.InvalidRequestError)
  }
  assert.throws(() => lk.sumBudgetEntries(new Array(2)), lk.InvalidRequestError)
})

test('inherited option keys are ignored, own ones still count', () => {
  const options = Object.create({ allowAnyModel: true })
  assert.throws(() => new lk.LeaseGuard({}, null, options), lk.InvalidRequestError) // not plain
  assert.equal(new lk.LeaseGuard({}, null, { allowAnyModel: true }).authorizeModel('m'), 'm')
  assert.throws(() => new lk.LeaseGuard({}, null, {}).authorizeModel('m'), lk.PermissionDeniedError)
})
