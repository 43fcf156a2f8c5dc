//! Stage 2: read a file and parse it. Parsing never fails: a syntax error is reported and the
//! tree the parser recovered is used as it is.

use std::path::Path;

use ruff_python_ast::{ModModule, PySourceType};
use ruff_python_parser::ParseError;

use crate::diagnostics::DiagnosticKind;

/// Files larger than this are skipped unless `--max-file-size` says otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// Reads a Python source file as UTF-8 (a leading BOM is dropped).
pub fn read_source(path: &Path, max_size: u64) -> Result<String, (DiagnosticKind, String)> {
    let meta = std::fs::metadata(path).map_err(|e| (DiagnosticKind::Io, format!("cannot read: {e}")))?;
    if meta.len() > max_size {
        return Err((
            DiagnosticKind::TooLarge,
            format!("{} bytes is over the {max_size}-byte limit (--max-file-size); skipped", meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| (DiagnosticKind::Io, format!("cannot read: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            Ok(text)
        }
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            Err((DiagnosticKind::NotUtf8, format!("not valid UTF-8 (first bad byte at offset {offset}); skipped")))
        }
    }
}

/// Parses a module; returns the (possibly partial) tree and the syntax errors met.
pub fn parse_module(source: &str) -> (ModModule, Vec<ParseError>) {
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    let errors = parsed.errors().to_vec();
    (parsed.into_syntax(), errors)
}
