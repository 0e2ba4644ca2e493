// Error classes: one per ARCP code, parity with conformance/error-codes.json, conversion
// of native errors and of JavaScript type errors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import * as lk from '../index.mjs'
import { repoRoot } from './support.mjs'

const expected = JSON.parse(fs.readFileSync(path.join(repoRoot, 'conformance', 'error-codes.json'), 'utf8')).codes

test('error codes: the native core and the JS classes match conformance/error-codes.json', () => {
  assert.deepEqual(
    lk.errorCodes().map((c) => ({ code: c.code, retryable: c.retryable })),
    expected.map((c) => ({ code: c.code, retryable: c.retryable })),
  )
  assert.deepEqual(Object.keys(lk.errorClasses).sort(), expected.map((c) => c.code).sort())
  for (const { code, retryable } of expected) {
    const cls = lk.errorClasses[code]
    assert.equal(cls.code, code)
    const err = new cls('boom', { why: 'test' })
    assert.ok(err instanceof lk.LeaseError && err instanceof Error, code)
    assert.equal(err.code, code)
    assert.equal(err.retryable, retryable, code)
    assert.deepEqual(err.details, { why: 'test' })
    assert.equal(err.message, 'boom')
    assert.equal(err.name, cls.name)
    assert.deepEqual(err.toJSON(), { code, message: 'boom', retryable, details: { why: 'test' } })
    // each class is exported under its own name
    assert.equal(lk[cls.name], cls)
  }
  // distinct classes: instanceof tells them apart
  assert.equal(new lk.TimeoutError('x') instanceof lk.PermissionDeniedError, false)
})

test('native errors become the subclass of their code, with message and details', () => {
  let err
  try {
    lk.canonicalizeTarget('fs.read', 'relative')
  } catch (e) {
    err = e
  }
  assert.ok(err instanceof lk.InvalidRequestError)
  assert.equal(err.code, 'INVALID_REQUEST')
  assert.equal(err.retryable, false)
  assert.equal(typeof err.message, 'string')
  assert.ok(err.message.length > 0 && !err.message.startsWith('{'), err.message)
  assert.equal(typeof err.details, 'object')
})

test('arguments of the wrong JavaScript type are INVALID_REQUEST, never a crash', () => {
  const calls = [
    () => lk.canonicalizeTarget(1, '/a'),
    () => lk.canonicalizeTarget('fs.read'),
    () => lk.matchGlob('fs.read', null, '/a'),
    () => lk.isValidCapabilityName({}),
    () => lk.parseBudgetAmount(42),
    () => lk.parseAmount({}),
    () => lk.sumBudgetEntries('USD:1'),
    () => lk.sumBudgetEntries([1]),
    () => lk.validateLeaseShape(undefined),
    () => lk.validateLeaseShape(42),
    () => lk.isLeaseSubset({}, {}, 'options'),
    () => lk.validateLeaseConstraints('2030-01-01T00:00:00Z'),
    () => lk.validateLeaseConstraints({ expires_at: true }),
    () => lk.validateLeaseConstraints({ expires_at: '2030-01-01T00:00:00Z' }, {}),
    () => new lk.LeaseGuard({ 'tool.call': ['x'] }, null, { clock: 'not a function' }),
    () => new lk.LeaseGuard({ 'tool.call': ['x'] }, null, { graceMillis: -1 }),
    () => new lk.LeaseGuard({ 'tool.call': ['x'] }, null, { unknownOption: 1 }),
    () => new lk.LeaseGuard(),
  ]
  for (const call of calls) {
    assert.throws(call, (e) => e instanceof lk.InvalidRequestError && e.code === 'INVALID_REQUEST', call.toString())
  }
})
