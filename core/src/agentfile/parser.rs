//! The line scanner: comments, the syntax marker, directive names, `POLICY`/`SOP` blocks.
//!
//! Runs in one pass, linear in the input, and never panics: every problem becomes a
//! [`Diagnostic`].

use std::borrow::Cow;

use super::ParseOptions;
use super::arg_context::Tok;
use super::args::check_arguments;
use super::ast::{Agentfile, Block, Directive, SourceDigest, Span, SyntaxMarker};
use super::diagnostics::{Diagnostic, Severity, codes, sort_by_position};
use super::directives::{
    DOCKERFILE_KEYWORDS, DirectiveInfo, NEWER_GRAMMAR_KEYWORDS, directive_info,
};

/// The syntax marker value draft.4 (and draft.2-6) used.
pub const SYNTAX_V01: &str = "agentrc.agentfile/v0.1";

/// A block opened by `POLICY` or `SOP <name>` and not yet closed.
struct OpenBlock {
    directive: usize,
    body_start: usize,
}

/// Why the file looks like the later grammar (first signal wins).
struct NewerSignal {
    line: usize,
    column: usize,
    what: String,
}

struct Parser<'t> {
    text: &'t str,
    compat: bool,
    syntax: Option<SyntaxMarker>,
    directives: Vec<Directive>,
    creds: Vec<super::ast::Cred>,
    diags: Vec<Diagnostic>,
    seen_single: Vec<(&'static str, usize)>,
    toks: Vec<Tok<'t>>,
    open: Option<OpenBlock>,
    newer: Option<NewerSignal>,
}

/// Parses `text`; see [`super::parse_agentfile`].
pub(crate) fn parse(text: &str, opts: &ParseOptions) -> Agentfile {
    // One directive per line at most; a cheap newline count avoids regrowing the vector.
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut p = Parser {
        text,
        compat: opts.compat,
        syntax: None,
        directives: Vec::with_capacity(lines.min(1 << 16)),
        creds: Vec::new(),
        diags: Vec::new(),
        seen_single: Vec::new(),
        toks: Vec::new(),
        open: None,
        newer: None,
    };
    let bytes = text.as_bytes();
    let mut pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut line_no = 0;
    while pos < bytes.len() {
        let (line_end, next) = match bytes[pos..].iter().position(|&b| b == b'\n') {
            Some(i) => (pos + i, pos + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        line_no += 1;
        let raw = &text[pos..line_end];
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        p.line(line_no, pos, line, next);
        pos = next;
    }
    p.finish()
}

/// True for a line that closes a block: `END` with optional surrounding whitespace and an
/// optional trailing `# comment` (SEMANTICS 12).
pub(crate) fn is_end_line(line: &str) -> bool {
    let t = line.trim_matches([' ', '\t']);
    match t.strip_prefix("END") {
        Some("") => true,
        Some(rest) => {
            rest.starts_with([' ', '\t']) && rest.trim_start_matches([' ', '\t']).starts_with('#')
        }
        None => false,
    }
}

/// Cuts an inline comment: whitespace followed by `#` (a `#` inside a token, as in
/// `vault://path#key`, is kept).
pub(crate) fn strip_inline_comment(line: &str) -> &str {
    let b = line.as_bytes();
    for i in 1..b.len() {
        if b[i] == b'#' && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
            return &line[..i];
        }
    }
    line
}

/// Splits on spaces and tabs into `toks`, keeping 1-based character columns.
fn tokenize_into<'a>(content: &'a str, toks: &mut Vec<Tok<'a>>) {
    toks.clear();
    let mut col = 0usize;
    let mut start: Option<(usize, usize)> = None;
    for (i, &b) in content.as_bytes().iter().enumerate() {
        // Count characters: every byte that is not a UTF-8 continuation byte starts one.
        if b & 0xC0 != 0x80 {
            col += 1;
        }
        if b == b' ' || b == b'\t' {
            if let Some((s, sc)) = start.take() {
                toks.push(Tok {
                    s: &content[s..i],
                    col: sc,
                });
            }
        } else if start.is_none() {
            start = Some((i, col));
        }
    }
    if let Some((s, sc)) = start {
        toks.push(Tok {
            s: &content[s..],
            col: sc,
        });
    }
}

#[cfg(test)]
fn tokenize(content: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    tokenize_into(content, &mut toks);
    toks
}

/// A token that may be echoed in a message: a plausible directive name.
fn printable_name(name: &str) -> Option<&str> {
    (name.len() <= 24
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'-'))
    .then_some(name)
}

