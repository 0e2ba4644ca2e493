//! The agentrc Agentfile (draft 0.1.0-draft.4): parser, linter, derived lease, lockfile
//! and Cedar policy. (Being written.)
