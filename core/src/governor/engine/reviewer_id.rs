//! Reviewer and requester ids as they compare (SEMANTICS 13.16 "Reviewers"): Unicode NFKC,
//! full Unicode case folding and trimming of white space, so that `"alice "`, `"ALICE"` and
//! `"ａｌｉｃｅ"` are one person.

use unicode_normalization::UnicodeNormalization;

/// The comparison form of a reviewer or requester id: NFKC, case folded, NFKC again (folding
/// can leave a string that is not in NFKC, e.g. U+0345), trimmed of white space.
pub(crate) fn normalized(id: &str) -> String {
    let nfkc: String = id.nfkc().collect();
    let folded = caseless::default_case_fold_str(&nfkc);
    let again: String = folded.nfkc().collect();
    again.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::normalized;

    #[test]
    fn spellings_of_one_id_compare_equal() {
        for s in [
            "alice",
            "Alice ",
            "\tALICE",
            "\u{ff41}lice",
            "ａｌｉｃｅ\u{3000}",
        ] {
            assert_eq!(normalized(s), "alice", "{s:?}");
        }
        assert_eq!(normalized("Straße"), normalized("STRASSE"));
        assert_eq!(normalized("ﬁle"), "file");
        assert_eq!(normalized(" \u{3000}\t"), "");
        assert_ne!(normalized("alice"), normalized("alicia"));
    }
}
