// The embedded Governor (SEMANTICS 13, docs/governor.md): typed methods through core's strict
// call, the wire dispatcher, frames, SQLite durability across a reopen, the manual clock,
// closed handles and bad input (a LeaseError with a stable code, never a crash).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as lk from '../index.mjs'

const T0 = '2026-01-01T00:00:00Z'
const POLICY = { policyVersion: 'v1', maxInFlight: 2, dailyBudgetCents: 100, leaseTtlMs: 1000 }
const ASK = { actorId: 'alice', workspaceId: 'ws1', modelId: 'gpt-4o-mini', estimatedCostCents: 5, maxOutputTokens: 50 }

function memory(policy = POLICY) {
  return lk.Governor.open('memory', policy, { manualClock: T0, ids: 'deterministic' })
}

function tmpdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'lk-node-gov-'))
}

/** A request frame: 4-byte little-endian length + the envelope JSON. */
function frame(command, payload) {
  const body = Buffer.from(JSON.stringify({ protocolVersion: '0.1', command, payloadJson: JSON.stringify(payload) }))
  const len = Buffer.alloc(4)
  len.writeInt32LE(body.length)
  return Buffer.concat([len, body])
}

test('acquire and release: typed methods answer plain objects in the protocol field names', () => {
  const gov = memory()
  const grant = gov.acquire(ASK)
  assert.equal(grant.granted, true)
  assert.equal(grant.leaseId, 'lease-1')
  assert.equal(grant.expiresAtUtc, '2026-01-01T00:00:01.000Z')
  assert.equal(Object.getPrototypeOf(grant), Object.prototype)
  assert.equal(gov.metrics().activeLeases, 1)
  const rel = gov.release({ leaseId: grant.leaseId, actualCostCents: 3 })
  assert.equal(typeof rel.classification, 'string')
  const m = gov.metrics()
  assert.equal(m.activeLeases, 0)
  assert.equal(m.spendTodayCents, 3)
  assert.equal(gov.status().activeLeases, 0)
  assert.deepEqual(gov.verifyAudit(), { ...gov.verifyAudit(), ok: true })
  assert.ok(gov.exportAudit({ fromLine: 1 }).records.length >= 2)
  gov.close()
})

test('denials: capacity, with a retry hint; releasing frees the slot', () => {
  const gov = memory()
  const a = gov.acquire(ASK)
  const b = gov.acquire(ASK)
  const c = gov.acquire(ASK)
  assert.equal(a.granted && b.granted, true)
  assert.equal(c.granted, false)
  assert.notEqual(c.deniedReason, '')
  assert.equal(c.leaseId, '')
  gov.release({ leaseId: a.leaseId, actualCostCents: 1 })
  assert.equal(gov.acquire(ASK).granted, true)
})

test('the manual clock: setTime, advanceTime, time; an expired lease is settled', () => {
  const gov = memory()
  assert.equal(gov.time(), '2026-01-01T00:00:00.000Z')
  const grant = gov.acquire(ASK)
  gov.advanceTime(1500)
  assert.equal(gov.time(), '2026-01-01T00:00:01.500Z')
  assert.equal(gov.metrics().activeLeases, 0, 'expired by the sweep of the next command')
  gov.setTime(new Date('2026-01-02T00:00:00Z'))
  assert.equal(gov.time(), '2026-01-02T00:00:00.000Z')
  gov.setTime(Date.parse('2026-01-03T00:00:00Z'))
  assert.equal(gov.time(), '2026-01-03T00:00:00.000Z')
  assert.throws(() => gov.advanceTime(-1), lk.InvalidRequestError)
  assert.ok(grant.granted)
  // a manualClock given as a Date
  const g2 = lk.Governor.open('memory', {}, { manualClock: new Date(T0), ids: 'deterministic' })
  assert.equal(g2.time(), '2026-01-01T00:00:00.000Z')
  // without a manual clock the clock cannot be moved
  const real = lk.Governor.open('memory')
  assert.throws(() => real.advanceTime(1), lk.InvalidRequestError)
  assert.throws(() => real.time(), lk.InvalidRequestError)
  assert.match(real.acquire(ASK).leaseId, /^.{8,}$/)
})

