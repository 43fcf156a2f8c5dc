//! Conditions over atoms, as binary decision diagrams: canonical, cheap to test for
//! infeasibility, and printable as a minimal sum of products.
//!
//! Glossary:
//! - *atom*: one unknown fact the evaluator met, such as `_use_aiter`, `config.model_type ==
//!   "deepseek_v41"` or `quant_method is ModelOptNvFp4FusedMoEMethod`. Atoms are hash-consed by
//!   what they are about (the symbol and the test), so the same fact met through different
//!   attributes and parameters is one atom — the identity that proves correlated branches.
//! - *constraint*: a fact linking atoms that always holds (a value equals at most one constant;
//!   an object has exactly one class). Feasibility checks and the final table use them.

use std::rc::Rc;

use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};
use rustc_hash::FxHashMap;

use super::value::SymId;
use crate::index::ClassId;
use crate::syntax::Constant;

/// Atoms one trace may create; past this the trace reports the bound.
pub const MAX_ATOMS: usize = 2000;

/// A condition: a boolean function of atoms.
#[derive(Clone, Debug)]
pub struct Cond(Rc<Bdd>);

impl Cond {
    pub fn bdd(&self) -> &Bdd {
        &self.0
    }

    pub fn is_false(&self) -> bool {
        self.0.is_false()
    }

    pub fn is_true(&self) -> bool {
        self.0.is_true()
    }

    pub fn and(&self, other: &Cond) -> Cond {
        if self.is_true() || other.is_false() {
            return other.clone();
        }
        if other.is_true() || self.is_false() {
            return self.clone();
        }
        Cond(Rc::new(self.0.and(&other.0)))
    }

    pub fn or(&self, other: &Cond) -> Cond {
        if self.is_false() || other.is_true() {
            return other.clone();
        }
        if other.is_false() || self.is_true() {
            return self.clone();
        }
        Cond(Rc::new(self.0.or(&other.0)))
    }

    pub fn not(&self) -> Cond {
        Cond(Rc::new(self.0.not()))
    }

    /// Same function (BDDs over one variable order are canonical up to node order).
    pub fn same(&self, other: &Cond) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0.iff(&other.0).is_true()
    }
}

/// What an atom says.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomKey {
    /// The symbol's value is truthy.
    Truthy(SymId),
    /// The symbol's value equals a constant.
    Equals(SymId, Constant),
    /// The (unknown) object's class is exactly this one.
    IsClass(SymId, ClassId),
    /// Any other test, by its text and where it was met.
    Test(String),
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub key: AtomKey,
    /// The test as evaluated (`os.environ.get("FAST") == "1"`).
    pub display: String,
    /// The module variable that holds it, when there is one (`_use_fast`).
    pub alias: Option<String>,
}

impl Atom {
    /// As the output prints it (and `--assume` names it).
    pub fn name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.display)
    }
}

pub struct Conds {
    vars: BddVariableSet,
    atoms: Vec<Atom>,
    by_key: FxHashMap<AtomKey, usize>,
    constraints: Bdd,
    tt: Cond,
    ff: Cond,
    /// Atoms that could not be created because of [`MAX_ATOMS`].
    pub overflowed: bool,
}

impl Default for Conds {
    fn default() -> Self {
        let vars = BddVariableSet::new_anonymous(MAX_ATOMS as u16);
        let tt = Cond(Rc::new(vars.mk_true()));
        let ff = Cond(Rc::new(vars.mk_false()));
        let constraints = vars.mk_true();
        Conds { vars, atoms: Vec::new(), by_key: FxHashMap::default(), constraints, tt, ff, overflowed: false }
    }
}

impl Conds {
    pub fn truth(&self) -> Cond {
        self.tt.clone()
    }

    pub fn falsity(&self) -> Cond {
        self.ff.clone()
    }

