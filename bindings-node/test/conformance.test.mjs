// The shared conformance vectors (conformance/vectors/*.json, or every *.json of
// $LEASEKIT_VECTORS sorted by name) run through the public `leasekit` API, one test per
// vector. How each op runs is fixed by conformance/README.md.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import * as lk from '../index.mjs'
import { normDecimal, repoRoot, sameDecimalMap, subsetOptions } from './support.mjs'
import { governorMismatch, opFrameDecode, opGovernor } from './governor-ops.mjs'

const dir = process.env.LEASEKIT_VECTORS || path.join(repoRoot, 'conformance', 'vectors')

/** Runs `fn`; a LeaseError becomes `{error: code}`, anything else is a crash of the runner. */
function outcome(fn) {
  try {
    return { value: fn() }
  } catch (err) {
    if (err instanceof lk.LeaseError) return { error: err.code, message: err.message }
    throw err
  }
}

/** Whether `expect` is an error expectation `{"error": CODE}`. */
function isErrorExpect(expect) {
  return expect !== null && typeof expect === 'object' && !Array.isArray(expect) && typeof expect.error === 'string'
}

/** Compares two leases: same capabilities, pattern lists as sets, cost.budget as sums. */
function assertSameLease(actual, expected) {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), 'capabilities')
  for (const cap of Object.keys(expected)) {
    if (cap === 'cost.budget') {
      const a = { ...lk.sumBudgetEntries(actual[cap]) }
      const e = { ...lk.sumBudgetEntries(expected[cap]) }
      assert.ok(sameDecimalMap(a, e), `cost.budget ${JSON.stringify(a)} != ${JSON.stringify(e)}`)
    } else {
      assert.deepEqual([...new Set(actual[cap])].sort(), [...new Set(expected[cap])].sort(), cap)
    }
  }
}

/** One `authorize` step -> "ok", {error} or {remaining, emitted}. */
function runStep(guard, step, clock) {
  if (step.at !== undefined) clock.now = step.at
  if (step.authorize !== undefined) {
    const r = outcome(() => guard.authorize(step.authorize[0], step.authorize[1]))
    return r.error ? { error: r.error } : 'ok'
  }
  if (step.model !== undefined) {
    const r = outcome(() => guard.authorizeModel(step.model))
    return r.error ? { error: r.error } : 'ok'
  }
  if (step.reserve !== undefined) {
    const r = outcome(() => guard.reserve(step.reserve[0], step.reserve[1]))
    return r.error ? { error: r.error } : 'ok'
  }
  if (step.metric !== undefined) {
    const { name, value, unit } = step.metric
    const r = outcome(() => guard.recordMetric(name, value, unit))
    if (r.error) return { error: r.error }
    return { remaining: { ...guard.remaining() }, emitted: r.value.map((m) => ({ ...m })) }
  }
  throw new Error(`unknown authorize step ${JSON.stringify(step)}`)
}

/** Compares one step's result with its expectation. */
function assertStep(actual, expected, i) {
  if (expected === 'ok' || isErrorExpect(expected)) {
    assert.deepEqual(actual, expected, `step ${i}`)
    return
  }
  assert.ok(actual && actual.remaining, `step ${i}: expected a metric result, got ${JSON.stringify(actual)}`)
  assert.ok(sameDecimalMap(actual.remaining, expected.remaining), `step ${i}: remaining ${JSON.stringify(actual.remaining)} != ${JSON.stringify(expected.remaining)}`)
  const emitted = expected.emitted || []
  assert.equal(actual.emitted.length, emitted.length, `step ${i}: emitted ${JSON.stringify(actual.emitted)}`)
  emitted.forEach((m, j) => {
    assert.equal(actual.emitted[j].name, m.name, `step ${i} metric ${j} name`)
    assert.equal(actual.emitted[j].unit, m.unit, `step ${i} metric ${j} unit`)
    assert.equal(normDecimal(actual.emitted[j].value), normDecimal(m.value), `step ${i} metric ${j} value`)
  })
}

