//! Diagnostics for PTX input: every error carries `file:line:col`, the offending token and what was
//! expected there. The parser collects all of them instead of stopping at the first.

use std::fmt;

/// One error in a PTX source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file name as given by the caller.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (bytes).
    pub col: u32,
    /// What went wrong, in words (`expected ';'`, `unknown register %r9`).
    pub message: String,
    /// The offending token's text (`end of input` at the end).
    pub found: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        // The token is repeated only when the message does not already quote it.
        if !self.message.contains(&format!("`{}`", self.found)) {
            write!(f, ", found `{}`", self.found)?;
        }
        Ok(())
    }
}

/// All errors found in one PTX source, in source order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseErrors(pub Vec<Diagnostic>);

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        if self.0.len() > 1 {
            write!(f, "\n{} errors", self.0.len())?;
        }
        Ok(())
    }
}
