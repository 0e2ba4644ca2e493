//! Seeds for the governor targets (`governor_frame`, `governor_dispatch`) from the `governor`
//! and `frame_decode` vectors, and for `c_abi` from the authorize vectors.

use leasekit::governor::wire::{Command, encode_frame};
use serde_json::{Value, json};

use crate::fields::{SEP, join, selector};
use crate::seeds::Seeds;

/// A `governor` vector: its steps as a `governor_dispatch` input (policy, then one
/// selector + payload per command) and each command as a request frame.
pub(crate) fn governor_vector(out: &mut Seeds, input: &Value) {
    let mut data = input["policy"].to_string().into_bytes();
    for step in input["steps"].as_array().into_iter().flatten() {
        let Some(name) = step["command"].as_str() else {
            continue;
        };
        let Some(i) = Command::ALL.iter().position(|c| c.as_str() == name) else {
            continue;
        };
        let payload = step["payload"].to_string();
        data.push(SEP);
        data.push(u8::try_from(i).unwrap_or(u8::MAX));
        data.extend_from_slice(payload.as_bytes());
        let envelope = json!({"protocolVersion": "0.1", "command": name, "payloadJson": payload});
        if let Ok(frame) = encode_frame(envelope.to_string().as_bytes()) {
            out.add("governor_frame", frame);
        }
    }
    out.add("governor_dispatch", data);
}

/// A `frame_decode` vector: its bytes.
pub(crate) fn frame_vector(out: &mut Seeds, input: &Value) {
    if let Some(bytes) = input["hex"].as_str().and_then(hex_bytes) {
        out.add("governor_frame", bytes.clone());
        out.add(
            "c_abi",
            join(&[b"", b"", b"", b"", b"", b"", b"", b"", b"", &bytes]),
        );
    }
}

/// An authorize step as a `c_abi` input.
pub(crate) fn c_abi_authorize(
    out: &mut Seeds,
    lease: &str,
    constraints: &Value,
    cap: &str,
    t: &str,
) {
    if selector(cap).is_none() {
        return;
    }
    let constraints = if constraints.is_object() {
        constraints.to_string()
    } else {
        String::new()
    };
    out.add(
        "c_abi",
        join(&[
            lease.as_bytes(),
            constraints.as_bytes(),
            cap.as_bytes(),
            t.as_bytes(),
            b"USD",
            b"0.5",
            b"USD:1.25",
            b"2026-01-02T00:00:00Z",
            b"AGENT a\n",
            b"",
        ]),
    );
}

fn hex_bytes(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect()
}
