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

    /// The kind of `RESERVED_CAPABILITIES[index]`, or `None` past the end. Bindings pass a
    /// reserved capability across the boundary as this index (cheaper than its name).
    pub fn reserved(index: usize) -> Option<CapabilityKind> {
        use CapabilityKind::*;
        const KINDS: [CapabilityKind; 7] = [
            FsRead,
            FsWrite,
            NetFetch,
            ToolCall,
            AgentDelegate,
            ModelUse,
            CostBudget,
        ];
        KINDS.get(index).copied()
    }

    /// The index of this kind in [`RESERVED_CAPABILITIES`]; `None` for [`CapabilityKind::Vendor`].
    pub fn reserved_index(self) -> Option<usize> {
        Some(match self {
            CapabilityKind::FsRead => 0,
            CapabilityKind::FsWrite => 1,
            CapabilityKind::NetFetch => 2,
            CapabilityKind::ToolCall => 3,
            CapabilityKind::AgentDelegate => 4,
            CapabilityKind::ModelUse => 5,
            CapabilityKind::CostBudget => 6,
            CapabilityKind::Vendor => return None,
        })
    }

    /// The reserved capability name of this kind; `None` for [`CapabilityKind::Vendor`].
    pub fn reserved_name(self) -> Option<&'static str> {
        self.reserved_index().map(|i| RESERVED_CAPABILITIES[i])
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

    #[test]
    fn reserved_indexes_follow_the_list() {
        for (i, name) in RESERVED_CAPABILITIES.iter().enumerate() {
            let kind = CapabilityKind::of(name).unwrap();
            assert_eq!(CapabilityKind::reserved(i), Some(kind), "{name}");
            assert_eq!(kind.reserved_index(), Some(i));
            assert_eq!(kind.reserved_name(), Some(*name));
        }
        assert_eq!(CapabilityKind::reserved(RESERVED_CAPABILITIES.len()), None);
        assert_eq!(CapabilityKind::reserved(usize::MAX), None);
        assert_eq!(CapabilityKind::Vendor.reserved_index(), None);
        assert_eq!(CapabilityKind::Vendor.reserved_name(), None);
    }
}
