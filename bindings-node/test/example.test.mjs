// The example in examples/node/ runs and prints what it promises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { repoRoot } from './support.mjs'

test('examples/node/example.mjs runs', () => {
  const out = execFileSync(process.execPath, [path.join(repoRoot, 'examples', 'node', 'example.mjs')], { encoding: 'utf8' })
  assert.match(out, /authorized https:\/\/api\.example\.com\/v2/)
  assert.match(out, /denied PERMISSION_DENIED/)
  assert.match(out, /remaining USD 0\.7/)
  assert.match(out, /subset violation .*witness/)
})
