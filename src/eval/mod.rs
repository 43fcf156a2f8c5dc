//! The trace evaluator.
