//! Deterministic simulation of the governor (docs/reliability.md, "Deterministic
//! simulation"): a seed gives a command list ([`cmds`]); [`world`] runs it on one governor
//! with faults, crashes and clock steps, checking the invariants after every step; a failing
//! list is shrunk to the shortest one that still fails ([`shrink`]).

pub mod cmds;
pub mod world;

use cmds::Cmd;
use world::{StoreKind, World};

/// A failed run: the step (1-based) and what broke.
#[derive(Debug, Clone)]
pub struct Failure {
    pub step: usize,
    pub message: String,
}

/// Runs `cmds` on a fresh governor of `kind`; `Err` at the first broken invariant.
pub fn replay(kind: StoreKind, seed: u64, cmds: &[Cmd]) -> Result<(), Failure> {
    let mut w =
        World::new(kind, seed, database(kind)).map_err(|message| Failure { step: 0, message })?;
    for c in cmds {
        w.run(c).map_err(|message| Failure {
            step: w.step,
            message,
        })?;
    }
    w.finish().map_err(|message| Failure {
        step: cmds.len() + 1,
        message,
    })
}

/// A fresh database of the shared throwaway PostgreSQL server for a fleet run.
fn database(kind: StoreKind) -> Option<String> {
    #[cfg(feature = "postgres")]
    if kind == StoreKind::Postgres {
        return Some(crate::pg::TempPostgres::shared().fresh_db("sim"));
    }
    let _ = kind;
    None
}

/// The kind of a failure, for the shrinker: the message up to its first digit or quote (the
/// ids and numbers in it change as commands are dropped).
fn class(message: &str) -> String {
    message
        .split(|c: char| c.is_ascii_digit() || c == '"' || c == '{')
        .next()
        .unwrap_or("")
        .to_string()
}

/// The shortest command list found that fails the same way as `cmds` (delta debugging over
/// chunks, then single commands, until nothing more can be dropped), and its failure.
/// At most `budget` replays.
pub fn shrink(
    kind: StoreKind,
    seed: u64,
    cmds: &[Cmd],
    failure: &Failure,
    budget: usize,
) -> (Vec<Cmd>, Failure) {
    let want = class(&failure.message);
    let mut best: Vec<Cmd> = cmds[..failure.step.min(cmds.len())].to_vec();
    let mut best_failure = failure.clone();
    let mut runs = 0;
    let fails = |list: &[Cmd], runs: &mut usize| -> Option<Failure> {
        *runs += 1;
        match replay(kind, seed, list) {
            Err(f) if class(&f.message) == want => Some(f),
            _ => None,
        }
    };
    let mut chunk = best.len().div_ceil(2).max(1);
    while runs < budget {
        let mut dropped = false;
        let mut at = 0;
        while at < best.len() && runs < budget {
            let mut cand = best.clone();
            let end = (at + chunk).min(cand.len());
            cand.drain(at..end);
            if let Some(f) = fails(&cand, &mut runs) {
                best = cand[..f.step.min(cand.len())].to_vec();
                best_failure = f;
                dropped = true;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 && !dropped {
            break;
        }
        if !dropped {
            chunk = chunk.div_ceil(2);
        }
    }
    (best, best_failure)
}
