//! Stage 1: find the Python files under the roots and give each its module name.
//!
//! A root is a `sys.path` entry. When the given directory is itself a package (it holds an
//! `__init__.py`), its nearest ancestor that is not a package is used instead, so that
//! `--root site-packages/sglang` still names modules `sglang.srt...` as imports spell them.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashSet;

use crate::diagnostics::{Diagnostic, DiagnosticKind};

/// Directories never walked: bytecode caches and version-control data. Everything else,
/// hidden directories included, is part of the tree (a wheel ships what it ships).
const SKIPPED_DIRS: &[&str] = &["__pycache__", ".git", ".hg", ".svn"];

/// One `.py` file found under a root.
#[derive(Clone, Debug)]
pub struct DiscoveredFile {
    /// Path on disk, as walked.
    pub path: PathBuf,
    /// Path relative to its `sys.path` entry, with `/` separators: what the output shows.
    pub display: String,
    /// Dotted module name (`sglang.srt.layers.moe.topk`; a package's `__init__.py` is named
    /// after the package).
    pub module: String,
    /// True for `__init__.py`.
    pub is_package: bool,
}

/// The `sys.path` entry that makes `dir` importable under its full dotted name.
pub fn sys_path_entry(dir: &Path) -> PathBuf {
    let mut entry = dir.to_path_buf();
    while entry.join("__init__.py").is_file() {
        match entry.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => entry = parent.to_path_buf(),
            _ => break,
        }
    }
    entry
}

/// Module name and package flag for `relative` (a path below a `sys.path` entry).
pub fn module_name(relative: &Path) -> Option<(String, bool)> {
    let mut parts: Vec<String> = Vec::new();
    for component in relative.components() {
        parts.push(component.as_os_str().to_str()?.to_string());
    }
    let last = parts.pop()?;
    let stem = last.strip_suffix(".py")?;
    let is_package = stem == "__init__";
    if !is_package {
        parts.push(stem.to_string());
    }
    if parts.is_empty() {
        // `__init__.py` directly in a sys.path entry has no importable name.
        return None;
    }
    Some((parts.join("."), is_package))
}

/// Walks every root, in order. Files come back sorted by module name; a module name met twice
/// keeps its first root's file, as Python's import system would.
pub fn discover(roots: &[PathBuf]) -> (Vec<DiscoveredFile>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    let mut seen_modules: FxHashSet<String> = FxHashSet::default();

    for root in roots {
        let meta = match std::fs::metadata(root) {
            Ok(meta) => meta,
            Err(err) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Io,
                    Some(root.display().to_string()),
                    None,
                    format!("cannot read root: {err}"),
                ));
                continue;
            }
        };
        let entry =
            if meta.is_dir() { sys_path_entry(root) } else { sys_path_entry(root.parent().unwrap_or(Path::new("."))) };

        let mut found = Vec::new();
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .hidden(false)
            .follow_links(true)
            .filter_entry(|entry| !SKIPPED_DIRS.iter().any(|d| entry.file_name() == *d))
            .build();
        for item in walker {
            match item {
                Ok(dent) => {
                    let path = dent.path();
                    if !dent.file_type().is_some_and(|t| t.is_file()) || path.extension().is_none_or(|ext| ext != "py")
                    {
                        continue;
                    }
                    let relative = path.strip_prefix(&entry).unwrap_or(path);
                    let Some((module, is_package)) = module_name(relative) else {
                        continue;
                    };
                    found.push(DiscoveredFile {
                        path: path.to_path_buf(),
                        display: relative.to_string_lossy().replace('\\', "/"),
                        module,
                        is_package,
                    });
                }
                Err(err) => diagnostics.push(walk_error(&err)),
            }
        }
        found.sort_by(|a, b| a.display.cmp(&b.display));
        for file in found {
            if seen_modules.insert(file.module.clone()) {
                files.push(file);
            } else {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::DuplicateModule,
                    Some(file.display.clone()),
                    None,
                    format!(
                        "module `{}` is already provided by an earlier root or link; this copy is skipped",
                        file.module
                    ),
                ));
            }
        }
    }
    files.sort_by(|a, b| a.module.cmp(&b.module));
    (files, diagnostics)
}

fn walk_error(err: &ignore::Error) -> Diagnostic {
    // `ignore` wraps the interesting error in path/depth context; unwrap it for the kind.
    fn innermost(err: &ignore::Error) -> &ignore::Error {
        match err {
            ignore::Error::WithPath { err, .. }
            | ignore::Error::WithDepth { err, .. }
            | ignore::Error::WithLineNumber { err, .. } => innermost(err),
            other => other,
        }
    }
    let path = match err {
        ignore::Error::WithPath { path, .. } => Some(path.display().to_string()),
        _ => None,
    };
    match innermost(err) {
        ignore::Error::Loop { child, ancestor } => Diagnostic::new(
            DiagnosticKind::SymlinkLoop,
            Some(child.display().to_string()),
            None,
            format!("symlink loop: points back to {}; not followed", ancestor.display()),
        ),
        other => Diagnostic::new(DiagnosticKind::Io, path, None, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names() {
        assert_eq!(module_name(Path::new("a/b/c.py")), Some(("a.b.c".into(), false)));
        assert_eq!(module_name(Path::new("a/b/__init__.py")), Some(("a.b".into(), true)));
        assert_eq!(module_name(Path::new("__init__.py")), None);
        assert_eq!(module_name(Path::new("a/b.txt")), None);
    }
}
