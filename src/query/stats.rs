//! `scaletrace stats`: what the index holds, and what went wrong loading it.

use serde::Serialize;

use crate::Workspace;
use crate::diagnostics::Diagnostic;

#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub files: usize,
    pub unreadable_files: usize,
    pub packages: usize,
    pub classes: usize,
    pub functions: usize,
    pub bytes: usize,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn stats(workspace: &Workspace) -> Stats {
    let index = &workspace.index;
    Stats {
        files: index.files.len(),
        unreadable_files: index.files.iter().filter(|f| !f.readable).count(),
        packages: index.files.iter().filter(|f| f.is_package).count(),
        classes: index.files.iter().map(|f| f.facts.classes.len()).sum(),
        functions: index.files.iter().map(|f| f.facts.functions.len()).sum(),
        bytes: index.files.iter().map(|f| f.text.len()).sum(),
        diagnostics: workspace.diagnostics.clone(),
    }
}
