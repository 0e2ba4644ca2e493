// lintLease: core's lease lint, exposed as a thin function.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import * as lk from '../index.mjs'
import { repoRoot } from './support.mjs'

test('lintLease flags the widening mistakes of examples/leases/lint-mistakes.json', () => {
  const lease = JSON.parse(fs.readFileSync(path.join(repoRoot, 'examples', 'leases', 'lint-mistakes.json'), 'utf8'))
  const warnings = lk.lintLease(lease)
  assert.ok(Array.isArray(warnings))
  const codes = new Set(warnings.map((w) => w.code))
  for (const code of ['host-open-suffix', 'host-label-prefix', 'scheme-wildcard', 'host-uppercase', 'url-fragment', 'non-canonical-path']) {
    assert.ok(codes.has(code), `${code} in ${JSON.stringify([...codes])}`)
  }
  const open = warnings.find((w) => w.code === 'host-open-suffix')
  assert.deepEqual(Object.keys(open).sort(), ['capability', 'code', 'hint', 'message', 'pattern'])
  assert.equal(open.capability, 'net.fetch')
  assert.equal(open.pattern, 'https://api.example.com**')
  assert.ok(open.hint.length > 0)
  // /workspace/** is fine: no warning names it
  assert.ok(!warnings.some((w) => w.pattern === '/workspace/**'))
  // the same answers for JSON text and a CompiledLease
  assert.deepEqual(lk.lintLease(JSON.stringify(lease)), warnings)
  assert.deepEqual(lk.lintLease(new lk.CompiledLease(lease)), warnings)
})

test('lintLease: a clean lease has no warnings; an invalid lease throws InvalidRequestError', () => {
  assert.deepEqual(lk.lintLease({ 'fs.read': ['/workspace/**'], 'net.fetch': ['https://api.example.com/v1/**'] }), [])
  assert.deepEqual(lk.lintLease({}), [])
  for (const bad of [{ 'fs.read': 'x' }, { 'not a cap': ['x'] }, '{"fs.read": [', 42, null]) {
    assert.throws(() => lk.lintLease(bad), lk.InvalidRequestError, JSON.stringify(bad))
  }
})
