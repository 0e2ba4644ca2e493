// Without its platform package the published `leasekit` fails at load time with one error that
// names the package to install (the published package holds no binary of its own).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..')

test('a missing platform package is named in the load error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leasekit-loader-'))
  try {
    for (const f of ['index.js', 'load-native.js', 'native.js', 'governor.js', 'package.json']) {
      copyFileSync(join(pkgDir, f), join(dir, f))
    }
    const r = spawnSync(
      process.execPath,
      ['-e', "try { require('./index.js') } catch (e) { console.log(JSON.stringify({ code: e.code, pkg: e.platformPackage, message: e.message })); process.exit(3) }"],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } },
    )
    assert.equal(r.status, 3, r.stderr)
    const err = JSON.parse(r.stdout)
    assert.equal(err.code, 'LEASEKIT_NATIVE_MISSING')
    const expected = process.platform === 'linux' && process.arch === 'x64' ? 'leasekit-linux-x64-gnu' : err.pkg
    assert.equal(err.pkg, expected)
    assert.match(err.message, new RegExp(`"${expected}" is missing`))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
