//! Capability names (SEMANTICS 1) and the separator set of each capability (SEMANTICS 3).

use crate::error::{Error, Result};

/// The seven reserved capability names of ARCP v1.1.
pub const RESERVED_CAPABILITIES: [&str; 7] = [
    "fs.read",
    "fs.write",
    "net.fetch",
    "tool.call",
    "agent.delegate",
    "model.use",
    "cost.budget",
];

/// What a capability is, which decides canonicalization and separators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CapabilityKind {
    /// `fs.read`: absolute paths.
    FsRead,
    /// `fs.write`: absolute paths.
    FsWrite,
    /// `net.fetch`: URLs.
    NetFetch,
    /// `tool.call`: tool names; `.` and `/` separate segments.
    ToolCall,
    /// `agent.delegate`: agent names.
    AgentDelegate,
    /// `model.use`: model ids.
    ModelUse,
    /// `cost.budget`: amounts, not patterns.
    CostBudget,
    /// `x-vendor.<vendor>.<cap>`.
    Vendor,
}

impl CapabilityKind {
    /// The kind of a capability name, or `INVALID_REQUEST` for an invalid name.
    pub fn of(name: &str) -> Result<CapabilityKind> {
        Ok(match name {
            "fs.read" => CapabilityKind::FsRead,
            "fs.write" => CapabilityKind::FsWrite,
            "net.fetch" => CapabilityKind::NetFetch,
            "tool.call" => CapabilityKind::ToolCall,
            "agent.delegate" => CapabilityKind::AgentDelegate,
            "model.use" => CapabilityKind::ModelUse,
            "cost.budget" => CapabilityKind::CostBudget,
            _ if is_valid_vendor_name(name) => CapabilityKind::Vendor,
            _ => {
                return Err(Error::invalid(format!(
                    "invalid capability name {name:?}: not reserved and not x-vendor.<vendor>.<cap>"
                ))
                .with_detail("capability", name));
            }
        })
    }

    /// The separator set S: `.` and `/` for `tool.call`, `/` for everything else.
    pub fn separators(self) -> Separators {
        match self {
            CapabilityKind::ToolCall => Separators::SlashDot,
            _ => Separators::Slash,
        }
    }

    /// Whether this is a filesystem capability.
    pub fn is_fs(self) -> bool {
        matches!(self, CapabilityKind::FsRead | CapabilityKind::FsWrite)
    }
}

/// A separator set (SEMANTICS 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Separators {
    /// `/` only.
    Slash,
    /// `.` and `/` (`tool.call`).
    SlashDot,
}

impl Separators {
    /// Whether `b` is a separator byte.
    #[inline]
    pub fn contains(self, b: u8) -> bool {
        b == b'/' || (b == b'.' && self == Separators::SlashDot)
    }
}

/// Whether `name` is one of the seven reserved capability names.
pub fn is_reserved_capability_name(name: &str) -> bool {
    RESERVED_CAPABILITIES.contains(&name)
}

/// Whether `name` is a valid capability name: reserved, or `x-vendor.` followed by at least two
/// `.`-separated segments of `[a-z0-9_-]+`.
pub fn is_valid_capability_name(name: &str) -> bool {
    is_reserved_capability_name(name) || is_valid_vendor_name(name)
}

fn is_valid_vendor_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("x-vendor.") else {
        return false;
    };
    let mut count = 0;
    for seg in rest.split('.') {
        if seg.is_empty()
            || !seg
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        {
            return false;
        }
        count += 1;
    }
    count >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for n in RESERVED_CAPABILITIES {
            assert!(is_valid_capability_name(n) && is_reserved_capability_name(n));
        }
        for n in [
            "x-vendor.acme.kafka.publish",
            "x-vendor.acme.cap",
            "x-vendor.a-b.c_d.0",
        ] {
            assert!(is_valid_capability_name(n), "{n}");
            assert!(!is_reserved_capability_name(n));
        }
        for n in [
            "x-vendor.acme",
            "x-vendor.Acme.x",
            "x-vendor..x",
            "acme.foo",
            "",
            "x-vendor.",
            "x-vendor.acme.",
            "x-vendor.a b.c",
            "FS.READ",
            "fs.read ",
        ] {
            assert!(!is_valid_capability_name(n), "{n}");
        }
    }

    #[test]
    fn kinds_and_separators() {
        assert_eq!(
            CapabilityKind::of("tool.call").unwrap().separators(),
            Separators::SlashDot
        );
        assert!(Separators::SlashDot.contains(b'.'));
        assert!(!Separators::Slash.contains(b'.'));
        assert!(CapabilityKind::of("nope").is_err());
    }
}
