//! Argument maps: which argument of which MCP tool is a path or a URL, and under which
//! capability (`fs.read`, `fs.write`, `net.fetch`) the guard authorizes it.
//!
//! The user map file is JSON:
//!
//! ```json
//! {"tools": {
//!   "copy": [{"argument": "from", "capability": "fs.read"},
//!            {"argument": "to", "capability": "fs.write"}],
//!   "bulk_read": [{"argument": "files", "capability": "fs.read", "list": true}],
//!   "ping": []
//! }}
//! ```
//!
//! `list: true` means the argument is an array of strings, each authorized. A mapped argument
//! is required unless `"optional": true`. An empty list maps a tool that takes no path or URL
//! (so `--strict` accepts it). Unknown fields are errors.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::{Error, Result};

/// Most rules one map holds (a user map file is bounded).
pub const MAX_RULES: usize = 4096;

/// One mapped argument of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArgRule {
    /// The argument's name (a top-level key of `arguments`).
    pub argument: String,
    /// `fs.read`, `fs.write` or `net.fetch`.
    pub capability: String,
    /// The argument is an array of strings.
    #[serde(default)]
    pub list: bool,
    /// The argument may be absent.
    #[serde(default)]
    pub optional: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    tools: BTreeMap<String, Vec<ArgRule>>,
}

/// Tool name -> its mapped arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgMap {
    tools: BTreeMap<String, Vec<ArgRule>>,
}

fn rule(argument: &str, capability: &str, list: bool) -> ArgRule {
    ArgRule {
        argument: argument.to_string(),
        capability: capability.to_string(),
        list,
        optional: false,
    }
}

impl ArgMap {
    /// A map with no tool.
    pub fn empty() -> ArgMap {
        ArgMap::default()
    }

    /// The built-in maps: the tools of `@modelcontextprotocol/server-filesystem` and the
    /// `fetch` tool of `server-fetch`-style servers.
    pub fn builtin() -> ArgMap {
        let r = "fs.read";
        let w = "fs.write";
        let mut m = ArgMap::empty();
        for t in [
            "read_file",
            "read_text_file",
            "read_media_file",
            "list_directory",
            "list_directory_with_sizes",
            "directory_tree",
            "search_files",
            "get_file_info",
        ] {
            m.tools.insert(t.into(), vec![rule("path", r, false)]);
        }
        m.tools
            .insert("read_multiple_files".into(), vec![rule("paths", r, true)]);
        m.tools
            .insert("write_file".into(), vec![rule("path", w, false)]);
        m.tools
            .insert("create_directory".into(), vec![rule("path", w, false)]);
        m.tools.insert(
            "edit_file".into(),
            vec![rule("path", r, false), rule("path", w, false)],
        );
        m.tools.insert(
            "move_file".into(),
            vec![
                rule("source", r, false),
                rule("source", w, false),
                rule("destination", w, false),
            ],
        );
        m.tools.insert("list_allowed_directories".into(), vec![]);
        m.tools
            .insert("fetch".into(), vec![rule("url", "net.fetch", false)]);
        m
    }

    /// Parses a user map file (see the module docs). Errors: `INVALID_REQUEST` naming what
    /// is wrong (bad JSON, unknown field, a capability other than `fs.read`, `fs.write`,
    /// `net.fetch`, too many rules).
    pub fn from_json(text: &str) -> Result<ArgMap> {
        let f: MapFile =
            serde_json::from_str(text).map_err(|e| Error::invalid(format!("argument map: {e}")))?;
        let n: usize = f.tools.values().map(Vec::len).sum();
        if n > MAX_RULES || f.tools.len() > MAX_RULES {
            return Err(Error::invalid(format!(
                "argument map: more than {MAX_RULES} rules"
            )));
        }
        for (tool, rules) in &f.tools {
            for r in rules {
                if !matches!(r.capability.as_str(), "fs.read" | "fs.write" | "net.fetch") {
                    return Err(Error::invalid(format!(
                        "argument map: tool {tool:?} argument {:?}: capability {:?} is not \
                         fs.read, fs.write or net.fetch",
                        r.argument, r.capability
                    )));
                }
            }
        }
        Ok(ArgMap { tools: f.tools })
    }

    /// Adds `other`'s tools; a tool in both takes `other`'s rules.
    pub fn extend(&mut self, other: ArgMap) {
        self.tools.extend(other.tools);
    }

    /// The rules of `tool`; `None` when the tool is not mapped.
    pub fn rules(&self, tool: &str) -> Option<&[ArgRule]> {
        self.tools.get(tool).map(Vec::as_slice)
    }
}
