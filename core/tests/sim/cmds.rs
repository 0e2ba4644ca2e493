//! The simulation's commands and their seeded generator. A command names what it acts on by
//! position in what the run has seen so far ([`Ref::Known`]: the n-th lease, approval, token or
//! sub-lease answered, modulo their number), so a command list stays meaningful when the
//! shrinker drops commands from it.

/// A SplitMix64 stream: the simulation's only source of choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A stream for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_5EED_5EED_5EED)
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A small value as `u8`.
    pub fn u8(&mut self, n: u64) -> u8 {
        self.below(n) as u8
    }

    /// True with probability `pct` percent.
    pub fn pct(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

/// What a command acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref {
    /// The n-th one the run has seen (modulo how many it has seen; junk when none).
    Known(u8),
    /// An id nobody was given.
    Junk(u8),
}

/// Peers: uid 0 is the admin, 1000 and 1001 are users.
pub const UIDS: [u32; 3] = [0, 1000, 1001];

/// Faults a command can arm for the next store call of its kind.
pub const FAULTS: [&str; 8] = [
    "commit-error",
    "commit-error-after-commit",
    "commit-crash-before",
    "commit-crash-after",
    "commit-panic",
    "commit-stall",
    "load-error",
    "commit-unreachable",
];

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// `Acquire`.
    Acquire {
        uid: u8,
        actor: u8,
        ws: u8,
        key: Option<u8>,
        cost: u8,
        units: u8,
        tool: u8,
        token: Option<Ref>,
        arcp: bool,
    },
    /// `Release` (actuals as a percentage of the estimate the model recorded, up to 150%).
    Release {
        uid: u8,
        lease: Ref,
        pct: u8,
        key: Option<u8>,
    },
    /// `RequestApproval` for `http.post` (ttl under 30 s is invalid).
    RequestApproval { uid: u8, actor: u8, ttl: u16 },
    /// `ReviewApproval`, `GrantApproval` (kind 1) or `DenyApproval` (kind 2).
    Decide {
        uid: u8,
        approval: Ref,
        reviewer: u8,
        approve: bool,
        kind: u8,
    },
    /// `RequestToolSubLease`.
    SubLease {
        uid: u8,
        lease: Ref,
        tool: u8,
        calls: u8,
        token: Option<Ref>,
    },
    /// `ExecuteToolCall`.
    ToolCall {
        uid: u8,
        lease: Ref,
        sub: Ref,
        tool: u8,
        target: u8,
    },
    /// `Authorize`.
    Authorize { uid: u8, lease: Ref, target: u8 },
    /// Stage and activate policy `which`, or roll back to it.
    Policy { uid: u8, which: u8, rollback: bool },
    /// `VerifyAudit` or `ExportAudit`.
    Audit { uid: u8, export: bool, from: u8 },
    /// `GetMetrics`, `GetStatus` or `ListPendingApprovals`.
    Query { uid: u8, which: u8 },
    /// An oversized or malformed request (see `world::hostile`).
    Hostile { uid: u8, kind: u8 },
    /// Moves the clock (kind: 0 small, 1 past the lease TTL, 2 to just before the next UTC
    /// midnight, 3 hours, 4 backwards by up to 3 s).
    Clock { kind: u8, ms: u32 },
    /// Arms a store fault (`FAULTS[kind]`) for the next call it applies to.
    Fault { kind: u8 },
    /// Drops the governor without a clean close and opens a new one on the same store.
    Crash,
}

impl Cmd {
    /// A random command.
    pub fn random(r: &mut Rng) -> Cmd {
        let uid = |r: &mut Rng| if r.pct(10) { 0 } else { 1 + r.u8(2) };
        let lease = |r: &mut Rng| {
            if r.pct(8) {
                Ref::Junk(r.u8(4))
            } else {
                Ref::Known(r.u8(255))
            }
        };
        let token = |r: &mut Rng| match r.below(10) {
            0..=5 => None,
            6 => Some(Ref::Junk(r.u8(4))),
            _ => Some(Ref::Known(r.u8(255))),
        };
        match r.below(100) {
            0..=27 => Cmd::Acquire {
                uid: uid(r),
                actor: r.u8(3),
                ws: r.u8(2),
                key: if r.pct(45) { Some(r.u8(4)) } else { None },
                cost: r.u8(45),
                units: r.u8(4),
                tool: r.u8(4),
                token: token(r),
                arcp: r.pct(30),
            },
            28..=42 => Cmd::Release {
                uid: uid(r),
                lease: lease(r),
                pct: r.u8(151),
                key: if r.pct(40) { Some(r.u8(3)) } else { None },
            },
            43..=46 => Cmd::RequestApproval {
                uid: uid(r),
                actor: r.u8(3),
                ttl: if r.pct(10) {
                    10
                } else {
                    30 + r.below(600) as u16
                },
            },
            47..=51 => Cmd::Decide {
                uid: if r.pct(80) { 0 } else { 1 + r.u8(2) },
                approval: if r.pct(10) {
                    Ref::Junk(r.u8(4))
                } else {
                    Ref::Known(r.u8(255))
                },
                reviewer: r.u8(4),
                approve: r.pct(75),
                kind: r.u8(3),
            },
            52..=57 => Cmd::SubLease {
                uid: uid(r),
                lease: lease(r),
                tool: r.u8(3),
                calls: r.u8(4),
                token: token(r),
            },
            58..=64 => Cmd::ToolCall {
                uid: uid(r),
                lease: lease(r),
                sub: if r.pct(10) {
                    Ref::Junk(r.u8(4))
                } else {
                    Ref::Known(r.u8(255))
                },
                tool: r.u8(3),
                target: r.u8(4),
            },
            65..=68 => Cmd::Authorize {
                uid: uid(r),
                lease: lease(r),
                target: r.u8(4),
            },
            69..=70 => Cmd::Policy {
                uid: if r.pct(80) { 0 } else { 1 },
                which: r.u8(3),
                rollback: r.pct(30),
            },
            71..=72 => Cmd::Audit {
                uid: if r.pct(80) { 0 } else { 1 },
                export: r.pct(50),
                from: r.u8(20),
            },
            73..=74 => Cmd::Query {
                uid: uid(r),
                which: r.u8(3),
            },
            75..=79 => Cmd::Hostile {
                uid: uid(r),
                kind: r.u8(12),
            },
            80..=92 => {
                let kind = match r.below(20) {
                    0..=9 => 0,
                    10..=13 => 1,
                    14..=15 => 2,
                    16 => 3,
                    _ => 4,
                };
                Cmd::Clock {
                    kind,
                    ms: r.below(1 << 30) as u32,
                }
            }
            93..=97 => Cmd::Fault {
                kind: r.u8(FAULTS.len() as u64),
            },
            _ => Cmd::Crash,
        }
    }
}

/// The command list of `seed`: `steps` commands.
pub fn commands(seed: u64, steps: usize) -> Vec<Cmd> {
    let mut r = Rng::new(seed);
    (0..steps).map(|_| Cmd::random(&mut r)).collect()
}