/** The ops: each returns the actual result (errors propagate as LeaseError). */
const OPS = {
  capability_name: (i) => ({ valid: lk.isValidCapabilityName(i.name), reserved: lk.isReservedCapabilityName(i.name) }),
  validate_lease: (i) => (lk.normalizeLease(i.lease), 'ok'),
  canonicalize: (i) => lk.canonicalizeTarget(i.capability, i.target),
  match: (i) => lk.matchGlob(i.capability, i.pattern, i.target),
  subset: (i) => lk.isLeaseSubset(i.child, i.parent, subsetOptions(i)),
  budget_parse: (i) => ({ ...lk.parseBudgetAmount(i.entry) }),
  budget_sum: (i) => ({ ...lk.sumBudgetEntries(i.entries) }),
  expires_at: (i) => (lk.validateLeaseConstraints({ expires_at: i.value }, lk.parseExpiresAt(i.now)), 'ok'),
  authorize: (i) => {
    const clock = { now: new Date() }
    const guard = new lk.LeaseGuard(i.lease, i.constraints, { clock: () => clock.now })
    return { guard, clock }
  },
  narrow: (i) => lk.narrowLease(i.requested, i.ceiling).lease,
  governor: opGovernor,
  frame_decode: opFrameDecode,
  agentfile: (i) => {
    const report = lk.checkAgentfile(i.text, { compat: i.compat === true })
    const errors = [...new Set(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code))].sort()
    return { ok: report.ok, errors, lease: report.lease }
  },
}

/** Compares an op's (successful) result with a non-error expectation. */
function assertResult(op, input, actual, expect) {
  switch (op) {
    case 'budget_parse':
      assert.equal(actual.currency, expect.currency)
      assert.equal(normDecimal(actual.amount), normDecimal(expect.amount))
      return
    case 'budget_sum':
      assert.ok(sameDecimalMap(actual, expect), `${JSON.stringify(actual)} != ${JSON.stringify(expect)}`)
      return
    case 'narrow':
      assertSameLease(actual, expect)
      return
    case 'agentfile':
      // only the keys present in `expect` are compared
      if ('ok' in expect) assert.equal(actual.ok, expect.ok, 'ok')
      if ('errors' in expect) assert.deepEqual(actual.errors, [...new Set(expect.errors)].sort(), 'errors')
      if ('lease' in expect) {
        if (expect.lease === null) assert.equal(actual.lease, null, 'lease')
        else {
          assert.ok(actual.lease, 'a derived lease')
          assertSameLease(actual.lease, expect.lease)
        }
      }
      return
    case 'governor': {
      const at = governorMismatch(actual, expect)
      assert.equal(at, -1, `step ${at}: got ${JSON.stringify(actual[at])}, expected ${JSON.stringify(expect[at])}`)
      return
    }
    case 'authorize': {
      assert.ok(Array.isArray(expect), 'authorize expects a list of step results')
      assert.equal(input.steps.length, expect.length, 'one expectation per step')
      input.steps.forEach((step, i) => assertStep(runStep(actual.guard, step, actual.clock), expect[i], i))
      return
    }
    default:
      assert.deepEqual(actual, expect)
  }
}

function runVector(v) {
  const op = OPS[v.op]
  if (!op) assert.fail(`unknown op ${JSON.stringify(v.op)}`)
  const r = outcome(() => op(v.input))
  if (isErrorExpect(v.expect)) {
    assert.equal(r.error, v.expect.error, `expected error ${v.expect.error}, got ${r.error ? r.error : JSON.stringify(r.value)}`)
    return
  }
  assert.equal(r.error, undefined, `unexpected error ${r.error}: ${r.message}`)
  assertResult(v.op, v.input, r.value, v.expect)
}

const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []
if (files.length === 0) {
  test(`conformance vectors present in ${dir}`, () => assert.fail(`no *.json vector files in ${dir}`))
}
for (const file of files) {
  let vectors
  try {
    vectors = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')).vectors
  } catch (err) {
    test(`${file}: readable`, () => assert.fail(`${file}: ${err.message}`))
    continue
  }
  if (!Array.isArray(vectors)) {
    test(`${file}: has a "vectors" list`, () => assert.fail(`${file} has no "vectors" array`))
    continue
  }
  for (const v of vectors) {
    test(`${file} ${v.id} (${v.op})`, () => runVector(v))
  }
}
