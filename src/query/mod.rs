//! Stage 5: queries — the structural questions (instances, bindings, hierarchy, refs), each a
//! pure function from the index and resolver to an answer that [`crate::report`] renders.

pub mod args;
pub mod bindings;
pub mod common;
pub mod hierarchy;
pub mod instances;
pub mod origin;
pub mod refs;
pub mod returns;
pub mod stats;
pub mod target;
pub mod walk;
