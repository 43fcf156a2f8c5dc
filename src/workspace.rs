//! A loaded tree: its files discovered, parsed and indexed, ready for queries.

use std::path::PathBuf;

use crate::diagnostics::Diagnostic;
use crate::discover::discover;
use crate::index::Index;
use crate::parse::DEFAULT_MAX_FILE_SIZE;
use crate::resolve::Resolver;

#[derive(Clone, Debug)]
pub struct WorkspaceOptions {
    /// `sys.path` entries to analyze, in priority order.
    pub roots: Vec<PathBuf>,
    pub max_file_size: u64,
}

impl Default for WorkspaceOptions {
    fn default() -> Self {
        Self { roots: vec![PathBuf::from(".")], max_file_size: DEFAULT_MAX_FILE_SIZE }
    }
}

pub struct Workspace {
    pub index: Index,
    /// Problems met while loading (unreadable files, syntax errors, loops), sorted.
    pub diagnostics: Vec<Diagnostic>,
}

impl Workspace {
    pub fn load(options: &WorkspaceOptions) -> Workspace {
        let (files, mut diagnostics) = discover(&options.roots);
        let (index, index_diagnostics) = Index::build(files, options.max_file_size);
        diagnostics.extend(index_diagnostics);
        diagnostics.sort();
        diagnostics.dedup();
        Workspace { index, diagnostics }
    }

    pub fn resolver(&self) -> Resolver<'_> {
        Resolver::new(&self.index)
    }
}
