// The authorize fast path (src/fast/mod.rs, src/fast/registry.rs): one native function for every
// guard, reached by a numeric key. Keys that name no live guard are refused, never followed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import * as lk from '../index.mjs'

const native = createRequire(import.meta.url)('../native.js')

/** A full garbage collection, then a turn of the event loop for deferred finalizers. */
async function collect() {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc')
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The key index.js keeps on a guard (after its first authorize). */
function keyOf(guard) {
  const [symbol] = Object.getOwnPropertySymbols(guard)
  return guard[symbol]
}

test('a key that names no live guard is refused, whatever the number', () => {
  const authorize = native.__fastAuthorize()
  const guard = new lk.LeaseGuard({ 'fs.read': ['/data/**'] })
  assert.equal(guard.authorize('fs.read', '/data/x'), '/data/x')
  const key = keyOf(guard)
  assert.equal(typeof key, 'number')
  // The guard's own key works through the raw function too (index 0 is fs.read).
  assert.equal(authorize(key, '/data/y'), '/data/y')
  for (const bad of [-1, -8, 2 ** 50 * 8, 2 ** 53, NaN, Infinity, 1.5, key + 8 * 4096, 'x', {}, null, undefined]) {
    assert.throws(() => authorize(bad, '/data/x'), (e) => e.code === 'InvalidArg', String(bad))
  }
  // Capability 7 means "the name follows": a missing or non-string name is refused.
  assert.throws(() => authorize(key + 7, '/data/x'), (e) => e.code === 'InvalidArg')
  assert.throws(() => authorize(key + 7, '/data/x', 42), (e) => e.code === 'InvalidArg')
  assert.throws(() => authorize(key + 7, '/data/x', 'x-vendor.a.b'), (e) => e.code === 'PERMISSION_DENIED')
})

test('many guards keep their own leases through the one function', () => {
  const guards = Array.from({ length: 200 }, (_, i) => new lk.LeaseGuard({ 'fs.read': [`/t${i}/**`] }))
  for (let round = 0; round < 3; round++) {
    guards.forEach((g, i) => {
      assert.equal(g.authorize('fs.read', `/t${i}/x/../y`), `/t${i}/y`)
      assert.throws(() => g.authorize('fs.read', `/t${(i + 1) % 200}/y`), lk.PermissionDeniedError)
    })
  }
  assert.equal(new Set(guards.map(keyOf)).size, guards.length)
})

test('a collected guard frees its key for good: the old key finds nothing', async () => {
  const authorize = native.__fastAuthorize()
  let stale
  ;(() => {
    const guard = new lk.LeaseGuard({ 'fs.read': ['/gone/**'] })
    guard.authorize('fs.read', '/gone/x')
    stale = keyOf(guard)
  })()
  await collect()
  assert.throws(() => authorize(stale, '/gone/x'), (e) => e.code === 'InvalidArg')
  // New guards (reusing the freed slot) answer for their own lease only.
  const fresh = Array.from({ length: 50 }, () => new lk.LeaseGuard({ 'fs.read': ['/new/**'] }))
  for (const g of fresh) assert.equal(g.authorize('fs.read', '/new/x'), '/new/x')
  assert.throws(() => authorize(stale, '/new/x'), (e) => e.code === 'InvalidArg')
  assert.ok(!fresh.map(keyOf).includes(stale))
})

test('a clock may create and drop guards while an authorize is running', async () => {
  let made = 0
  const guard = new lk.LeaseGuard({ 'tool.call': ['x'] }, null, {
    clock: () => {
      // Registering new guards while the outer call holds its guard.
      for (let i = 0; i < 100; i++) new lk.LeaseGuard({ 'tool.call': ['y'] }).authorize('tool.call', 'y')
      made += 100
      return new Date('2026-01-01T00:00:00Z')
    },
  })
  for (let i = 0; i < 5; i++) assert.equal(guard.authorize('tool.call', 'x'), 'x')
  await collect()
  assert.equal(guard.authorize('tool.call', 'x'), 'x')
  assert.ok(made >= 600)
})

test('authorizeModel and vendor names take the same function', () => {
  const guard = new lk.LeaseGuard({ 'model.use': ['gpt-*'], 'x-vendor.acme.run': ['job:*'] })
  assert.equal(guard.authorizeModel('gpt-4'), 'gpt-4')
  assert.throws(() => guard.authorizeModel('claude'), lk.PermissionDeniedError)
  assert.equal(guard.authorize('x-vendor.acme.run', 'job:1'), 'job:1')
  assert.equal(guard.authorize('model.use', 'gpt-5'), 'gpt-5')
  assert.throws(() => guard.authorize('x-vendor.acme.other', 'job:1'), lk.PermissionDeniedError)
})
