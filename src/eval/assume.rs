//! What `--assume NAME=VALUE` says, and what an assumed value makes of a test of it.

use super::cond::AtomKey;
use crate::index::ClassId;
use crate::syntax::Constant;

/// A `--assume NAME=VALUE`.
#[derive(Clone, Debug)]
pub struct Assume {
    pub name: String,
    pub value: AssumedValue,
    /// Whether it matched anything (reported when it did not).
    pub used: std::cell::Cell<bool>,
    /// The `--platform` it stands for a part of, if it is not the user's own.
    pub from_platform: Option<super::platform::Platform>,
}

#[derive(Clone, Debug)]
pub enum AssumedValue {
    Const(Constant),
    Class(ClassId),
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