impl<'t> Parser<'t> {
    fn error(&mut self, code: &str, line: usize, column: usize, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::new(code, Severity::Error, line, column, msg));
    }

    fn signal_newer(&mut self, line: usize, column: usize, what: impl Into<String>) {
        if self.newer.is_none() {
            self.newer = Some(NewerSignal {
                line,
                column,
                what: what.into(),
            });
        }
    }

    fn line(&mut self, no: usize, start: usize, line: &'t str, next: usize) {
        if let Some(open) = &self.open {
            if is_end_line(line) {
                let d = &mut self.directives[open.directive];
                d.block = Some(Block {
                    body: self.text[open.body_start..start].to_string(),
                    body_span: Span {
                        start: open.body_start,
                        end: start,
                    },
                    end_line: no,
                });
                d.span.end = start + line.len();
                self.open = None;
            }
            return;
        }
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() {
            return;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            self.comment(no, comment);
            return;
        }
        let content = strip_inline_comment(line);
        let mut toks = std::mem::take(&mut self.toks);
        tokenize_into(content, &mut toks);
        self.tokens(no, start, line, content, &toks, next);
        self.toks = toks;
    }

    fn tokens(
        &mut self,
        no: usize,
        start: usize,
        line: &str,
        content: &str,
        toks: &[Tok<'_>],
        next: usize,
    ) {
        let Some(first) = toks.first() else { return };
        let name = first.s;
        let col = first.col;
        let name_start = start + (name.as_ptr() as usize - line.as_ptr() as usize);
        let span = Span {
            start: name_start,
            end: start + content.trim_end_matches([' ', '\t']).len(),
        };
        if name == "END" {
            self.error(
                codes::STRAY_END,
                no,
                col,
                "`END` outside a POLICY or SOP block",
            );
            return;
        }
        if let Some(info) = directive_info(name) {
            self.directive(info, no, col, span, content, toks, next);
            return;
        }
        if name.len() > 2 && name.starts_with("X-") {
            self.diags.push(
                Diagnostic::new(
                    codes::EXTENSION_DIRECTIVE,
                    Severity::Warning,
                    no,
                    col,
                    "extension directive kept but not interpreted",
                )
                .with_hint(
                    "leasekit supports no extension profile; runners must reject it if required",
                ),
            );
            self.push_directive(
                Cow::Owned(name.to_string()),
                &toks[1..],
                no,
                col,
                span,
                content,
            );
            return;
        }
        if NEWER_GRAMMAR_KEYWORDS.contains(&name) {
            self.signal_newer(no, col, format!("`{name}`"));
        }
        let upper = name.to_ascii_uppercase();
        if let Some(info) = directive_info(&upper) {
            self.diags.push(
                Diagnostic::new(
                    codes::LOWERCASE_DIRECTIVE,
                    Severity::Error,
                    no,
                    col,
                    format!("directive names are upper case; this is `{}`", info.name),
                )
                .with_hint(format!("write `{}`", info.name)),
            );
            return;
        }
        let shown = printable_name(name)
            .map(|n| format!("unknown directive `{n}`"))
            .unwrap_or_else(|| "unknown directive (name not shown)".to_string());
        let mut diag = Diagnostic::new(codes::UNKNOWN_DIRECTIVE, Severity::Error, no, col, shown);
        if DOCKERFILE_KEYWORDS.contains(&upper.as_str()) {
            diag = diag.with_hint(
                "a Dockerfile instruction: draft.5+ Agentfiles are Dockerfile-shaped, draft.4 is not",
            );
        }
        self.diags.push(diag);
    }

    fn comment(&mut self, no: usize, comment: &str) {
        if self.syntax.is_some() || !self.directives.is_empty() {
            return;
        }
        let Some(value) = comment
            .trim_start_matches([' ', '\t'])
            .strip_prefix("syntax=")
        else {
            return;
        };
        let value = value.trim_end_matches([' ', '\t']).to_string();
        if value.starts_with("agentrc.io/agentfile") {
            self.signal_newer(no, 1, format!("the `# syntax={value}` marker"));
        } else if value != SYNTAX_V01 {
            self.diags.push(
                Diagnostic::new(
                    codes::SYNTAX_MARKER,
                    Severity::Warning,
                    no,
                    1,
                    "unknown syntax marker; parsing as agentrc draft 0.1.0-draft.4",
                )
                .with_hint(format!("draft.4 files use `# syntax={SYNTAX_V01}`")),
            );
        }
        self.syntax = Some(SyntaxMarker { value, line: no });
    }

    #[allow(clippy::too_many_arguments)]
    fn directive(
        &mut self,
        info: &'static DirectiveInfo,
        no: usize,
        col: usize,
        span: Span,
        content: &str,
        toks: &[Tok<'_>],
        next: usize,
    ) {
        let name = info.name;
        if info.single {
            if let Some((_, first)) = self.seen_single.iter().find(|(n, _)| *n == name) {
                let msg = format!("`{name}` may appear only once (first at line {first})");
                self.error(codes::DUPLICATE_DIRECTIVE, no, col, msg);
            } else {
                self.seen_single.push((name, no));
            }
        }
        let args = &toks[1..];
        if name == "SOP" && args.first().is_some_and(|t| t.s.starts_with("<<")) {
            self.signal_newer(no, col, "a `SOP <<` heredoc");
        }
        if name == "POLICY" && args.len() == 2 && args[0].s.contains('.') {
            self.signal_newer(no, col, "a `POLICY <key> <value>` request");
        }
        let checked = check_arguments(info, no, col, args, self.compat, &mut self.diags);
        let idx = self.directives.len();
        let text = checked
            .redacted_text
            .unwrap_or_else(|| args_text(content, toks));
        self.directives.push(Directive {
            name: Cow::Borrowed(name),
            text,
            line: no,
            column: col,
            span,
            block: None,
            info: Some(info),
        });
        if let Some(cred) = checked.cred {
            self.creds.push(cred);
        }
        if checked.opens_block {
            self.open = Some(OpenBlock {
                directive: idx,
                body_start: next,
            });
        }
    }

    fn push_directive(
        &mut self,
        name: Cow<'static, str>,
        args: &[Tok<'_>],
        no: usize,
        col: usize,
        span: Span,
        content: &str,
    ) {
        let all: Vec<Tok<'_>> = std::iter::once(Tok { s: "", col })
            .chain(args.iter().copied())
            .collect();
        self.directives.push(Directive {
            name,
            text: args_text(content, &all),
            line: no,
            column: col,
            span,
            block: None,
            info: None,
        });
    }

    fn finish(mut self) -> Agentfile {
        if let Some(open) = self.open.take() {
            let d = &self.directives[open.directive];
            let (line, column, name) = (d.line, d.column, d.name.clone());
            self.diags.push(
                Diagnostic::new(
                    codes::UNTERMINATED_BLOCK,
                    Severity::Error,
                    line,
                    column,
                    format!("`{name}` block is not closed by an `END` line"),
                )
                .with_hint("close the block with a line containing only `END`"),
            );
        }
        let newer = self.newer.take();
        if let Some(sig) = &newer {
            self.diags = vec![
                Diagnostic::new(
                    codes::NEWER_GRAMMAR,
                    Severity::Error,
                    sig.line,
                    sig.column,
                    format!(
                        "this looks like a draft.5+/v1 (Dockerfile-shaped) Agentfile ({}); leasekit implements agentrc 0.1.0-draft.4",
                        sig.what
                    ),
                )
                .with_hint("convert it to the draft.4 directive grammar (AGENT, TOOL, URL, MOUNT, CRED, POLICY ... END)"),
            ];
        }
        sort_by_position(&mut self.diags);
        Agentfile {
            syntax: self.syntax,
            directives: self.directives,
            creds: self.creds,
            diagnostics: self.diags,
            compat: self.compat,
            source_sha256: SourceDigest::new(self.text),
            newer_grammar: newer.is_some(),
        }
    }
}

/// The argument text after the directive name (inline comment already removed).
fn args_text(content: &str, toks: &[Tok<'_>]) -> String {
    match toks.get(1) {
        Some(t) => {
            let off = t.s.as_ptr() as usize - content.as_ptr() as usize;
            content[off..].trim_end_matches([' ', '\t']).to_string()
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_lines() {
        assert!(is_end_line("END"));
        assert!(is_end_line("  END\t"));
        assert!(is_end_line("END # done"));
        assert!(!is_end_line("END#x"));
        assert!(!is_end_line("ENDS"));
        assert!(!is_end_line("END x"));
    }

    #[test]
    fn inline_comments() {
        assert_eq!(strip_inline_comment("TOOL a:b # c"), "TOOL a:b ");
        assert_eq!(
            strip_inline_comment("CRED x vault://a/b#key host:h"),
            "CRED x vault://a/b#key host:h"
        );
        assert_eq!(strip_inline_comment("#x"), "#x");
    }

    #[test]
    fn tokens_have_columns() {
        let t = tokenize("  TOOL\tutcp:x  y");
        let cols: Vec<_> = t.iter().map(|t| (t.s, t.col)).collect();
        assert_eq!(cols, vec![("TOOL", 3), ("utcp:x", 8), ("y", 16)]);
    }
}
