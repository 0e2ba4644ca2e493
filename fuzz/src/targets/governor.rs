//! The governor's inputs an attacker controls (SEMANTICS 13.1): a frame on the daemon's socket
//! and a command with its payload.
//!
//! - `governor_frame`: any bytes through the 13.1 frame decoder, then through a governor's
//!   `handle_frame`. The decoder never reads past its input, re-encodes what it decoded to the
//!   same bytes, and every answer is a well-formed frame holding a response envelope.
//! - `governor_dispatch`: a bounded sequence of commands run on two governors in lock-step,
//!   one through the strict typed call (`call_json`, what every binding uses) and one through
//!   the lenient wire dispatcher (`handle`, what the daemon uses). Whenever the strict call
//!   accepts a payload, the wire form answers the same payload (ids and clock are
//!   deterministic); a strict refusal is `INVALID_REQUEST`; at the end both audit chains verify
//!   and no pool counts more than its capacity.

use leasekit::governor::open::EmbeddedGovernor;
use leasekit::governor::wire::{Command, ResponseEnvelope, decode_frame, encode_frame};
use serde_json::Value;

use crate::fields::SEP;

/// At most this many commands per input (every load loop is bounded).
const MAX_STEPS: usize = 24;

/// The manual clock's start for every fuzz governor.
const START: &str = "2026-03-01T12:00:00Z";

fn open(policy: &str) -> Option<EmbeddedGovernor> {
    let options = format!(r#"{{"manualClock":"{START}","ids":"deterministic"}}"#);
    let r = EmbeddedGovernor::open("memory", policy, &options);
    super::invalid(&r, "open");
    r.ok()
}

/// Asserts that `answer` is a frame holding a response envelope (and nothing after it).
fn check_answer_frame(answer: &[u8]) {
    let (payload, used) = decode_frame(answer).expect("an answer is a well-formed frame");
    assert_eq!(used, answer.len(), "one frame per answer");
    let env: ResponseEnvelope =
        serde_json::from_slice(payload).expect("an answer frame holds a response envelope");
    assert_eq!(env.protocol_version, "0.1");
    assert!(env.success == env.error.is_empty(), "{env:?}");
    if env.success {
        assert!(serde_json::from_str::<Value>(&env.payload_json).is_ok());
    }
}

/// `governor_frame`: decoder bounds and round trip, and the dispatcher's answer frame.
pub fn governor_frame(data: &[u8]) {
    match decode_frame(data) {
        Ok((payload, used)) => {
            assert!(used <= data.len() && used == payload.len() + 4);
            assert_eq!(encode_frame(payload).expect("re-encodes"), &data[..used]);
        }
        Err(e) => assert_eq!(e.code(), leasekit::ErrorCode::InvalidRequest, "{e}"),
    }
    if let Some(gov) = open("") {
        let answer = gov.governor().handle_frame(data);
        check_answer_frame(&answer);
        // A second frame on the same governor (a connection carries many).
        check_answer_frame(&gov.governor().handle_frame(data));
        assert!(gov.governor().verify_audit().expect("verifies").ok);
    }
}

/// One step of `governor_dispatch`: a command (or a clock advance) and its payload.
enum Step<'a> {
    Call(Command, &'a str),
    Advance(u64),
}

fn steps(data: &[u8]) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in data.split(|&b| b == SEP).take(MAX_STEPS) {
        let Some((&sel, rest)) = part.split_first() else {
            continue;
        };
        let i = usize::from(sel);
        if i < Command::ALL.len() {
            if let Ok(payload) = std::str::from_utf8(rest) {
                out.push(Step::Call(Command::ALL[i], payload));
            }
        } else {
            // Up to about 18 minutes, past every default lease and approval TTL.
            let ms = rest
                .iter()
                .take(3)
                .fold(0u64, |a, &b| (a << 8) | u64::from(b));
            out.push(Step::Advance(ms.min(1_100_000)));
        }
    }
    out
}

/// `governor_dispatch`: the first field is the policy JSON (blank: the default policy), the
/// rest are steps (selector byte + payload).
pub fn governor_dispatch(data: &[u8]) {
    let (policy, rest) = match data.iter().position(|&b| b == SEP) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(policy) = std::str::from_utf8(policy) else {
        return;
    };
    let (Some(strict), Some(wire)) = (open(policy), open(policy)) else {
        return;
    };
    // Lock-step until the strict call refuses what the wire form accepts (their states
    // may differ from then on).
    let mut same = true;
    for step in steps(rest) {
        match step {
            Step::Advance(ms) => {
                strict.advance_millis(ms).expect("manual clock");
                wire.advance_millis(ms).expect("manual clock");
            }
            Step::Call(cmd, payload) => {
                let typed = strict.governor().call_json(cmd.as_str(), payload);
                let env: ResponseEnvelope =
                    serde_json::from_str(&wire.governor().handle(cmd.as_str(), payload))
                        .expect("handle answers an envelope");
                assert!(env.success == env.error.is_empty(), "{env:?}");
                match typed {
                    Ok(answer) if same => {
                        assert!(env.success, "{cmd:?} {payload:?}: strict ok, wire {env:?}");
                        let a: Value = serde_json::from_str(&answer).expect("JSON answer");
                        let b: Value = serde_json::from_str(&env.payload_json).expect("JSON");
                        assert_eq!(a, b, "{cmd:?} {payload:?}");
                    }
                    Ok(_) => {}
                    Err(e) => {
                        assert!(
                            matches!(
                                e.code(),
                                leasekit::ErrorCode::InvalidRequest
                                    | leasekit::ErrorCode::PermissionDenied
                            ),
                            "{cmd:?} {payload:?}: {e}"
                        );
                        same = same && !env.success;
                    }
                }
            }
        }
    }
    let mut seen = Vec::new();
    for gov in [&strict, &wire] {
        let v = gov.governor().verify_audit().expect("verifies");
        assert!(v.ok, "{v:?}");
        let status: Value =
            serde_json::from_str(&gov.governor().call_json("GetStatus", "{}").expect("status"))
                .expect("JSON");
        let metrics: Value = serde_json::from_str(
            &gov.governor()
                .call_json("GetMetrics", "{}")
                .expect("metrics"),
        )
        .expect("JSON");
        // Concurrency capacity is never exceeded; the memory store never fails an audit write.
        let compute = metrics["computePoolUtilization"].as_f64().unwrap_or(0.0);
        assert!(compute <= 1.0 + 1e-9, "{metrics}");
        assert_eq!(metrics["failedAuditWrites"], 0, "{metrics}");
        assert_eq!(
            status["activeLeases"], metrics["activeLeases"],
            "{status} {metrics}"
        );
        seen.push((
            status["activeLeases"].clone(),
            status["auditRecords"].clone(),
        ));
    }
    if same {
        assert_eq!(seen[0], seen[1], "strict and wire governors diverged");
    }
}