    pub fn constant(&self, value: bool) -> Cond {
        if value { self.truth() } else { self.falsity() }
    }

    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    /// The condition "atom holds", creating the atom on first use.
    pub fn atom(&mut self, key: AtomKey, display: impl FnOnce() -> String) -> Cond {
        if let Some(&i) = self.by_key.get(&key) {
            return Cond(Rc::new(self.vars.mk_var(BddVariable::from_index(i))));
        }
        if self.atoms.len() >= MAX_ATOMS {
            self.overflowed = true;
            // Past the bound the fact is treated as unknown both ways: a fresh, unconstrained
            // condition is not available, so the trace is marked incomplete instead.
            return self.truth();
        }
        let index = self.atoms.len();
        let var = self.vars.mk_var(BddVariable::from_index(index));
        // A value equals at most one constant; an object has exactly one class.
        for (other_key, &other) in &self.by_key {
            let exclusive = match (&key, other_key) {
                (AtomKey::Equals(a, x), AtomKey::Equals(b, y)) => a == b && x != y,
                (AtomKey::IsClass(a, x), AtomKey::IsClass(b, y)) => a == b && x != y,
                _ => false,
            };
            if exclusive {
                let both = var.and(&self.vars.mk_var(BddVariable::from_index(other)));
                self.constraints = self.constraints.and(&both.not());
            }
        }
        // `x == c` for a falsy constant makes `x` falsy, for a truthy one truthy.
        if let AtomKey::Equals(sym, c) = &key {
            if let Some(&truthy) = self.by_key.get(&AtomKey::Truthy(*sym)) {
                let t = self.vars.mk_var(BddVariable::from_index(truthy));
                let implied = if constant_truthy(c) { t } else { t.not() };
                self.constraints = self.constraints.and(&var.imp(&implied));
            }
        }
        if let AtomKey::Truthy(sym) = &key {
            for (other_key, &other) in &self.by_key {
                if let AtomKey::Equals(s, c) = other_key {
                    if s == sym {
                        let eq = self.vars.mk_var(BddVariable::from_index(other));
                        let implied = if constant_truthy(c) { var.clone() } else { var.not() };
                        self.constraints = self.constraints.and(&eq.imp(&implied));
                    }
                }
            }
        }
        self.atoms.push(Atom { key: key.clone(), display: display(), alias: None });

        self.by_key.insert(key, index);
        Cond(Rc::new(var))
    }

    /// Adds "exactly one of these holds" (for an object whose class is one of several).
    pub fn exactly_one(&mut self, conds: &[Cond]) {
        let mut any = self.vars.mk_false();
        for c in conds {
            any = any.or(c.bdd());
        }
        self.constraints = self.constraints.and(&any);
    }

    /// Whether `cond` can hold, given the constraints.
    pub fn feasible(&self, cond: &Cond) -> bool {
        if cond.is_false() {
            return false;
        }
        if cond.is_true() {
            return true;
        }
        !cond.bdd().and(&self.constraints).is_false()
    }

    /// `cond` restricted to what the constraints allow (for display).
    pub fn within_constraints(&self, cond: &Cond) -> Cond {
        Cond(Rc::new(cond.bdd().and(&self.constraints)))
    }

    /// The atoms `cond` depends on.
    pub fn support(&self, cond: &Cond) -> Vec<usize> {
        let mut out: Vec<usize> = cond.bdd().support_set().into_iter().map(|v| v.to_index()).collect();
        out.sort();
        out
    }

