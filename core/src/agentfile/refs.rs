//! Image and package references (`FROM`, `IMAGE` and any argument that names an artifact):
//! whether a reference is pinned by a content digest, and whether a base is mutable.

use super::ast::Directive;

/// True when `reference` is pinned by a content digest: `name@sha256:...` or a bare
/// `sha256:...`.
pub fn is_pinned_reference(reference: &str) -> bool {
    reference.contains("@sha256:") || reference.starts_with("sha256:")
}

/// The base reference of a `FROM` or `IMAGE` directive when it is not pinned by a digest
/// (`scratch`, the empty base, is never unpinned); `None` for other directives.
pub fn unpinned_base(d: &Directive) -> Option<&str> {
    if !matches!(d.name.as_ref(), "FROM" | "IMAGE") {
        return None;
    }
    d.arg(0)
        .filter(|r| *r != "scratch" && !is_pinned_reference(r))
}

/// `latest`, or no tag and no digest (`scratch` excepted): the `from-mutable-tag` rule.
pub(crate) fn is_mutable_ref(r: &str) -> bool {
    if r == "scratch" || r.contains("@sha256:") {
        return false;
    }
    let last = r.rsplit('/').next().unwrap_or(r);
    match last.rsplit_once(':') {
        Some((_, tag)) => tag == "latest" || tag.is_empty(),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agentfile::{ParseOptions, parse_agentfile};

    #[test]
    fn mutable_refs() {
        assert!(is_mutable_ref("python"));
        assert!(is_mutable_ref("ghcr.io/org/base:latest"));
        assert!(is_mutable_ref("localhost:5000/base"));
        assert!(!is_mutable_ref("ghcr.io/org/base-agent:1.4"));
        assert!(!is_mutable_ref("scratch"));
        assert!(!is_mutable_ref("org/base@sha256:abc"));
    }

    #[test]
    fn pinned_refs() {
        assert!(is_pinned_reference("org/base@sha256:abc"));
        assert!(is_pinned_reference("sha256:abc"));
        assert!(!is_pinned_reference("org/base:1.4"));
        assert!(!is_pinned_reference("org/sha256:abc"));
    }

    #[test]
    fn unpinned_bases() {
        let af = parse_agentfile(
            "AGENT a\nFROM scratch\nFROM org/base:1\nIMAGE img@sha256:00\nTOOL x:y\n",
            &ParseOptions::default(),
        );
        let got: Vec<_> = af.directives().iter().filter_map(unpinned_base).collect();
        assert_eq!(got, ["org/base:1"]);
    }
}
