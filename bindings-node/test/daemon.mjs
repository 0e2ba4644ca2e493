// A real `leasekit serve` process for the client tests (not a test file): started on a fresh
// temp directory (socket, state, log), waited for until its socket answers, stopped with
// SIGTERM. The binary is $LEASEKIT_BIN, else target/debug/leasekit (scripts/test-node.sh
// builds it with `cargo build -p leasekit-cli`). Nothing is mocked.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as lk from '../index.mjs'
import { repoRoot } from './support.mjs'

/** The `leasekit` binary the tests run. */
export function leasekitBin() {
  if (process.env.LEASEKIT_BIN) return process.env.LEASEKIT_BIN
  const target = process.env.CARGO_TARGET_DIR || path.join(repoRoot, 'target')
  return path.join(target, 'debug', 'leasekit')
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A running daemon: `socket`, `dir`, `stop()`. */
export class Daemon {
  /** Starts `leasekit serve --store memory` (with `policy`, a policy object, when given, plus
   * `args`) and waits until it answers. */
  static async start({ policy = null, args = [] } = {}) {
    const bin = leasekitBin()
    if (!fs.existsSync(bin)) {
      throw new Error(`no leasekit binary at ${bin}: run \`cargo build -p leasekit-cli\` or set LEASEKIT_BIN`)
    }
    // Short paths: a Unix socket path must fit in 108 bytes.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lk-node-'))
    const d = new Daemon(dir)
    if (policy) {
      fs.writeFileSync(path.join(dir, 'policy.json'), JSON.stringify(policy))
      args = ['--policy', path.join(dir, 'policy.json'), ...args]
    }
    const log = fs.openSync(d.log, 'w')
    d.child = spawn(bin, ['serve', '--socket', d.socket, '--state', path.join(dir, 'state'), '--store', 'memory', ...args], {
      stdio: ['ignore', log, log],
    })
    fs.closeSync(log)
    d.exited = new Promise((resolve) => d.child.once('exit', (code, signal) => resolve({ code, signal })))
    await d.waitReady()
    return d
  }

  constructor(dir) {
    this.dir = dir
    this.socket = path.join(dir, 's.sock')
    this.log = path.join(dir, 'serve.log')
    this.child = null
    this.exited = null
  }

  /** Waits (at most 20 s) until `GetStatus` answers over the socket. */
  async waitReady() {
    const probe = lk.GovernorClient.connect(this.socket, { fallback: 'off', timeoutMs: 2000 })
    try {
      for (let i = 0; i < 400; i++) {
        if (this.child.exitCode !== null) throw new Error(`leasekit serve exited early:\n${this.logText()}`)
        if (fs.existsSync(this.socket)) {
          try {
            probe.status()
            return
          } catch {
            // not accepting yet
          }
        }
        await sleep(50)
      }
      throw new Error(`leasekit serve did not answer on ${this.socket} within 20 s:\n${this.logText()}`)
    } finally {
      probe.close()
    }
  }

  /** The daemon's log. */
  logText() {
    try {
      return fs.readFileSync(this.log, 'utf8')
    } catch {
      return ''
    }
  }

  /** SIGTERM, then waits (at most 10 s, else SIGKILL) for the exit; answers `{code, signal}`. */
  async stop() {
    if (!this.child) return { code: null, signal: null }
    this.child.kill('SIGTERM')
    let timer
    const killed = new Promise((resolve) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL')
        resolve(null)
      }, 10_000)
    })
    const first = await Promise.race([this.exited, killed])
    clearTimeout(timer)
    const result = first ?? (await this.exited)
    this.child = null
    return result
  }

  /** Stops the daemon (if running) and removes its directory. */
  async dispose() {
    await this.stop()
    fs.rmSync(this.dir, { recursive: true, force: true })
  }
}
