// GovernorClient against a REAL `leasekit serve` daemon (started here, stopped with SIGTERM):
// the same typed methods as Governor over the socket, the wire dispatcher, strict requests
// refused before sending, the local fallback of SEMANTICS 13.13 only when nothing listens,
// and the example agent loop (examples/node/agent-loop.mjs) run against the daemon.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import * as lk from '../index.mjs'
import { Daemon } from './daemon.mjs'
import { repoRoot } from './support.mjs'

const ASK = { actorId: 'agent-1', workspaceId: 'ws1', modelId: 'gpt-4o-mini', estimatedCostCents: 5, maxOutputTokens: 50 }

let daemon
before(async () => {
  // room for the concurrent tests; the agent loop meets the default budget rules
  daemon = await Daemon.start({ policy: { policyVersion: 'node-client-test', maxInFlight: 64, maxComputeUnits: 64, dailyBudgetCents: 100_000 } })
})
after(async () => {
  if (daemon) await daemon.dispose()
})

test('acquire and release over the socket; metrics add up', () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { timeoutMs: 5000, fallback: 'off' })
  assert.equal(gov.socketPath, daemon.socket)
  const before = gov.metrics()
  const grant = gov.acquire(ASK)
  assert.equal(grant.granted, true)
  assert.equal(grant.degradedMode, false)
  assert.match(grant.leaseId, /.{8,}/)
  assert.equal(gov.metrics().activeLeases, before.activeLeases + 1)
  const rel = gov.release({ leaseId: grant.leaseId, actualCostCents: 3 })
  assert.equal(typeof rel.classification, 'string')
  const m = gov.metrics()
  assert.equal(m.activeLeases, before.activeLeases)
  assert.equal(m.spendTodayCents, before.spendTodayCents + 3)
  assert.equal(gov.status().healthy, true)
  assert.equal(gov.verifyAudit().ok, true)
  assert.ok(gov.exportAudit({ fromLine: 1 }).records.length >= 2)
  gov.close()
  assert.equal(gov.closed, true)
  assert.throws(() => gov.metrics(), lk.InvalidRequestError)
})

test('many calls reuse the connection; the wire dispatcher answers envelopes', () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { fallback: 'off' })
  for (let i = 0; i < 50; i++) {
    const g = gov.acquire({ ...ASK, estimatedCostCents: 1 })
    assert.equal(g.granted, true, JSON.stringify(g))
    gov.release({ leaseId: g.leaseId, actualCostCents: 1 })
  }
  const env = JSON.parse(gov.handle('GetMetrics', '{}'))
  assert.equal(env.success, true)
  assert.equal(JSON.parse(env.payloadJson).activeLeases, 0)
  // the wire form is lenient, as LeaseGate: an unknown field is ignored
  assert.equal(JSON.parse(gov.handle('GetStatus', '{"x":1}')).success, true)
  const bad = JSON.parse(gov.handle('Nope', '{}'))
  assert.equal(bad.success, false)
  gov.close()
})

test('Promise forms over the socket: concurrent calls, rejections as LeaseErrors', async () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { fallback: 'off' })
  const before = await gov.metricsAsync()
  const grants = await Promise.all(Array.from({ length: 16 }, (_, i) => gov.acquireAsync({ ...ASK, actorId: `p${i}`, estimatedCostCents: 1 })))
  await Promise.all(grants.filter((g) => g.granted).map((g) => gov.releaseAsync({ leaseId: g.leaseId, actualCostCents: 1 })))
  assert.ok(grants.every((g) => g.granted && !g.degradedMode), JSON.stringify(grants.find((g) => !g.granted)))
  const after = await gov.callAsync('GetMetrics')
  assert.equal(after.activeLeases, before.activeLeases)
  assert.equal(after.spendTodayCents, before.spendTodayCents + 16)
  await assert.rejects(gov.acquireAsync({ ...ASK, estimatedCost: 1 }), lk.InvalidRequestError)
  const off = lk.GovernorClient.connect(path.join(daemon.dir, 'nobody.sock'), { fallback: 'off', timeoutMs: 500 })
  await assert.rejects(off.statusAsync(), lk.LeaseError)
  gov.close()
})

test('strict typed calls are refused before sending; refusals from the daemon throw', () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { fallback: 'off' })
  const before = gov.metrics()
  assert.throws(() => gov.acquire({ ...ASK, estimatedCost: 5 }), (e) => e instanceof lk.InvalidRequestError && /estimatedCost/.test(e.message))
  assert.throws(() => gov.call('Nope', {}), lk.InvalidRequestError)
  assert.throws(() => gov.acquire({ ...ASK, estimatedCostCents: -5 }), lk.InvalidRequestError)
  assert.throws(() => gov.acquire(new Map()), lk.InvalidRequestError)
  assert.deepEqual(gov.metrics(), before)
  // a release of a lease the daemon does not know changes nothing
  assert.equal(gov.release({ leaseId: 'no-such-lease', actualCostCents: 1 }).classification, 'leaseNotFound')
  assert.deepEqual(gov.metrics(), before)
  gov.close()
})

