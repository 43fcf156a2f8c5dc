//! Stage 6: rendering answers. Every answer is plain data; each format is one renderer.
//! Architecture invariant: nothing before this stage formats text for people.

pub mod json;
pub mod text;
