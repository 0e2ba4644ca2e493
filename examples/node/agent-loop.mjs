// An agent loop governed by a `leasekit serve` daemon: before every (simulated) model call
// the agent acquires a lease with its estimate, and after the call it releases the lease
// with what the call actually cost, so the daemon's budget and pools always reflect reality.
// A denial is honoured (wait `retryAfterMs`, or skip the step). The `...Async` forms keep the
// event loop free while the daemon answers (the plain `acquire`/`release` block instead).
//
// Run a daemon, then the loop:
//   leasekit serve --socket /tmp/lk.sock --state /tmp/lk-state &
//   node examples/node/agent-loop.mjs /tmp/lk.sock
// (after `npm ci && npm run build` in bindings-node/; in your own project the import is
// `from 'leasekit'`). The socket defaults to $LEASEKIT_SOCKET, else the daemon's default.
import { GovernorClient, LeaseError } from '../../bindings-node/index.mjs'

const TASKS = ['summarize the issue', 'draft a reply', 'review the diff', 'write release notes', 'triage the backlog']
const ACTOR = { orgId: 'acme', workspaceId: 'docs-bot', actorId: 'agent-7', modelId: 'gpt-4o-mini', providerId: 'openai' }

/** A simulated model call: deterministic "usage" derived from the prompt, no network. */
function callModel(prompt, maxOutputTokens) {
  const promptTokens = 20 + prompt.length
  const outputTokens = Math.min(maxOutputTokens, 10 + 3 * prompt.length)
  const costCents = 1 + Math.floor((promptTokens + outputTokens) / 40)
  return { text: `(${outputTokens} tokens about "${prompt}")`, promptTokens, outputTokens, costCents }
}

/** Sleeps `ms` milliseconds. */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function main() {
  const socket = process.argv[2] ?? process.env.LEASEKIT_SOCKET ?? null
  // fallback 'off': this example wants the daemon's answers, never a local fallback grant.
  const gov = GovernorClient.connect(socket, { timeoutMs: 5000, fallback: 'off' })
  let spent = 0
  // Idempotency keys name one attempt of one step of this run: a retried call with the same
  // key gets the same answer instead of a second lease.
  const run = `run-${process.pid}-${Date.now()}`
  try {
    for (const [i, task] of TASKS.entries()) {
      const estimate = { estimatedPromptTokens: 20 + task.length, maxOutputTokens: 120, estimatedCostCents: 5 }
      let grant = await gov.acquireAsync({ ...ACTOR, ...estimate, idempotencyKey: `${run}-task-${i}` })
      // At most two retries after a denial that says when to retry.
      for (let attempt = 0; !grant.granted && grant.retryAfterMs != null && attempt < 2; attempt++) {
        await sleep(Math.min(grant.retryAfterMs, 1000))
        grant = await gov.acquireAsync({ ...ACTOR, ...estimate, idempotencyKey: `${run}-task-${i}-retry-${attempt}` })
      }
      if (!grant.granted) {
        console.log(`DENIED  ${task}: ${grant.deniedReason} (${grant.recommendation})`)
        continue
      }
      const started = Date.now()
      let usage
      let outcome = 'success'
      try {
        usage = callModel(task, grant.constraints?.maxOutputTokensOverride || estimate.maxOutputTokens)
      } catch (err) {
        outcome = 'unknownError'
        usage = { promptTokens: 0, outputTokens: 0, costCents: 0 }
        console.log(`FAILED  ${task}: ${err.message}`)
      } finally {
        // Always release, with the actual usage, so the reservation is settled now rather
        // than when the lease expires.
        const receipt = await gov.releaseAsync({
          leaseId: grant.leaseId,
          actualPromptTokens: usage.promptTokens,
          actualOutputTokens: usage.outputTokens,
          actualCostCents: usage.costCents,
          latencyMs: Date.now() - started,
          outcome,
          idempotencyKey: `${run}-release-${i}`,
        })
        spent += usage.costCents
        console.log(`RELEASE ${grant.leaseId} ${task}: actual ${usage.costCents}c (estimate ${estimate.estimatedCostCents}c) -> ${receipt.classification}`)
      }
    }
    const m = await gov.metricsAsync()
    console.log(`metrics: activeLeases=${m.activeLeases} spendTodayCents=${m.spendTodayCents} (this run ${spent}c)`)
  } catch (err) {
    if (err instanceof LeaseError) {
      console.error(`governor error ${err.code}: ${err.message}`)
      process.exitCode = 1
      return
    }
    throw err
  } finally {
    gov.close()
  }
}

await main()