test('strict typed calls: an unknown field or command is InvalidRequestError, nothing changes', () => {
  const gov = memory()
  assert.throws(() => gov.acquire({ ...ASK, estimatedCost: 5 }), (e) => e instanceof lk.InvalidRequestError && /estimatedCost/.test(e.message))
  assert.throws(() => gov.call('Nope', {}), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ ...ASK, estimatedCostCents: -1 }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ ...ASK, estimatedCostCents: 1.5 }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ ...ASK, estimatedCostCents: 2 ** 70 }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ ...ASK, intentClass: 'mischief' }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire('[1]'), lk.InvalidRequestError)
  assert.throws(() => gov.acquire('{"actorId":'), lk.InvalidRequestError)
  assert.throws(() => gov.acquire(new (class Req { constructor() { this.actorId = 'a' } })()), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ actorId: Symbol('x') }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ actorId: 'a\uD800' }), lk.InvalidRequestError)
  assert.throws(() => gov.metrics.call({}), lk.LeaseError)
  assert.equal(gov.metrics().activeLeases, 0)
  // a request as JSON text, and the generic call
  assert.equal(gov.acquire(JSON.stringify(ASK)).leaseId, 'lease-1')
  assert.equal(gov.call('GetMetrics').activeLeases, 1)
})

test('handle: the lenient wire dispatcher answers an envelope', () => {
  const gov = memory()
  const env = JSON.parse(gov.handle('Acquire', JSON.stringify({ ...ASK, estimatedCost: 5 })))
  assert.equal(env.success, true)
  assert.equal(JSON.parse(env.payloadJson).leaseId, 'lease-1')
  const bad = JSON.parse(gov.handle('Nope', '{}'))
  assert.equal(bad.success, false)
  assert.notEqual(bad.error, '')
  assert.equal(JSON.parse(gov.handle('Acquire', 'not json')).success, false)
  assert.throws(() => gov.handle('Acquire', { actorId: 'a' }), lk.InvalidRequestError)
})

test('frames: handleFrame round trip and decodeFrame', () => {
  const gov = memory()
  const req = frame('Acquire', ASK)
  assert.deepEqual(lk.decodeFrame(req), { protocolVersion: '0.1', command: 'Acquire', payloadJson: JSON.stringify(ASK) })
  const resp = gov.handleFrame(req)
  assert.ok(Buffer.isBuffer(resp))
  assert.equal(resp.readInt32LE(0), resp.length - 4)
  const env = JSON.parse(resp.subarray(4).toString('utf8'))
  assert.equal(env.success, true)
  assert.equal(JSON.parse(env.payloadJson).leaseId, 'lease-1')
  // a malformed frame: decodeFrame throws, handleFrame answers a failure envelope
  for (const badFrame of [Buffer.from([0, 0, 0, 0]), Buffer.from([255, 255, 255, 255, 0]), Buffer.from([5, 0, 0, 0, 123]), Buffer.alloc(0)]) {
    assert.throws(() => lk.decodeFrame(badFrame), lk.InvalidRequestError)
    const out = gov.handleFrame(badFrame)
    assert.equal(JSON.parse(out.subarray(4).toString('utf8')).success, false)
  }
  assert.throws(() => lk.decodeFrame('00000000'), lk.InvalidRequestError)
  assert.equal(gov.metrics().activeLeases, 1)
})

