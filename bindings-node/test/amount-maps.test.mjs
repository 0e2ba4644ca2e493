// Subset options as core's wire layer reads them (docs/semantics.md section 6, docs/decisions.md
// "Amount maps take strings only, in every language"): an amount map takes decimal strings
// only, so a JavaScript number (or bigint) in `parentRemaining` is refused, fail closed, while
// every value a guard reports as remaining is accepted back. Unknown option keys reach core,
// which refuses them, both from the API and from the conformance runner.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'
import { subsetOptions } from './support.mjs'

const parent = { 'tool.call': ['x'], 'cost.budget': ['USD:5'] }
const child = { 'tool.call': ['x'], 'cost.budget': ['USD:1'] }

test('parentRemaining: a JavaScript number or bigint is refused (strings only)', () => {
  for (const value of [1, 1.5, 4, -1, 0, 0.5, 4n, -1n]) {
    assert.throws(
      () => lk.isLeaseSubset(child, parent, { parentRemaining: { USD: value } }),
      (err) => err instanceof lk.InvalidRequestError,
      `${typeof value} ${String(value)}`,
    )
    assert.throws(
      () => lk.assertLeaseSubset(child, parent, { parentRemaining: { USD: value } }),
      lk.InvalidRequestError,
    )
  }
  // the same amounts as decimal strings are read
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { USD: '1.5' } }), true)
  assert.equal(lk.isLeaseSubset(child, parent, { parentRemaining: { USD: '0.5' } }), false)
})

test('parentRemaining: every value a guard reports as remaining is accepted back', () => {
  const budgets = { 'tool.call': ['x'], 'cost.budget': ['USD:5', 'EUR:0.000000001', 'GBP:999999999999999'] }
  const g = new lk.LeaseGuard(budgets)
  const spends = [
    ['USD', '7.25'], // overspend: negative
    ['EUR', '0.000000002'], // 9 fraction digits, negative
    ['GBP', '999999999999999'], // to zero
    ['GBP', '999999999999999'], // 15 integer digits below zero
    ['USD', '0.000000001'],
  ]
  for (const [currency, amount] of spends) {
    g.recordMetric('cost.llm', amount, currency)
    const remaining = g.remaining()
    // accepted, and it means what it says: nothing more fits under an exhausted counter
    assert.equal(lk.isLeaseSubset({ 'tool.call': ['x'] }, budgets, { parentRemaining: remaining }), true)
    assert.equal(lk.isLeaseSubset({ 'cost.budget': [`${currency}:0.000000001`] }, budgets, { parentRemaining: remaining }), false)
  }
  assert.deepEqual({ ...g.remaining() }, { USD: '-2.250000001', EUR: '-0.000000001', GBP: '-999999999999999' })
  // a delegated child's remaining, and a closed guard's, round-trip too
  const d = new lk.LeaseGuard(budgets).delegate({ 'cost.budget': ['USD:1'] })
  d.recordMetric('cost.llm', '3', 'USD')
  assert.equal(lk.isLeaseSubset({}, { 'cost.budget': ['USD:1'] }, { parentRemaining: d.remaining() }), true)
  d.close()
  assert.equal(lk.isLeaseSubset({}, { 'cost.budget': ['USD:1'] }, { parentRemaining: d.remaining() }), true)
})

test('subset options: unknown keys reach core and are refused', () => {
  for (const options of [
    { parentRemainder: { USD: '1' } },
    { remaining: { USD: '1' } },
    { options: {} },
    { strict: true },
    { extra: null },
    { childExpiresAt: '2030-01-01T00:00:00Z' },
    { parent_remaining: { USD: '1' } }, // snake_case is not Node's spelling
  ]) {
    assert.throws(() => lk.isLeaseSubset(child, parent, options), lk.InvalidRequestError, JSON.stringify(options))
  }
})

test('conformance runner: every subset input key but child/parent reaches the options, values unchanged', () => {
  const base = { child, parent }
  // unknown keys are passed on (respelled in camelCase), so core refuses them
  for (const extra of [
    { parent_remainder: { USD: '0.5' } },
    { remaining: { USD: '0.5' } },
    { options: {} },
    { strict: true },
    { child_expires_at: '2030-01-01T00:00:00Z' },
    { parent_remaining: { USD: '5' }, extra: null },
  ]) {
    const input = { ...base, ...extra }
    assert.throws(() => lk.isLeaseSubset(input.child, input.parent, subsetOptions(input)), lk.InvalidRequestError, JSON.stringify(extra))
  }
  // values unchanged: a number stays a number (and is refused), null stays null
  assert.deepEqual(subsetOptions({ ...base, parent_remaining: { USD: 1 } }), { parentRemaining: { USD: 1 } })
  assert.deepEqual(subsetOptions({ ...base, child_constraints: null }), { childConstraints: null })
  assert.deepEqual(subsetOptions(base), {})
})
