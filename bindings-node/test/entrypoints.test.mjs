// The package entry points: CommonJS and ESM expose the same objects, and index.d.ts
// declares every export.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import * as esm from '../index.mjs'

const require = createRequire(import.meta.url)
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

test('CommonJS and ESM export the same objects', () => {
  const cjs = require('../index.js')
  const esmNames = Object.keys(esm).filter((k) => k !== 'default').sort()
  assert.deepEqual(esmNames, Object.keys(cjs).sort())
  for (const name of esmNames) assert.equal(esm[name], cjs[name], name)
  assert.equal(esm.default, cjs)
})

test('the package resolves by name through its exports map', async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
  assert.equal(pkg.exports['.'].require, './index.js')
  assert.equal(pkg.exports['.'].import, './index.mjs')
  assert.equal(pkg.exports['.'].types, './index.d.ts')
  const selfRequire = createRequire(path.join(pkgDir, 'package.json'))
  assert.equal(selfRequire.resolve('leasekit'), path.join(pkgDir, 'index.js'))
})

test('index.d.ts declares every runtime export, with doc comments', () => {
  const dts = fs.readFileSync(path.join(pkgDir, 'index.d.ts'), 'utf8')
  const cjs = require('../index.js')
  for (const name of Object.keys(cjs)) {
    const declared = new RegExp(`export declare (function|class|const) ${name}\\b`).test(dts)
    assert.ok(declared, `${name} is not declared in index.d.ts`)
  }
  // And the converse: nothing is declared that the entry point does not export (a TypeScript
  // import of it would type-check and be undefined at run time).
  const exported = new Set(Object.keys(cjs))
  for (const m of dts.matchAll(/^export declare (?:function|class|const) (\w+)/gm)) {
    assert.ok(exported.has(m[1]), `index.d.ts declares ${m[1]}, which index.js does not export`)
  }
  for (const name of ['matchPattern', 'matchGlob', 'canonicalizeTarget', 'isLeaseSubset', 'LeaseGuard']) {
    const at = dts.search(new RegExp(`export declare (function|class|const) ${name}\\b`))
    assert.ok(dts.slice(0, at).trimEnd().endsWith('*/'), `${name} has no doc comment`)
  }
})
