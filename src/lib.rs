//! scaletrace: answers how values flow through large Python codebases, without running them.
//!
//! The pipeline, one module per stage:
//! [`discover`] finds the files and names their modules → [`parse`] turns each into a syntax tree
//! → [`index`] extracts per-file facts in parallel → [`resolve`] answers name, import, MRO and
//! factory questions over those facts → [`query`] and [`eval`] compute answers as plain data →
//! [`report`] renders them as text or JSON. Only `main.rs` knows about the command line.

pub mod diagnostics;
pub mod discover;
pub mod eval;
pub mod index;
pub mod parse;
pub mod query;
pub mod report;
pub mod resolve;
pub mod syntax;
pub mod workspace;

pub use diagnostics::{Diagnostic, DiagnosticKind};
pub use workspace::{Workspace, WorkspaceOptions};

/// Stack of every thread that evaluates or resolves: deep but legal Python (long `elif` chains,
/// nested calls) recurses.
pub const STACK_SIZE: usize = 256 * 1024 * 1024;
