//! Typed ids for files, classes and functions.
//!
//! Classes and functions are numbered per file, so the parallel per-file pass needs no
//! renumbering when its results are merged.

use ruff_index::newtype_index;

/// A file, and the module it defines.
#[newtype_index]
#[derive(PartialOrd, Ord)]
pub struct FileId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId {
    pub file: FileId,
    pub local: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId {
    pub file: FileId,
    pub local: u32,
}
