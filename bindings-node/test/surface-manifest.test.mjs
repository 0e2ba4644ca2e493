// conformance/surface.json (the surface manifest): every Node export path it lists exists in
// the package, and every not_exposed entry gives a reason.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as lk from '../index.mjs'

const manifest = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../conformance/surface.json', import.meta.url)), 'utf8'),
)

function names(value) {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value
  assert.ok(value && typeof value.not_exposed === 'string' && value.not_exposed.trim(), JSON.stringify(value))
  return []
}

function resolve(path) {
  let obj = lk
  for (const part of path.split('.')) {
    if (obj === undefined || obj === null || !(part in Object(obj))) return undefined
    obj = obj[part]
  }
  return obj
}

test('every Node name in the surface manifest exists', () => {
  const missing = []
  let checked = 0
  for (const entry of manifest.entries) {
    for (const name of names(entry.node ?? { not_exposed: 'absent' })) {
      checked++
      if (resolve(name) === undefined) missing.push(`${entry.concept}: ${name}`)
    }
  }
  assert.ok(checked > 50, String(checked))
  assert.deepEqual(missing, [])
})

test('a wrong name is caught', () => {
  assert.equal(resolve('Governor.prototype.noSuchMethod'), undefined)
})
