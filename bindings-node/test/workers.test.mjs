// The addon loads and works in worker threads (each with its own napi env) as well as on
// the main thread, and errors keep their classes there.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { fileURLToPath } from 'node:url'

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'index.js')
const source = `
const lk = require(${JSON.stringify(entry)})
const { parentPort } = require('node:worker_threads')
const guard = new lk.LeaseGuard({ 'tool.call': ['web.*'], 'cost.budget': ['USD:1'] })
guard.recordMetric('cost.x', '0.25', 'USD')
let denied
try { guard.authorize('tool.call', 'web.search.advanced') } catch (e) { denied = e instanceof lk.PermissionDeniedError && e.code }
parentPort.postMessage({ ok: guard.authorize('tool.call', 'web.search'), remaining: guard.remaining().USD, denied })
`

test('three worker threads use the addon at once', async () => {
  const results = await Promise.all(
    [1, 2, 3].map(
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(source, { eval: true })
          worker.once('message', resolve)
          worker.once('error', reject)
        }),
    ),
  )
  for (const r of results) assert.deepEqual(r, { ok: 'web.search', remaining: '0.75', denied: 'PERMISSION_DENIED' })
})
