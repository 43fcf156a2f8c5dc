//! What `--assume NAME=VALUE` says, and what an assumed value makes of a test of it.

use super::cond::AtomKey;
use crate::index::ClassId;
use crate::syntax::Constant;

/// A `--assume NAME=VALUE`, or one case of a split (see `split`).
#[derive(Clone, Debug)]
pub struct Assume {
    pub name: String,
    pub value: AssumedValue,
    /// Whether it matched anything (reported when it did not).
    pub used: std::cell::Cell<bool>,
    /// The `--platform` it stands for a part of, if it is not the user's own.
    pub from_platform: Option<super::platform::Platform>,
}

impl Assume {
    pub fn new(name: impl Into<String>, value: AssumedValue) -> Self {
        Assume { name: name.into(), value, used: std::cell::Cell::new(false), from_platform: None }
    }
}

#[derive(Clone, Debug)]
pub enum AssumedValue {
    Const(Constant),
    Class(ClassId),
    /// A value unequal to each of these constants: the case a split leaves after the values
    /// it names (`get_moe_a2a_backend()` none of those the code was seen to test). Its other
    /// tests (equality with other constants, truthiness, order) stay free.
    NoneOf(Vec<Constant>),
}

impl std::fmt::Display for AssumedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AssumedValue::Const(c) => write!(f, "{c}"),
            AssumedValue::Class(_) => write!(f, "(a class)"),
            AssumedValue::NoneOf(values) => {
                let values: Vec<String> = values.iter().map(|c| c.to_string()).collect();
                write!(f, "none of {}", values.join(", "))
            }
        }
    }
}

/// Whether an assumed constant is the one a test compares with. A value given on the command
/// line may be written bare where the code compares a string (`SGLANG_CUTLASS_MOE=1` against
/// `== "1"`: environment values are strings), or quoted where it compares a number.
pub fn assumed_equals(assumed: &Constant, expected: &Constant) -> bool {
    super::exprs::consts_equal(assumed, expected)
        || match (assumed, expected) {
            (Constant::Str(a), b) if !matches!(b, Constant::Str(_)) => *a == b.to_string(),
            (a, Constant::Str(b)) if !matches!(a, Constant::Str(_)) => a.to_string() == *b,
            _ => false,
        }
}

/// What an assumed value says about an atom.
pub fn assumed_truth(key: &AtomKey, value: &AssumedValue) -> Option<bool> {
    match (key, value) {
        (AtomKey::Truthy(_) | AtomKey::Test(_), AssumedValue::Const(c)) => Some(super::cond::constant_truthy(c)),
        (AtomKey::Equals(_, expected), AssumedValue::Const(c)) => Some(assumed_equals(c, expected)),
        (AtomKey::Equals(_, expected), AssumedValue::NoneOf(listed)) => {
            listed.iter().any(|c| assumed_equals(c, expected)).then_some(false)
        }
        (AtomKey::IsClass(_, class), AssumedValue::Class(assumed)) => Some(class == assumed),
        // The value assumed: whether it is above the bound.
        (AtomKey::Above { bits, strict, .. }, AssumedValue::Const(c)) => {
            let v = super::cond::numeric(c)?;
            let bound = f64::from_bits(*bits);
            Some(if *strict { v > bound } else { v >= bound })
        }
        _ => None,
    }
}
