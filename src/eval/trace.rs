//! What the evaluator records as it goes: application sites of the traced value, the hops the
//! value took to get there, bounds that were hit, and what could not be resolved.

use super::cond::Cond;
use super::value::{HopId, Loc};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// `x * v`, `v * x`, `torch.mul(x, v)`, `x.mul(v)`.
    Mul,
    /// `x *= v`, `x.mul_(v)`.
    MulInPlace,
    /// `x / v`, `x.div(v)`, `x /= v`, `x * (1 / v)`.
    Div,
    /// `alpha=v` in `add`/`add_`/`addmm`-like calls: the added operand is scaled.
    Alpha,
    /// The value is passed to a callee outside the tree that applies it.
    Delegated,
}

/// One place where the traced value (or a value derived from it) scales data.
#[derive(Clone, Debug)]
pub struct SiteRecord {
    pub loc: Loc,
    pub kind: SiteKind,
    /// +1 multiplies, -1 divides (times the exponent of the scalar used).
    pub delta: i32,
    /// The path condition under which the site ran.
    pub cond: Cond,
    /// How the traced value got here.
    pub chain: Vec<HopId>,
    /// For delegated sites: the callee, and what the kernel model says.
    pub callee: Option<String>,
    pub note: Option<String>,
    /// Only ever met scaling an unknown number (`shared_output *= 1.0 / factor` where
    /// `shared_output` is a symbol): the application itself where that number is data; where it
    /// is a scalar later applied to data, the place it is applied is the site instead.
    pub on_number: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HopKind {
    /// Where the traced value was read (`config.routed_scaling_factor`).
    Origin,
    /// Passed as an argument to a parameter.
    Argument,
    /// Stored into an attribute.
    Store,
    /// Returned from a function.
    Return,
}

#[derive(Clone, Debug)]
pub struct HopRecord {
    pub loc: Loc,
    pub kind: HopKind,
    /// What received it (`HashTopK.__init__(routed_scaling_factor=...)`, `self.routed_scaling_factor`).
    pub label: String,
}

/// What took the scale off data scaled as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalizer {
    /// A normalization layer: `RMSNorm(v * x) == RMSNorm(x)`.
    Layer,
    /// Data divided by a sum or norm of itself: `(v * w) / (v * w).sum(-1) == w / w.sum(-1)`.
    OwnSum,
    /// A non-linear function of the data (`softmax`, `sigmoid`, `exp`): no multiple of it.
    NonLinear,
}

impl Normalizer {
    pub fn why(self) -> &'static str {
        match self {
            Normalizer::Layer => "`RMSNorm(v * x) == RMSNorm(x)`: a norm takes the scale off data scaled as a whole",
            Normalizer::OwnSum => {
                "`(v * w) / (v * w).sum() == w / w.sum()`: dividing data by a sum or norm of itself takes the scale off data scaled as a whole"
            }
            Normalizer::NonLinear => {
                "`softmax(v * x)` is no multiple of `softmax(x)`: a non-linear function (softmax, sigmoid, tanh, exp, log) of scaled data uses the value there (a temperature) and takes its scale off"
            }
        }
    }
}

/// A bound the evaluation hit; the affected answers are incomplete.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoundHit {
    pub loc: Option<Loc>,
    pub what: String,
}

/// The traced value handed to a parameter of a function of the tree that never reads it:
/// whatever the function does, it does not apply the value (an absence that explains a NEVER).
#[derive(Clone, Debug)]
pub struct UnusedHandover {
    /// The call.
    pub loc: Loc,
    /// The function called, by its qualified name, and where it is defined.
    pub callee: String,
    pub def: Loc,
    pub param: String,
    /// Where it happened (absolute).
    pub when: super::cond::Cond,
}

/// Something the evaluator could not pin down that may matter for the answer.
#[derive(Clone, Debug)]
pub struct Blocker {
    pub loc: Loc,
    pub what: String,
    /// Where it was met (absolute): one met only in configurations that raise is not reported.
    pub when: super::cond::Cond,
}