test('approvals and authorize through the daemon', () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { fallback: 'off' })
  const req = gov.requestApproval({ actorId: 'agent-1', workspaceId: 'ws1', reason: 'needs a tool', toolId: 'deploy' })
  assert.equal(typeof req.approvalId, 'string')
  assert.ok(gov.listPendingApprovals({}).items.some((a) => a.approvalId === req.approvalId))
  // One peer uid may not decide an approval it requested (SEMANTICS 13.16): it stays pending.
  const denied = gov.denyApproval({ approvalId: req.approvalId, deniedBy: 'ops', comment: 'no' })
  assert.equal(denied.message, 'self_review_not_allowed')
  assert.ok(gov.listPendingApprovals({}).items.some((a) => a.approvalId === req.approvalId))
  const grant = gov.acquire({ ...ASK, requestedLease: { 'fs.read': ['/workspace/**'] } })
  assert.equal(grant.granted, true)
  assert.deepEqual(grant.effectiveLease, { 'fs.read': ['/workspace/**'] })
  assert.deepEqual(gov.authorize({ leaseId: grant.leaseId, capability: 'fs.read', target: '/workspace/a.txt' }), { allowed: true, canonicalTarget: '/workspace/a.txt' })
  assert.equal(gov.authorize({ leaseId: grant.leaseId, capability: 'fs.read', target: '/etc/passwd' }).allowed, false)
  gov.release({ leaseId: grant.leaseId, actualCostCents: 0 })
  gov.close()
})

test('options: bad values and unknown keys are InvalidRequestError', () => {
  for (const options of [{ fallback: 'maybe' }, { timeoutMs: -1 }, { timeoutMs: 0 }, { timeoutMs: 1.5 }, { nope: 1 }, new Map(), { maxPooled: -1 },
    { timeoutMs: 86_400_001 }, { maxIdleMs: 86_400_001 }, { timeoutMs: '500' }]) {
    assert.throws(() => lk.GovernorClient.connect(daemon.socket, options), lk.InvalidRequestError, JSON.stringify(options))
  }
  // The same ranges as core's client options (C, Python, JVM): a day at most, no idle reuse at 0.
  for (const options of [{ timeoutMs: 86_400_000 }, { maxIdleMs: 0 }, { maxIdleMs: 86_400_000, maxPooled: 0 }, { timeoutMs: null }]) {
    lk.GovernorClient.connect(daemon.socket, options).close()
  }
  assert.throws(() => lk.GovernorClient.connect(42), lk.InvalidRequestError)
})

test('fallback applies only when no daemon listens (13.13)', () => {
  const missing = path.join(daemon.dir, 'nobody.sock')
  const off = lk.GovernorClient.connect(missing, { fallback: 'off', timeoutMs: 1000 })
  assert.throws(() => off.acquire(ASK), lk.LeaseError)
  assert.throws(() => off.metrics(), lk.LeaseError)
  const dev = lk.GovernorClient.connect(missing, { fallback: 'dev', timeoutMs: 1000 })
  const local = dev.acquire(ASK)
  assert.equal(local.granted, true)
  assert.equal(local.degradedMode, true)
  assert.match(local.leaseId, /^local-[0-9a-f]{32}$/)
  assert.equal(typeof dev.release({ leaseId: local.leaseId, actualCostCents: 1 }).classification, 'string')
  assert.equal(JSON.parse(dev.handle('GetMetrics', '{}')).success, false)
  // prod: a risky request is refused locally
  const prod = lk.GovernorClient.connect(missing, { timeoutMs: 1000 })
  const risky = prod.acquire({ ...ASK, maxOutputTokens: 4000, requestedCapabilities: ['write'] })
  assert.equal(risky.granted, false)
  assert.equal(risky.degradedMode, true)
  // with the daemon up, a client never falls back
  const live = lk.GovernorClient.connect(daemon.socket, { fallback: 'dev' })
  assert.equal(live.acquire(ASK).degradedMode, false)
})

test('examples/node/agent-loop.mjs runs against the daemon and its costs add up', async () => {
  const gov = lk.GovernorClient.connect(daemon.socket, { fallback: 'off' })
  const spendBefore = gov.metrics().spendTodayCents
  const activeBefore = gov.metrics().activeLeases
  const script = path.join(repoRoot, 'examples', 'node', 'agent-loop.mjs')
  assert.ok(fs.existsSync(script))
  const { stdout } = await promisify(execFile)(process.execPath, [script, daemon.socket], { encoding: 'utf8', timeout: 60_000 })
  const released = [...stdout.matchAll(/^RELEASE \S+ .*: actual (\d+)c/gm)].map((m) => Number(m[1]))
  assert.equal(released.length, 5, stdout)
  const m = gov.metrics()
  assert.equal(m.activeLeases, activeBefore, 'every lease released')
  assert.equal(m.spendTodayCents - spendBefore, released.reduce((a, b) => a + b, 0), stdout)
  assert.match(stdout, /^metrics: activeLeases=\d+ spendTodayCents=\d+/m)
  gov.close()
})

test('after SIGTERM the daemon is gone: calls throw, the socket is removed', async () => {
  const d = await Daemon.start()
  try {
    const gov = lk.GovernorClient.connect(d.socket, { fallback: 'off', timeoutMs: 2000 })
    assert.equal(gov.acquire(ASK).granted, true)
    const { code, signal } = await d.stop()
    assert.equal(code, 0, `exit ${code} ${signal}\n${d.logText()}`)
    assert.equal(fs.existsSync(d.socket), false)
    assert.throws(() => gov.metrics(), lk.LeaseError)
  } finally {
    await d.dispose()
  }
})
