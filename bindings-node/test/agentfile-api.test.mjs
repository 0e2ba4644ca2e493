// The Agentfile object API: core's Agentfile functions through `Agentfile.parse(..)`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'

const GOOD = `# syntax=agentrc.agentfile/v0.1
AGENT hello-local
CMD strands run --agent hello-local
TOOL utcp:file_read
URL https://api.example.com
MOUNT /data ro
AUDIT basic
POLICY
permit(
  principal == AgentRC::Agent::"hello-local",
  action in [AgentRC::Action::"tool.invoke"],
  resource == AgentRC::Tool::"file_read"
);
END
`
const AGENT = 'AgentRC::Agent::"hello-local"'
const INVOKE = 'AgentRC::Action::"tool.invoke"'

test('parse, lint, lease, lock and digest agree with checkAgentfile', () => {
  const af = lk.Agentfile.parse(GOOD)
  assert.ok(af instanceof lk.Agentfile)
  assert.equal(af.hasErrors(), false)
  assert.deepEqual(af.lint().filter((d) => d.severity === 'error'), [])
  const lease = af.lease()
  assert.deepEqual(lease, lk.checkAgentfile(GOOD).lease)
  assert.deepEqual(lease['tool.call'], ['utcp:file_read'])
  const lock = af.lock()
  assert.equal(typeof lock, 'object')
  const text = af.lockfileJson()
  assert.ok(text.endsWith('\n'))
  assert.deepEqual(JSON.parse(text), lock)
  assert.match(af.packageDigest(), /^sha256:[0-9a-f]{64}$/)
  assert.match(JSON.stringify(af), /"source_sha256":"sha256:/)
})

test('bad content is diagnostics, never a throw from parse', () => {
  const af = lk.Agentfile.parse('AGENT a\nAUDIT basic\nFOO bar\n')
  assert.equal(af.hasErrors(), true)
  const errors = af.lint().filter((d) => d.severity === 'error')
  assert.deepEqual(errors.map((d) => [d.code, d.line]), [['unknown-directive', 3]])
  assert.throws(() => af.lease(), lk.InvalidRequestError)
  assert.throws(() => af.lock(), lk.InvalidRequestError)
  assert.throws(() => lk.Agentfile.parse('AGENT a\n', { compat: true, extra: 1 }), lk.InvalidRequestError)
  assert.throws(() => lk.Agentfile.parse('AGENT \uD800\n'), lk.InvalidRequestError)
  assert.throws(() => new lk.Agentfile(), lk.InvalidRequestError)
})

test('inheritance: a child may only narrow its parent', () => {
  const parent = lk.Agentfile.parse('AGENT p\nAUDIT all\nTOOL utcp:a\nTOOL utcp:b\n')
  lk.Agentfile.parse('AGENT c\nAUDIT all\nTOOL utcp:a\n').checkInheritance(parent)
  const wide = lk.Agentfile.parse('AGENT c\nAUDIT all\nTOOL utcp:a\nTOOL utcp:z\n')
  assert.throws(() => wide.checkInheritance(parent), lk.LeaseSubsetViolationError)
  assert.throws(() => wide.checkInheritance({}), lk.LeaseError)
})

test('policy evaluation fails closed', () => {
  const af = lk.Agentfile.parse(GOOD)
  const allow = af.evaluatePolicy(AGENT, INVOKE, 'AgentRC::Tool::"file_read"')
  assert.equal(allow.allowed, true, JSON.stringify(allow))
  assert.equal(af.evaluatePolicy(AGENT, INVOKE, 'AgentRC::Tool::"rm"', {}).allowed, false)
  const broken = af.evaluatePolicy('not an entity', 'x', 'y')
  assert.equal(broken.allowed, false)
  assert.ok(broken.errors.length > 0)
  assert.equal(lk.Agentfile.parse('FOO bar\n').evaluatePolicy(AGENT, INVOKE, 'AgentRC::Tool::"file_read"').allowed, false)
})

test('secret values never appear', () => {
  const secret = 'ghp_supersecretvalue123'
  for (const text of [
    `AGENT a\nAUDIT basic\nCRED gh env:GH_TOKEN api.github.com ${secret}\n`,
    `AGENT a\nAUDIT basic\nCRED gh ${secret} host:api.github.com\n`,
    `AGENT a\nAUDIT basic\nCRED ${secret}\n`,
  ]) {
    const af = lk.Agentfile.parse(text)
    let all = JSON.stringify(af) + JSON.stringify(af.lint()) + af.packageDigest()
    all += JSON.stringify(af.evaluatePolicy(AGENT, INVOKE, 'AgentRC::Tool::"x"'))
    for (const call of [() => af.lease(), () => af.lock(), () => af.lockfileJson()]) {
      try {
        all += JSON.stringify(call())
      } catch (err) {
        all += err.message + JSON.stringify(err.details)
      }
    }
    assert.ok(!all.includes(secret), text)
  }
})
