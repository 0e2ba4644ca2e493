//! Terminal colour: only when stdout is a terminal and `NO_COLOR` is unset or empty.

use std::io::IsTerminal;

/// Whether to colour output, and helpers that wrap text in ANSI colours.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colour when stdout is a TTY and `NO_COLOR` is not set to a non-empty value.
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            enabled: !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// Never colour (for stderr).
    pub fn plain() -> Style {
        Style { enabled: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Green: an allow or a clean result.
    pub fn good(&self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Red: a deny or an error.
    pub fn bad(&self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Yellow: a warning.
    pub fn warn(&self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Bold: headings.
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dim: secondary detail.
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::Style;

    #[test]
    fn paints_only_when_enabled() {
        let on = Style { enabled: true };
        assert_eq!(on.good("allow"), "\x1b[32mallow\x1b[0m");
        assert_eq!(on.bad("deny"), "\x1b[31mdeny\x1b[0m");
        assert_eq!(Style::plain().good("allow"), "allow");
        assert_eq!(Style::plain().warn("w"), "w");
    }
}