    /// `cond` as a minimal sum of products: each product is a list of (atom, holds). Literals
    /// the rest of their product implies (given the constraints) are left out:
    /// `x == "a" and not (x == "b")` prints as `x == "a"`.
    pub fn products(&self, cond: &Cond) -> Vec<Vec<(usize, bool)>> {
        let mut out: Vec<Vec<(usize, bool)>> = cond
            .bdd()
            .to_optimized_dnf()
            .into_iter()
            .map(|clause| {
                let mut lits: Vec<(usize, bool)> =
                    clause.to_values().into_iter().map(|(v, b)| (v.to_index(), b)).collect();
                lits.sort();
                let mut i = 0;
                while i < lits.len() {
                    let mut rest = self.constraints.clone();
                    for (j, &(atom, holds)) in lits.iter().enumerate() {
                        if j != i {
                            rest = rest.and(self.literal_cond(atom, holds).bdd());
                        }
                    }
                    let (atom, holds) = lits[i];
                    let implied = rest.and(self.literal_cond(atom, !holds).bdd()).is_false();
                    if implied && lits.len() > 1 {
                        lits.remove(i);
                    } else {
                        i += 1;
                    }
                }
                lits
            })
            .filter(|lits| !lits.is_empty())
            .collect();
        // Expand each product against the constraints (drop a literal when the product without
        // it still lies inside `cond` wherever the constraints hold), then drop products the
        // others cover.
        let outside = self.constraints.and(&cond.bdd().not());
        for lits in out.iter_mut() {
            let mut i = 0;
            while i < lits.len() && lits.len() > 1 {
                let mut cube = outside.clone();
                for (j, &(atom, holds)) in lits.iter().enumerate() {
                    if j != i {
                        cube = cube.and(self.literal_cond(atom, holds).bdd());
                    }
                }
                if cube.is_false() {
                    lits.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        out.sort();
        out.dedup();
        let cube_of = |lits: &[(usize, bool)]| {
            let mut cube = self.constraints.clone();
            for &(atom, holds) in lits {
                cube = cube.and(self.literal_cond(atom, holds).bdd());
            }
            cube
        };
        let mut i = 0;
        while i < out.len() && out.len() > 1 {
            let mut others = self.vars.mk_false();
            for (j, lits) in out.iter().enumerate() {
                if j != i {
                    others = others.or(&cube_of(lits));
                }
            }
            if cube_of(&out[i]).and(&others.not()).is_false() {
                out.remove(i);
            } else {
                i += 1;
            }
        }
        out
    }

    /// Names an atom after the variable that holds it (`_use_aiter` for
    /// `get_bool_env_var("SGLANG_USE_AITER") and _is_hip`); the test stays as its definition.
    pub fn alias(&mut self, atom: usize, name: &str) {
        let entry = &mut self.atoms[atom];
        if entry.alias.is_none() {
            entry.alias = Some(name.to_string());
        }
    }

    /// Fixes an atom's value (an assumption): the constraints now require it.
    pub fn fix(&mut self, atom: usize, holds: bool) {
        let lit = self.literal_cond(atom, holds);
        self.constraints = self.constraints.and(lit.bdd());
    }

    /// The only atom `cond` is (`Some((atom, true))`) or negates (`Some((atom, false))`).
    pub fn as_literal(&self, cond: &Cond) -> Option<(usize, bool)> {
        let support = self.support(cond);
        let [atom] = support.as_slice() else { return None };
        let positive = self.literal_cond(*atom, true);
        if cond.same(&positive) {
            Some((*atom, true))
        } else if cond.same(&positive.not()) {
            Some((*atom, false))
        } else {
            None
        }
    }

    /// Text of a condition, e.g. `_use_aiter and not (config.hash)`; `always` / `never`.
    pub fn render(&self, cond: &Cond) -> String {
        if cond.is_true() {
            return "always".into();
        }
        if !self.feasible(cond) {
            return "never".into();
        }
        let products = self.products(cond);
        let rendered: Vec<String> = products
            .iter()
            .map(|lits| lits.iter().map(|&(atom, holds)| self.literal(atom, holds)).collect::<Vec<_>>().join(" and "))
            .collect();
        if rendered.len() == 1 {
            rendered[0].clone()
        } else {
            rendered
                .iter()
                .map(|r| if r.contains(" and ") { format!("({r})") } else { r.clone() })
                .collect::<Vec<_>>()
                .join(" or ")
        }
    }

    /// One literal: the atom's text, or its negation.
    pub fn literal(&self, atom: usize, holds: bool) -> String {
        let display = self.atoms[atom].name();
        if holds { display.to_string() } else { crate::resolve::negate(display) }
    }

    /// The condition that atom `index` has value `holds`.
    pub fn literal_cond(&self, index: usize, holds: bool) -> Cond {
        let var = self.vars.mk_var(BddVariable::from_index(index));
        Cond(Rc::new(if holds { var } else { var.not() }))
    }
}

/// Python truthiness of a constant.
pub fn constant_truthy(c: &Constant) -> bool {
    match c {
        Constant::None => false,
        Constant::Bool(b) => *b,
        Constant::Int(i) => *i != 0,
        Constant::Float(x) => *x != 0.0,
        Constant::Str(s) => !s.is_empty(),
    }
}