test('SQLite: a reopened store keeps leases, idempotency records, policy and the audit chain', () => {
  const dir = tmpdir()
  try {
    const file = path.join(dir, 'gov.db')
    let gov = lk.Governor.open(`sqlite:${file}`, POLICY, { manualClock: T0, ids: 'deterministic', synchronous: 'normal' })
    const grant = gov.acquire({ ...ASK, idempotencyKey: 'k1' })
    assert.equal(gov.status().durableStateEnabled, true)
    gov.close()
    assert.equal(gov.closed, true)
    gov = lk.Governor.open(file, {}, { manualClock: T0, ids: 'deterministic' })
    assert.equal(gov.metrics().activeLeases, 1)
    // the same idempotency key answers the same grant, not a second lease
    assert.equal(gov.acquire({ ...ASK, idempotencyKey: 'k1' }).leaseId, grant.leaseId)
    assert.equal(gov.metrics().activeLeases, 1)
    gov.release({ leaseId: grant.leaseId, actualCostCents: 4 })
    assert.equal(gov.metrics().spendTodayCents, 4)
    assert.equal(gov.verifyAudit().ok, true)
    gov.close()
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('open refuses bad stores, policies and options with InvalidRequestError', () => {
  for (const [store, policy, options] of [
    ['', {}, {}],
    ['sqlite:', {}, {}],
    ['memory', [], {}],
    ['memory', '{', {}],
    ['memory', { maxInFlight: -1 }, {}],
    ['memory', {}, { ids: 'sequential' }],
    ['memory', {}, { manualClock: 'yesterday' }],
    ['memory', {}, { manualClock: NaN }],
    ['memory', {}, { synchronous: 'normal' }],
    ['memory', {}, new Map()],
  ]) {
    assert.throws(() => lk.Governor.open(store, policy, options), lk.InvalidRequestError, JSON.stringify([store, policy, options]))
  }
  assert.throws(() => lk.Governor.open(42), lk.InvalidRequestError)
  assert.throws(() => new lk.Governor(), lk.LeaseError)
  // A PostgreSQL URL is a store (a fleet); an unreachable server is a retryable error.
  assert.throws(() => lk.Governor.open('postgres://u@%2Fnonexistent-leasekit-dir/db', {}, {}),
    (e) => e instanceof lk.InternalError && e.retryable === true)
})

test('a closed governor throws InvalidRequestError; close is idempotent', () => {
  const gov = memory()
  gov.close()
  gov.close()
  assert.equal(gov.closed, true)
  for (const call of [() => gov.acquire(ASK), () => gov.metrics(), () => gov.handle('GetMetrics', '{}'), () => gov.handleFrame(frame('GetStatus', {})), () => gov.time()]) {
    assert.throws(call, lk.InvalidRequestError)
  }
})

test('approvals through the typed methods', () => {
  const gov = memory({ ...POLICY, approvalRequiredToolIds: ['deploy'] })
  const req = gov.requestApproval({ actorId: 'alice', workspaceId: 'ws1', reason: 'ship it', toolId: 'deploy' })
  assert.equal(typeof req.approvalId, 'string')
  assert.equal(req.approvalId, 'approval-1')
  const pending = gov.listPendingApprovals({})
  assert.deepEqual(pending.items.map((a) => [a.approvalId, a.toolId, a.status]), [['approval-1', 'deploy', 'pending']])
  const granted = gov.grantApproval({ approvalId: req.approvalId, grantedBy: 'bob' })
  assert.equal(granted.granted, true)
  assert.equal(granted.approvalToken, 'appr-1')
  assert.equal(gov.listPendingApprovals({}).items.length, 0)
  // the ARCP integration: a requested lease narrowed to the ceiling, then Authorize against it
  const grant = gov.acquire({ ...ASK, requestedLease: { 'fs.read': ['/workspace/**'] } })
  assert.deepEqual(grant.effectiveLease, { 'fs.read': ['/workspace/**'] })
  assert.deepEqual(gov.authorize({ leaseId: grant.leaseId, capability: 'fs.read', target: '/workspace/a/../b' }), { allowed: true, canonicalTarget: '/workspace/b' })
  assert.equal(gov.authorize({ leaseId: grant.leaseId, capability: 'fs.read', target: '/etc/shadow' }).allowed, false)
})

test('every typed method exists on Governor and GovernorClient alike', () => {
  const names = ['acquire', 'release', 'requestApproval', 'grantApproval', 'denyApproval', 'reviewApproval', 'listPendingApprovals', 'metrics', 'status', 'exportDiagnostics', 'exportRunawayReport', 'stagePolicyBundle', 'activatePolicy', 'rollbackPolicy', 'requestToolSubLease', 'executeToolCall', 'authorize', 'exportAudit', 'verifyAudit', 'call', 'handle', 'close']
  // names[0..19] are the typed commands; with `call` they have Promise forms too
  for (const cls of [lk.Governor, lk.GovernorClient]) {
    for (const name of names) assert.equal(typeof cls.prototype[name], 'function', `${cls.name}.${name}`)
    for (const name of names.slice(0, 20)) assert.equal(typeof cls.prototype[`${name}Async`], 'function', `${cls.name}.${name}Async`)
    assert.equal(cls.prototype.__callAsync, undefined)
  }
  // each answers without a crash on a fresh governor (refusals are LeaseErrors)
  const gov = memory()
  for (const name of names.slice(0, 19)) {
    try {
      const out = gov[name]({})
      assert.equal(typeof out, 'object', name)
    } catch (err) {
      assert.ok(err instanceof lk.LeaseError, `${name}: ${err}`)
    }
  }
})

test('Promise forms: concurrent acquireAsync on SQLite FULL share commits and add up exactly', async () => {
  const dir = tmpdir()
  try {
    const gov = lk.Governor.open(path.join(dir, 'gov.db'), { maxInFlight: 64, maxComputeUnits: 64, dailyBudgetCents: 10_000 })
    const grants = await Promise.all(Array.from({ length: 32 }, (_, i) => gov.acquireAsync({ ...ASK, actorId: `a${i}` })))
    assert.ok(grants.every((g) => g.granted), JSON.stringify(grants.find((g) => !g.granted)))
    assert.equal(new Set(grants.map((g) => g.leaseId)).size, 32)
    assert.equal((await gov.metricsAsync()).activeLeases, 32)
    await Promise.all(grants.map((g) => gov.releaseAsync({ leaseId: g.leaseId, actualCostCents: 2 })))
    const m = await gov.callAsync('GetMetrics')
    assert.equal(m.activeLeases, 0)
    assert.equal(m.spendTodayCents, 64)
    assert.equal((await gov.verifyAuditAsync()).ok, true)
    gov.close()
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('Promise forms reject with LeaseErrors (argument, core refusal, closed governor)', async () => {
  const gov = memory()
  await assert.rejects(gov.acquireAsync({ ...ASK, estimatedCost: 5 }), (e) => e instanceof lk.InvalidRequestError && /estimatedCost/.test(e.message))
  await assert.rejects(gov.acquireAsync(new Map()), lk.InvalidRequestError)
  await assert.rejects(gov.callAsync('Nope', {}), lk.InvalidRequestError)
  const p = gov.acquireAsync(ASK)
  assert.ok(p instanceof Promise)
  assert.equal((await p).leaseId, 'lease-1')
  gov.close()
  await assert.rejects(gov.metricsAsync(), lk.InvalidRequestError)
})

test('close while Promise calls are in flight: they finish on their own handle, later calls refuse', async () => {
  const dir = tmpdir()
  try {
    const file = path.join(dir, 'gov.db')
    const gov = lk.Governor.open(file, { maxInFlight: 64, maxComputeUnits: 64 })
    const pending = Array.from({ length: 8 }, (_, i) => gov.acquireAsync({ ...ASK, actorId: `c${i}` }))
    gov.close()
    const grants = await Promise.all(pending)
    assert.ok(grants.every((g) => g.granted))
    await assert.rejects(gov.acquireAsync(ASK), lk.InvalidRequestError)
    // every answered grant was committed before its answer
    const again = lk.Governor.open(file)
    assert.equal(again.metrics().activeLeases, 8)
    again.close()
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
