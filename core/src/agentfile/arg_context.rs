//! What argument checking works on: the tokens of a directive line and a context that records
//! diagnostics against it, with the arity rule of the directive table.

use super::diagnostics::{Diagnostic, Severity, codes};
use super::directives::DirectiveInfo;

/// A whitespace-separated token with its 1-based character column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'a> {
    pub s: &'a str,
    pub col: usize,
}

/// One directive line being checked: where it is and where its diagnostics go.
pub(crate) struct Ctx<'d> {
    /// The directive's table entry.
    pub info: &'static DirectiveInfo,
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the directive name.
    pub col: usize,
    /// Compat mode (see [`super::ParseOptions`]).
    pub compat: bool,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'d> Ctx<'d> {
    /// A context for the directive `info` at `line`:`col`.
    pub fn new(
        info: &'static DirectiveInfo,
        line: usize,
        col: usize,
        compat: bool,
        diags: &'d mut Vec<Diagnostic>,
    ) -> Ctx<'d> {
        Ctx {
            info,
            line,
            col,
            compat,
            diags,
        }
    }

    /// Records an error with a hint.
    pub fn err_hint(&mut self, code: &str, col: usize, msg: impl Into<String>, hint: &str) {
        self.diags
            .push(Diagnostic::new(code, Severity::Error, self.line, col, msg).with_hint(hint));
    }

    /// Records a warning with a hint.
    pub fn warn(&mut self, code: &str, col: usize, msg: impl Into<String>, hint: &str) {
        self.diags
            .push(Diagnostic::new(code, Severity::Warning, self.line, col, msg).with_hint(hint));
    }

    /// Checks the argument count against the directive table (`min_args..=max_args`);
    /// reports `arity` with the table's usage line and returns false when outside.
    pub fn arity(&mut self, args: &[Tok<'_>]) -> bool {
        let (min, max) = (self.info.min_args, self.info.max_args);
        let n = args.len();
        if n >= min && n <= max {
            return true;
        }
        let want = match (min, max) {
            (a, b) if a == b => format!("exactly {a}"),
            (a, usize::MAX) => format!("at least {a}"),
            (a, b) => format!("{a} to {b}"),
        };
        let col = args.get(max).map_or(self.col, |t| t.col);
        let msg = format!("`{}` takes {want} argument(s), got {n}", self.info.name);
        self.err_hint(codes::ARITY, col, msg, self.info.usage);
        false
    }
}
