// The checked-in index.d.ts type-checks real usage (test/types/usage.ts) with TypeScript
// in strict mode, resolving `leasekit` through the package's exports map.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

test('index.d.ts type-checks the documented usage (tsc --strict)', () => {
  const r = spawnSync(process.execPath, [
    tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', path.join(pkgDir, 'test', 'types', 'usage.ts'),
  ], { cwd: pkgDir, encoding: 'utf8' })
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`)
})
