//! Problems met on the way (unreadable files, syntax errors, cycles, bounds hit), as data.
//!
//! A diagnostic never stops a run: it is collected, sorted and shown next to the answer.

use serde::Serialize;

/// What went wrong; the JSON output uses the snake_case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// The file or directory could not be read.
    Io,
    /// A symlink points back to one of its own ancestors.
    SymlinkLoop,
    /// The file is not valid UTF-8; it is skipped.
    NotUtf8,
    /// The file is larger than `--max-file-size`; it is skipped.
    TooLarge,
    /// The parser recovered from a syntax error; facts come from what parsed.
    SyntaxError,
    /// Two roots provide the same module; the first root wins, as on `sys.path`.
    DuplicateModule,
    /// An expression or statement nests deeper than the analysis follows.
    TooDeep,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Diagnostic {
    /// Path as displayed (relative to its root), if the problem belongs to a file.
    pub path: Option<String>,
    /// 1-based line, when known.
    pub line: Option<u32>,
    pub kind: DiagnosticKind,
    pub message: String,
}

impl Diagnostic {
    pub fn new(kind: DiagnosticKind, path: Option<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Self { path, line, kind, message: message.into() }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{path}:{line}: {}", self.message),
            (Some(path), None) => write!(f, "{path}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}
