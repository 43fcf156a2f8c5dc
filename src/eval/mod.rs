//! The trace evaluator: how many times a value is applied on a forward path, per
//! configuration. It builds the entry object as its `__init__` would and evaluates the entry
//! method abstractly (see ARCHITECTURE.md, "The evaluator").
//!
//! Architecture invariant: the evaluator never prints; it returns a [`report::TraceReport`].

mod assume;
mod builtins;
mod calls;
pub mod cond;
mod contexts;
mod custom_ops;
mod device;
mod exprs;
mod generators;
mod globals;
mod interp;
mod iterations;
pub mod kernels;
mod keyed_caches;
mod lists;
mod loading;
mod modules;
mod ops;
mod platform;
mod pointers;
mod registry;
mod relevance;
pub mod report;
pub mod split;
mod stmts;
mod summary;
pub mod trace;
pub mod value;

pub use interp::{Assume, AssumedValue, MAX_NODES, MAX_STEPS};
pub use platform::Platform;
pub use report::{TraceOptions, TraceReport};
/// A trace as the command runs it: answered case by case where a bound stops it.
pub use split::run;
pub use value::MAX_ALTERNATIVES;
