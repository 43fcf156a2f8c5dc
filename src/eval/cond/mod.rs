//! Conditions over atoms, as reduced ordered binary decision diagrams: canonical (two
//! conditions are the same function exactly when they are the same edge), cheap to test for
//! infeasibility, and printable as a small sum of products.
//!
//! Glossary:
//! - *atom*: one unknown fact the evaluator met, such as `_use_aiter`, `config.model_type ==
//!   "deepseek_v41"` or `quant_method is ModelOptNvFp4FusedMoEMethod`. Atoms are hash-consed by
//!   what they are about (the symbol and the test), so the same fact met through different
//!   attributes and parameters is one atom — the identity that proves correlated branches.
//! - *constraint*: a fact linking atoms that always holds (a value equals at most one constant;
//!   an object has exactly one class; an `--assume`d value). Feasibility checks use them.
//!
//! Why not a BDD crate: the evaluator performs millions of tiny operations on conditions that
//! share most of their structure. That needs one node table shared by all conditions and a
//! cache of operation results (as CUDD and Sylvan have); the crates that build here either
//! copy every result into a fresh node vector (biodivine-lib-bdd, fast for big single
//! diagrams, ~50x slower here) or bring a multi-threaded manager whose API does not fit a
//! single-threaded evaluator. `table.rs` is that table and cache, nothing more; this module
//! is what conditions mean to the evaluator (atoms, constraints, printing).
//!
//! The table lives in a thread-local: conditions are plain `Copy` ids, combined without
//! passing a manager around. One trace runs at a time per thread; [`Conds::default`] starts a
//! fresh table.

use std::cell::RefCell;

use rustc_hash::{FxHashMap, FxHashSet};

use super::platform::Platform;
use super::value::{Loc, SymId};
use crate::index::ClassId;
use crate::syntax::Constant;

/// Atoms one trace may create; past this the trace reports the bound.
pub const MAX_ATOMS: usize = 4000;
/// Products a condition is printed with before the rest is elided (and said so).
pub const MAX_PRODUCTS: usize = 64;
/// A condition over at most this many atoms is printed as it stands when its minimal form
/// within the configurations that matter cannot be found.
const RAW_PRINT_MAX_ATOMS: usize = 8;
/// Conditions printed from a form simplified within the configurations that matter, or
/// reduced to their deciding atoms, are at most this large (with those configurations):
/// past it the work is a large share of the whole trace's, for a text that stays too long.
const SIMPLIFY_MAX_NODES: usize = 200_000;
/// The largest condition [`Conds::decisive`] reduces: its work grows with the product of its
/// size and that of the configurations that matter.
const DECISIVE_MAX_NODES: usize = 20_000;
/// The fewest steps one call of [`Conds::decisive`] is given while any are left.
const DECISIVE_MIN_FUEL: usize = 100_000;
/// Nodes a feasibility check's search for a path may visit before it builds the constraints
/// instead (see [`Conds::search_feasible`]).
const FEASIBLE_SEARCH_NODES: usize = 100_000;
/// Nodes an example configuration's search may visit (see `Table::constrained_cube`).
const EXAMPLE_SEARCH_NODES: usize = 50_000;

mod factor;
mod table;

use table::{ABANDONED, FALSE, TRUE, Table};

const TRUE_COND: Cond = Cond(TRUE);

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::fresh());
}

fn with<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|t| f(&mut t.borrow_mut()))
}

/// A condition: a boolean function of atoms (a node of the shared table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cond(u32);

impl Cond {
    pub const TRUE: Cond = Cond(TRUE);
    pub const FALSE: Cond = Cond(FALSE);

    pub fn is_false(&self) -> bool {
        self.0 == FALSE
    }

    pub fn is_true(&self) -> bool {
        self.0 == TRUE
    }

    /// `self and other`. When the result would be too large it is over-approximated by
    /// `self` (a weaker condition: alternatives are kept, never lost), and counted.
    pub fn and(&self, other: &Cond) -> Cond {
        Cond(with(|t| t.and_top(self.0, other.0, self.0)))
    }

    /// `self or other`; over-approximated by `true` when too large (counted).
    pub fn or(&self, other: &Cond) -> Cond {
        Cond(with(|t| t.or_top(self.0, other.0, TRUE)))
    }

    /// `not self`: free (the same node, the other way).
    pub fn not(&self) -> Cond {
        Cond(table::not(self.0))
    }

    /// A condition that agrees with `self` wherever `care` holds, usually smaller; `self`
    /// itself when computing it would be too large.
    pub fn simplify_within(&self, care: &Cond) -> Cond {
        Cond(with(|t| {
            t.refuel();
            match t.restrict(self.0, care.0) {
                ABANDONED => self.0,
                r => r,
            }
        }))
    }

    /// Whether `self and other` can hold (constraints not considered; nothing is built).
    /// Past [`table::MEET_WORK`] steps it may: `true`, counted as an approximation.
    pub fn meets(&self, other: &Cond) -> bool {
        with(|t| match t.intersects_within(self.0, other.0, table::MEET_WORK) {
            Some(meets) => meets,
            None => {
                t.approximated += 1;
                true
            }
        })
    }

    /// Same function (diagrams are canonical).
    pub fn same(&self, other: &Cond) -> bool {
        self.0 == other.0
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
    /// Any other test, by its text.
    Test(String),
    /// A test in a device kernel on what differs between its program instances (its position,
    /// data it loaded), by where it is: not a configuration (see `device.rs`).
    PerProgram(Loc),
    /// The symbol's value is above a number: `x > c` (`strict`) or `x >= c`, `c` as the bits of
    /// an `f64` (`x < c` and `x <= c` are their negations). Linked to the value's other atoms
    /// (`x > 2` implies `x > 1` and that `x` is truthy; `x == 0` rules it out).
    Above { sym: SymId, bits: u64, strict: bool },
    /// Bit `bit` of which combination of its arguments' alternatives a device kernel was
    /// handed, while it is evaluated apart from its caller's conditions (`depth`: how many such
    /// evaluations enclose it). Substituted by the real conditions when the kernel returns.
    Selector { depth: u32, bit: u32 },
}

impl AtomKey {
    /// The symbol the atom is about, when it tests one value.
    pub fn about(&self) -> Option<SymId> {
        match self {
            AtomKey::Truthy(s) | AtomKey::Equals(s, _) | AtomKey::IsClass(s, _) | AtomKey::Above { sym: s, .. } => {
                Some(*s)
            }
            AtomKey::Test(_) | AtomKey::PerProgram(_) | AtomKey::Selector { .. } => None,
        }
    }
}

/// What atom `a` (condition `va`) says of atom `b` (`vb`), both about one value, as a
/// constraint (`None`: nothing). Called both ways round.
fn linked(a: &AtomKey, va: &Cond, b: &AtomKey, vb: &Cond) -> Option<Cond> {
    let implies = |x: &Cond, y: &Cond| x.not().or(y);
    match (a, b) {
        // A value equals at most one constant; an object has at most one class.
        (AtomKey::Equals(_, x), AtomKey::Equals(_, y)) if x != y => Some(va.and(vb).not()),
        (AtomKey::IsClass(_, x), AtomKey::IsClass(_, y)) if x != y => Some(va.and(vb).not()),
        // An object of a class is not `None`; nor is a value above a number (`None > 0` raises).
        (AtomKey::IsClass(..) | AtomKey::Above { .. }, AtomKey::Equals(_, Constant::None)) => Some(va.and(vb).not()),
        // `x == c` decides whether `x` is truthy, and whether it is above a number.
        (AtomKey::Equals(_, c), AtomKey::Truthy(_)) => {
            Some(implies(va, &if constant_truthy(c) { *vb } else { vb.not() }))
        }
        (AtomKey::Equals(_, c), AtomKey::Above { bits, strict, .. }) => {
            let v = numeric(c)?;
            let bound = f64::from_bits(*bits);
            let holds = if *strict { v > bound } else { v >= bound };
            Some(implies(va, &if holds { *vb } else { vb.not() }))
        }
        // Above a larger number is above a smaller one; above 0 (or at least some positive
        // number) is truthy.
        (AtomKey::Above { bits: x, strict: sx, .. }, AtomKey::Above { bits: y, strict: sy, .. }) => {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            (x > y || (x == y && *sx && !*sy)).then(|| implies(va, vb))
        }
        (AtomKey::Above { bits, strict, .. }, AtomKey::Truthy(_)) => {
            let bound = f64::from_bits(*bits);
            (bound > 0.0 || (bound == 0.0 && *strict)).then(|| implies(va, vb))
        }
        _ => None,
    }
}

/// What atom `a` says of atom `b`, both about a count (never negative; see `Conds::counts`):
/// truthy, it is above 0. (`if num_fused_shared_experts:` in Python and a kernel's
/// `num_fused_shared_experts > 0` are then one test, not two that may disagree.)
fn count_linked(a: &AtomKey, va: &Cond, b: &AtomKey, vb: &Cond) -> Option<Cond> {
    match (a, b) {
        (AtomKey::Truthy(_), AtomKey::Above { bits, strict: true, .. }) if f64::from_bits(*bits) == 0.0 => {
            Some(va.not().or(vb))
        }
        _ => None,
    }
}

/// The group of the platform predicates (`is_cuda()`, `_is_hip`, `current_platform.is_rocm()`).
pub const PLATFORM_GROUP: SymId = SymId::MAX;

/// What one platform predicate (`a`, holding on platforms `pa`) says of another (`b`, `pb`):
/// a deployment runs on one platform, so predicates of disjoint platforms exclude each other
/// (`is_cuda()` and `_is_hip`), and one that holds on fewer platforms implies the other
/// (`is_cuda()` implies `is_cuda_alike()`); equal ones are equal (`is_hip()` and
/// `current_platform.is_rocm()`). The assumption `--platform` makes.
fn platform_link(a: &Cond, pa: &[Platform], b: &Cond, pb: &[Platform]) -> Option<Cond> {
    let implies = |x: &Cond, y: &Cond| x.not().or(y);
    let within = |x: &[Platform], y: &[Platform]| x.iter().all(|p| y.contains(p));
    match (within(pa, pb), within(pb, pa)) {
        _ if !pa.iter().any(|p| pb.contains(p)) && !(pa.is_empty() && pb.is_empty()) => Some(a.and(b).not()),
        (true, true) => Some(implies(a, b).and(&implies(b, a))),
        (true, false) => Some(implies(a, b)),
        (false, true) => Some(implies(b, a)),
        (false, false) => None,
    }
}

/// The number a constant is in an ordered comparison (`True` is 1).
pub fn numeric(c: &Constant) -> Option<f64> {
    match c {
        Constant::Int(i) => Some(*i as f64),
        Constant::Float(x) => Some(*x),
        Constant::Bool(b) => Some(f64::from(u8::from(*b))),
        Constant::None | Constant::Str(_) => None,
    }
}

/// The arguments of a device kernel evaluated apart: per feasible combination of their
/// alternatives (an argument may have no value in one), the selector cube standing for it and
/// its real condition.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub choices: Vec<(Cond, Cond)>,
    /// The selector atoms, for a quick test of whether a condition mentions them.
    pub atoms: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub key: AtomKey,
    /// The group of constraints it belongs to: the value it is about, [`PLATFORM_GROUP`] for
    /// a platform predicate (and the atoms about the same value), none for other tests.
    group: Option<SymId>,
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
    atoms: Vec<Atom>,
    by_key: FxHashMap<AtomKey, usize>,
    /// Per group of linked atoms (the atoms about one symbol, or the platform predicates), the
    /// constraint linking them: its `links` and its `choices`.
    groups: FxHashMap<SymId, Cond>,
    /// What atoms about one symbol say of each other (see `linked`), per group.
    links: FxHashMap<SymId, Cond>,
    /// Symbols that are counts (sizes, `num_*`): a whole number when not `None`, so a truthy
    /// one is above 0 (see `count_linked`).
    counts: FxHashSet<SymId>,
    /// "One of these holds" for a symbol (its possible classes, an enum's members), with
    /// whether it may be `None` instead: the classes an unknown object may be say nothing of
    /// whether code tests it for `None` first. Per group, with the symbol.
    choices: FxHashMap<SymId, Vec<(SymId, Cond, bool)>>,
    /// Symbols whose atoms are in another group than their own: a platform flag's value
    /// (`_is_hip`) is in [`PLATFORM_GROUP`].
    group_of_sym: FxHashMap<SymId, SymId>,
    /// The platform predicates met (an atom or its negation), with the platforms each holds
    /// on (see `platform_link`).
    platform_atoms: Vec<(Cond, &'static [Platform])>,
    /// Constraints on single atoms (assumptions).
    fixed: Cond,
    /// The conditions under which the evaluated code raises (`raise`, a failed `assert`). Not
    /// used while evaluating (alternatives they rule out are kept, which is safe); rows are
    /// restricted by them at the end. Kept apart rather than conjoined as they come: their
    /// conjunction is large, and rebuilding it at every raise fills the table.
    raising: Vec<Cond>,
    /// Where each raise happened, under which condition (for the report).
    raised_at: Vec<(Cond, Loc)>,
    raised_at_seen: rustc_hash::FxHashSet<(Cond, Loc)>,
    raising_seen: rustc_hash::FxHashSet<Cond>,
    /// The link keys of each raise's atoms (see [`Conds::without_raising`]), as far as computed.
    raising_links: RefCell<Vec<Vec<u64>>>,
    /// Pairs of unknown values tested equal to each other: the two values and the atom of
    /// their equality (see `relate_equal`).
    equal_pairs: Vec<(SymId, SymId, usize)>,
    /// The pairs and constants already linked.
    equal_links: FxHashSet<(usize, Constant)>,
    /// Products of sizes and their factors, each at least 1 (see `note_size_product`).
    size_products: Vec<(SymId, Vec<SymId>)>,
    /// The (product, factor) pairs already linked.
    size_product_links: FxHashSet<(SymId, SymId)>,
    /// The disjunction of each set of raises taken out (see [`Conds::without_raising_within`]).
    raised_unions: RefCell<FxHashMap<Vec<u32>, Cond>>,
    /// Atoms under which the number of applications cannot matter (the traced value equals 1,
    /// the data is empty), with why.
    vacuous: Vec<(usize, &'static str)>,
    /// Atoms that could not be created because of [`MAX_ATOMS`].
    pub overflowed: bool,
    /// For an atom of an "exactly one of these" group, the condition "this one and none of the
    /// group's atoms before it (in the diagrams' order)": the first of them that holds. The
    /// same function as the atom wherever the constraints hold, and the form that keeps
    /// diagrams small: a choice among `n` classes made before what each class then tests
    /// (`quant_config is X and X's own tests`, `or`-ed over the classes) is a diagram of size
    /// exponential in `n` over the bare atoms (ordered first, each may be true with any other),
    /// about `n * n / 2` nodes plus the tests over these with "this one and none of the others"
    /// (each choice then tests every later atom too), and a chain of `n` with the first.
    /// Choices exclude each other either way: two atoms' forms never hold together.
    one_hot: FxHashMap<usize, Cond>,
    /// The [`AtomKey::PerProgram`] atoms, by variable.
    per_program: rustc_hash::FxHashSet<u32>,
    /// Bumped when the constraints change; feasibility answers of older generations are stale.
    generation: std::cell::Cell<u32>,
    feasible_cache: RefCell<FxHashMap<u32, (u32, bool)>>,
    /// Whether the assumptions break a group of constraints, as of a generation (see
    /// [`Conds::walked_path_runs`]).
    assumptions_break_a_group: std::cell::Cell<Option<(u32, bool)>>,
}

/// Literals `(atom, holds)` as the table's `(variable, holds)`, sorted, each once; `None` when
/// an atom is asked both ways.
fn sorted_literals(lits: &[(usize, bool)]) -> Option<Vec<(u32, bool)>> {
    let mut sorted: Vec<(u32, bool)> = lits.iter().map(|&(atom, holds)| (atom as u32, holds)).collect();
    sorted.sort_unstable();
    sorted.dedup();
    (!sorted.windows(2).any(|w| w[0].0 == w[1].0)).then_some(sorted)
}

/// Why a disjunction of raises was not made: past the node budget, or too large (widened).
enum UnionStopped {
    OverBudget,
    Widened,
}

/// Frees this thread's table (the conditions of the last trace on it are no longer valid):
/// a thread that waits while other threads evaluate need not hold the nodes it made.
pub fn release_table() {
    TABLE.with(|t| *t.borrow_mut() = Table::fresh());
}

impl Default for Conds {
    /// A fresh table: conditions from an earlier trace on this thread are no longer valid.
    fn default() -> Self {
        TABLE.with(|t| *t.borrow_mut() = Table::fresh());
        Conds {
            atoms: Vec::new(),
            by_key: FxHashMap::default(),
            counts: FxHashSet::default(),
            groups: FxHashMap::default(),
            links: FxHashMap::default(),
            choices: FxHashMap::default(),
            group_of_sym: FxHashMap::default(),
            platform_atoms: Vec::new(),
            fixed: Cond(TRUE),
            raising: Vec::new(),
            raised_at: Vec::new(),
            raised_at_seen: rustc_hash::FxHashSet::default(),
            raising_seen: rustc_hash::FxHashSet::default(),
            raising_links: RefCell::default(),
            raised_unions: RefCell::default(),
            equal_pairs: Vec::new(),
            equal_links: FxHashSet::default(),
            size_products: Vec::new(),
            size_product_links: FxHashSet::default(),
            vacuous: Vec::new(),
            overflowed: false,
            one_hot: FxHashMap::default(),
            per_program: rustc_hash::FxHashSet::default(),
            generation: std::cell::Cell::new(0),
            feasible_cache: RefCell::default(),
            assumptions_break_a_group: std::cell::Cell::new(None),
        }
    }
}

impl Conds {
    pub fn truth(&self) -> Cond {
        Cond(TRUE)
    }

    pub fn falsity(&self) -> Cond {
        Cond(FALSE)
    }

    pub fn constant(&self, value: bool) -> Cond {
        if value { self.truth() } else { self.falsity() }
    }

    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    fn var(index: usize) -> Cond {
        Cond(with(|t| t.var_edge(index as u32)))
    }

    /// The condition "atom holds", creating the atom on first use.
    pub fn atom(&mut self, key: AtomKey, display: impl FnOnce() -> String) -> Cond {
        if let Some(&i) = self.by_key.get(&key) {
            return self.one_hot.get(&i).copied().unwrap_or_else(|| Self::var(i));
        }
        if self.atoms.len() >= MAX_ATOMS {
            // Past the bound a fact is not represented; the trace reports the bound and its
            // verdict cannot be ONCE.
            self.overflowed = true;
            return self.truth();
        }
        let index = self.atoms.len();
        let var = Self::var(index);
        let sym = key.about();
        if matches!(key, AtomKey::PerProgram(_)) {
            self.per_program.insert(index as u32);
        }
        let display = display();
        // The literal that holds on a set of platforms: the atom, or for "a build version is
        // None" its negation.
        let platforms = match key {
            AtomKey::Truthy(_) | AtomKey::Test(_) => {
                Platform::holds_on(&display).or_else(|| Platform::build_of(&display)).map(|p| (var, p))
            }
            AtomKey::Equals(_, Constant::None) => Platform::build_of(&display).map(|p| (var.not(), p)),
            _ => None,
        };
        let group = sym.map(|s| self.group_of(s));
        if let Some(group) = group {
            let mut links = self.links.get(&group).copied().unwrap_or(Cond(TRUE));
            if let Some(sym) = sym {
                for (other_key, &other) in &self.by_key {
                    if other_key.about() != Some(sym) {
                        continue;
                    }
                    let other_var = Self::var(other);
                    let count = self.counts.contains(&sym);
                    let links_of = [
                        linked(&key, &var, other_key, &other_var),
                        linked(other_key, &other_var, &key, &var),
                        count.then(|| count_linked(&key, &var, other_key, &other_var)).flatten(),
                        count.then(|| count_linked(other_key, &other_var, &key, &var)).flatten(),
                    ];
                    for link in links_of {
                        if let Some(link) = link {
                            links = links.and(&link);
                        }
                    }
                }
            }
            self.links.insert(group, links);
        }
        self.atoms.push(Atom { key, group, display, alias: None });
        self.by_key.insert(self.atoms[index].key.clone(), index);
        if let Some(group) = group {
            self.regroup(group);
        }
        if let Some((literal, platforms)) = platforms {
            self.join_platforms(index, literal, platforms);
        }
        if let AtomKey::Equals(sym, c) = &self.atoms[index].key {
            let (sym, c) = (*sym, c.clone());
            for pair in 0..self.equal_pairs.len() {
                let (a, b, ..) = self.equal_pairs[pair];
                if a == sym || b == sym {
                    self.link_equal_at(pair, &c);
                }
            }
        }
        if let AtomKey::Above { sym, bits, strict: true } = self.atoms[index].key
            && bits == 1.0f64.to_bits()
        {
            self.link_size_products(sym);
        }
        var
    }

    /// Notes that `product` is the product of `factors`, sizes of at least 1 each (`dp_size *
    /// pcp_size * tp_size`): a factor above 1 makes the product above 1, so "`dp_size > 1` and
    /// `dp_size * tp_size <= 1`" is no configuration.
    pub fn note_size_product(&mut self, product: SymId, factors: Vec<SymId>) {
        if self.size_products.iter().any(|(p, _)| *p == product) {
            return;
        }
        self.size_products.push((product, factors));
        self.link_size_products(product);
    }

    /// Links `factor > 1` to `product > 1` for the products `sym` takes part in, once both
    /// atoms exist (their groups of constraints become one).
    fn link_size_products(&mut self, sym: SymId) {
        let above_one = |s: SymId| AtomKey::Above { sym: s, bits: 1.0f64.to_bits(), strict: true };
        let pairs: Vec<(SymId, SymId)> = self
            .size_products
            .iter()
            .flat_map(|(p, factors)| factors.iter().map(move |f| (*p, *f)))
            .filter(|(p, f)| *p == sym || *f == sym)
            .collect();
        for (product, factor) in pairs {
            let (Some(&at_product), Some(&at_factor)) =
                (self.by_key.get(&above_one(product)), self.by_key.get(&above_one(factor)))
            else {
                continue;
            };
            if !self.size_product_links.insert((product, factor)) {
                continue;
            }
            let Some(group) = self.merge_groups(self.group_of(product), self.group_of(factor)) else { continue };
            let link = Self::var(at_factor).not().or(&Self::var(at_product));
            let links = self.links.get(&group).copied().unwrap_or(Cond(TRUE));
            self.links.insert(group, links.and(&link));
            self.regroup(group);
        }
    }

    /// Relates the atom `equal` ("`a == b`", two unknown values) to each value's equalities
    /// with constants, made so far and later: both equal to a constant, they are equal; equal,
    /// one equal to a constant is the other. The two values' groups of constraints become one
    /// when both are first tested against one constant. (An equality only one of them was
    /// tested against is not made for the other: an assumption may fix that one, and the
    /// atom would stand beside it.)
    pub fn relate_equal(&mut self, a: SymId, b: SymId, equal: &Cond) {
        let Some((atom, true)) = self.as_literal(equal) else { return };
        if self.equal_pairs.iter().any(|p| p.2 == atom) {
            return;
        }
        self.equal_pairs.push((a, b, atom));
        let pair = self.equal_pairs.len() - 1;
        for c in self.equality_constants(a) {
            self.link_equal_at(pair, &c);
        }
    }

    /// The constraints of equality pair `pair` at the constant `c`, once both values were
    /// tested against it (see `relate_equal`).
    fn link_equal_at(&mut self, pair: usize, c: &Constant) {
        let (a, b, equal) = self.equal_pairs[pair];
        let (Some(&at_a), Some(&at_b)) =
            (self.by_key.get(&AtomKey::Equals(a, c.clone())), self.by_key.get(&AtomKey::Equals(b, c.clone())))
        else {
            return;
        };
        if !self.equal_links.insert((pair, c.clone())) {
            return;
        }
        let Some(group) = self.merge_groups(self.group_of(a), self.group_of(b)) else { return };
        match self.atoms[equal].group {
            None => self.atoms[equal].group = Some(group),
            Some(g) if g == group => {}
            // (In another group already: groups share no atom.)
            Some(_) => return,
        }
        let (va, vb, ve) = (Self::var(at_a), Self::var(at_b), Self::var(equal));
        let implies = |x: &Cond, y: &Cond| x.not().or(y);
        let link = implies(&va.and(&vb), &ve).and(&implies(&ve.and(&va), &vb)).and(&implies(&ve.and(&vb), &va));
        let links = self.links.get(&group).copied().unwrap_or(Cond(TRUE));
        self.links.insert(group, links.and(&link));
        self.regroup(group);
    }

    /// Makes groups `keep` and `other` one (`keep`), their atoms, links and choices together.
    /// `None` for the platforms' group, whose atoms are linked otherwise.
    fn merge_groups(&mut self, keep: SymId, other: SymId) -> Option<SymId> {
        if keep == PLATFORM_GROUP || other == PLATFORM_GROUP {
            return None;
        }
        if keep == other {
            return Some(keep);
        }
        for atom in &mut self.atoms {
            if atom.group == Some(other) {
                atom.group = Some(keep);
            }
        }
        if let Some(links) = self.links.remove(&other) {
            let kept = self.links.get(&keep).copied().unwrap_or(Cond(TRUE));
            self.links.insert(keep, kept.and(&links));
        }
        if let Some(choices) = self.choices.remove(&other) {
            self.choices.entry(keep).or_default().extend(choices);
        }
        for group in self.group_of_sym.values_mut() {
            if *group == other {
                *group = keep;
            }
        }
        self.group_of_sym.insert(other, keep);
        self.groups.remove(&other);
        self.regroup(keep);
        Some(keep)
    }

    /// Puts atom `atom` in the platforms' group, `literal` (the atom or its negation) being
    /// the predicate that holds on `platforms`, linked to the others (see `platform_link`).
    /// An atom that is one of several about its value stays where it is: groups share no atom.
    fn join_platforms(&mut self, atom: usize, literal: Cond, platforms: &'static [Platform]) {
        let var = Self::var(atom);
        if self.platform_atoms.iter().any(|(known, _)| *known == var || *known == var.not()) {
            return;
        }
        match self.atoms[atom].group {
            // Another atom about the same value joined first (`torch.version.hip is None`,
            // then `if torch.version.hip:`).
            None | Some(PLATFORM_GROUP) => {}
            Some(group) => {
                let alone = self.atoms.iter().filter(|a| a.group == Some(group)).count() == 1;
                if !alone || self.choices.contains_key(&group) {
                    return;
                }
                self.group_of_sym.insert(group, PLATFORM_GROUP);
                self.links.remove(&group);
                self.groups.remove(&group);
            }
        }
        self.atoms[atom].group = Some(PLATFORM_GROUP);
        let mut links = self.links.get(&PLATFORM_GROUP).copied().unwrap_or(Cond(TRUE));
        for (other, other_platforms) in &self.platform_atoms {
            if let Some(link) = platform_link(&literal, platforms, other, other_platforms) {
                links = links.and(&link);
            }
        }
        self.platform_atoms.push((literal, platforms));
        self.links.insert(PLATFORM_GROUP, links);
        self.regroup(PLATFORM_GROUP);
    }

    /// The group of constraints the atoms about `sym` belong to.
    fn group_of(&self, sym: SymId) -> SymId {
        self.group_of_sym.get(&sym).copied().unwrap_or(sym)
    }

    /// Rebuilds group `group` of constraints from its links and choices.
    fn regroup(&mut self, group: SymId) {
        let mut constraint = self.links.get(&group).copied().unwrap_or(Cond(TRUE));
        for (sym, any, none_may_hold) in self.choices.get(&group).map(Vec::as_slice).unwrap_or_default() {
            let none = self.by_key.get(&AtomKey::Equals(*sym, Constant::None)).map(|&i| Self::var(i));
            constraint = constraint.and(&match none {
                Some(none) if *none_may_hold => any.or(&none),
                _ => *any,
            });
        }
        if self.groups.get(&group) != Some(&constraint) {
            self.generation.set(self.generation.get() + 1);
            self.groups.insert(group, constraint);
        }
    }

    /// Whether platform predicates met were taken to exclude each other (see
    /// `platform_link`): the answer then says so.
    pub fn platforms_linked(&self) -> bool {
        self.platform_atoms.iter().enumerate().any(|(i, (_, a))| {
            self.platform_atoms[..i].iter().any(|(_, b)| platform_link(&Cond(TRUE), a, &Cond(TRUE), b).is_some())
        })
    }

    /// Whether the atom is internal to evaluating a device kernel (a per-program test or a
    /// selector): never a configuration.
    pub fn is_internal(&self, atom: usize) -> bool {
        self.per_program.contains(&(atom as u32)) || matches!(self.atoms[atom].key, AtomKey::Selector { .. })
    }

    /// `cond` with the selectors of `selections` replaced by the real conditions they stand
    /// for. The second value is false when that grew too large and the selectors were
    /// quantified away instead (a wider condition).
    pub fn substitute(&self, cond: &Cond, selections: &[Selection]) -> (Cond, bool) {
        let mut out = *cond;
        let mut exact = true;
        for selection in selections {
            if out.0 <= TRUE {
                break;
            }
            let support = self.support(&out);
            if !selection.atoms.iter().any(|a| support.contains(a)) {
                continue;
            }
            let before = approximated();
            let mut next = self.falsity();
            for (cube, real) in &selection.choices {
                if out.meets(cube) {
                    next = next.or(&out.simplify_within(cube).and(real));
                }
            }
            if approximated() != before || self.support(&next).iter().any(|a| selection.atoms.contains(a)) {
                // A cofactor too large to take: "some choice" instead, wider.
                exact = false;
                let vars = selection.atoms.iter().map(|&a| a as u32).collect();
                next = Self::quantified(&next, &vars, true).unwrap_or(TRUE_COND);
            }
            out = next;
        }
        (out, exact)
    }

    /// `cond` with the per-program atoms quantified away: existentially ("in some program
    /// instance") or universally ("in every one"). When too large to compute, `cond` itself
    /// (the atoms stay: what the evaluator had before quantifying).
    pub fn over_programs(&self, cond: &Cond, exists: bool) -> Cond {
        if self.per_program.is_empty() || cond.0 <= TRUE {
            return *cond;
        }
        Self::quantified(cond, &self.per_program, exists).unwrap_or(*cond)
    }

    /// `cond` with the atoms `vars` quantified away, existentially or universally; `cond`
    /// itself when too large to compute.
    pub fn over_atoms(&self, cond: &Cond, vars: &rustc_hash::FxHashSet<u32>, exists: bool) -> Cond {
        if vars.is_empty() || cond.0 <= TRUE {
            return *cond;
        }
        Self::quantified(cond, vars, exists).unwrap_or(*cond)
    }

    /// `cond` with `vars` quantified away; `None` when too large.
    fn quantified(cond: &Cond, vars: &rustc_hash::FxHashSet<u32>, exists: bool) -> Option<Cond> {
        with(|t| {
            t.refuel();
            let r = t.quantify(cond.0, vars, exists, &mut FxHashMap::default());
            (r != ABANDONED).then_some(Cond(r))
        })
    }

    /// Marks `sym` as a count: a whole number, never negative, when not `None`. Called when the
    /// symbol is made, before atoms about it.
    pub fn mark_count(&mut self, sym: SymId) {
        self.counts.insert(sym);
    }

    /// Whether `sym` was marked a count (see `mark_count`).
    pub fn is_count(&self, sym: SymId) -> bool {
        self.counts.contains(&sym)
    }

    /// The constants `sym` was tested equal to so far, in the order the tests were made.
    pub fn equality_constants(&self, sym: SymId) -> Vec<Constant> {
        self.atoms
            .iter()
            .filter_map(|a| match &a.key {
                AtomKey::Equals(s, c) if *s == sym => Some(c.clone()),
                _ => None,
            })
            .collect()
    }

    /// The condition "atom `key` holds" when that atom was made (`None`: never tested).
    pub fn existing(&self, key: &AtomKey) -> Option<Cond> {
        self.by_key.get(key).map(|&i| self.one_hot.get(&i).copied().unwrap_or_else(|| Self::var(i)))
    }

    /// Adds `constraint`, a fact about the value `sym` over atoms about it, to the constraints
    /// of its group.
    pub fn constrain_about(&mut self, sym: SymId, constraint: &Cond) {
        let group = self.group_of(sym);
        let links = self.links.get(&group).copied().unwrap_or(Cond(TRUE));
        self.links.insert(group, links.and(constraint));
        self.regroup(group);
    }

    /// Adds "exactly one of these holds" (for an object whose class is one of several, an
    /// enum-typed value's member), or, when `none_may_hold`, that or "`sym` is `None`" once
    /// code tests that. From then on each of these atoms reads as the first of them that holds
    /// (see `one_hot`).
    pub fn exactly_one(&mut self, sym: SymId, conds: &[Cond], none_may_hold: bool) {
        let mut any = self.falsity();
        for c in conds {
            any = any.or(c);
        }
        self.one_hot(conds);
        let group = self.group_of(sym);
        self.choices.entry(group).or_default().push((sym, any, none_may_hold));
        self.regroup(group);
    }

    /// Atoms of which at most one holds (a constraint already in place), made together: from
    /// now on each reads as "this one and none of the group's atoms before it" (see the field
    /// `one_hot`). Atoms that already read so keep their form.
    pub fn one_hot(&mut self, conds: &[Cond]) {
        let vars: Vec<usize> =
            conds.iter().filter_map(|c| self.as_literal(c)).filter(|(_, holds)| *holds).map(|(v, _)| v).collect();
        if vars.len() != conds.len() || vars.len() < 2 {
            return;
        }
        for &var in &vars {
            if self.one_hot.contains_key(&var) {
                continue;
            }
            let mut first = Self::var(var);
            for &other in vars.iter().filter(|o| **o < var) {
                first = first.and(&Self::var(other).not());
            }
            self.one_hot.insert(var, first);
        }
    }

    /// The constraints that concern the atoms `cond` depends on.
    fn constraints_for(&self, cond: &Cond) -> Cond {
        self.fixed.and(&self.groups_for(cond))
    }

    /// The groups of constraints about the atoms `cond` depends on (assumptions left out).
    fn groups_for(&self, cond: &Cond) -> Cond {
        let mut out = self.truth();
        if self.groups.is_empty() {
            return out;
        }
        let mut seen = FxHashSet::default();
        for atom in self.support(cond) {
            if let Some((_, group)) = self.group_about(atom).filter(|(s, _)| seen.insert(*s)) {
                out = out.and(&group);
            }
        }
        out
    }

    /// The group atom `atom` belongs to (see `Atom::group`) and its constraint, if it has one.
    fn group_about(&self, atom: usize) -> Option<(SymId, Cond)> {
        let group = self.atoms[atom].group?;
        Some((group, *self.groups.get(&group)?))
    }

    /// Whether `cond` can hold, given the constraints. Groups of constraints about atoms
    /// `cond` does not mention cannot make it fail (each group is satisfiable on its own).
    pub fn feasible(&self, cond: &Cond) -> bool {
        if cond.is_false() {
            return false;
        }
        if cond.is_true() {
            return true;
        }
        let generation = self.generation.get();
        if let Some(&(seen, answer)) = self.feasible_cache.borrow().get(&cond.0) {
            if seen == generation {
                return answer;
            }
        }
        let answer = match self.search_feasible(cond) {
            Some(answer) => answer,
            None => cond.meets(&self.constraints_for(cond)),
        };
        self.feasible_cache.borrow_mut().insert(cond.0, (generation, answer));
        answer
    }

    /// [`Conds::feasible`] without building the conjunction of the constraints: a search for
    /// one path of `cond` that the assumptions and each group of constraints allow. Building
    /// that conjunction was most of the nodes of a large trace (groups over atoms far apart
    /// in the order conjoin into large diagrams), though the answer is usually found on the
    /// first path. `None` when the search took too long.
    fn search_feasible(&self, cond: &Cond) -> Option<bool> {
        if self.walked_path_runs(cond) {
            return Some(true);
        }
        self.search_path(cond, false).map(|path| path.is_some())
    }

    /// Whether the first path of `cond` met walking down (towards `true` first, then towards
    /// the atom not holding, the assumptions followed) is one some configuration follows: it
    /// keeps every group of constraints about its atoms satisfiable. Since groups share no
    /// atom, such a path extends to a configuration of them all, provided the assumptions
    /// alone break no group (checked too). Most conditions are feasible on that first path:
    /// walking it costs its length, where the search that can also prove a condition
    /// infeasible first gathers every atom of the condition and keeps a memo per node.
    /// False means only "not shown this way".
    fn walked_path_runs(&self, cond: &Cond) -> bool {
        if self.fixed.is_false() || self.assumptions_break_a_group() {
            return false;
        }
        with(|t| {
            let mut assignment = t.cube(self.fixed.0);
            let mut f = cond.0;
            let mut on_path: Vec<u32> = Vec::new();
            while f > TRUE {
                let var = t.var(f);
                let (lo, hi) = t.cofactors(f, var);
                let holds = match assignment.get(&var) {
                    Some(&holds) => holds,
                    None if hi == TRUE => true,
                    None => lo == FALSE,
                };
                f = if holds { hi } else { lo };
                assignment.insert(var, holds);
                on_path.push(var);
            }
            if f == FALSE {
                return false;
            }
            let mut checked: FxHashSet<SymId> = FxHashSet::default();
            on_path.iter().all(|&var| {
                let Some((_, group)) = self.group_about(var as usize).filter(|(s, _)| checked.insert(*s)) else {
                    return true;
                };
                t.satisfiable_under(group.0, &assignment)
            })
        })
    }

    /// Whether some group of constraints has no configuration the assumptions allow (then no
    /// condition over its atoms is feasible). Only a group about an assumed atom can be: each
    /// group is satisfiable on its own.
    fn assumptions_break_a_group(&self) -> bool {
        let generation = self.generation.get();
        if let Some((seen, broken)) = self.assumptions_break_a_group.get() {
            if seen == generation {
                return broken;
            }
        }
        let broken = with(|t| {
            let fixed = t.cube(self.fixed.0);
            let mut checked: FxHashSet<SymId> = FxHashSet::default();
            fixed.keys().any(|&var| {
                let Some((_, group)) = self.group_about(var as usize).filter(|(s, _)| checked.insert(*s)) else {
                    return false;
                };
                !t.satisfiable_under(group.0, &fixed)
            })
        });
        self.assumptions_break_a_group.set(Some((generation, broken)));
        broken
    }

    /// The search of [`Conds::search_feasible`], with the path it found: the tests along one
    /// path of `cond` that some configuration the constraints allow follows. `Some(None)` when
    /// there is none, `None` when the search took too long. With `short`, shorter paths are
    /// tried first.
    fn search_path(&self, cond: &Cond, short: bool) -> Option<Option<Vec<(u32, bool)>>> {
        if self.fixed.is_false() {
            return Some(None);
        }
        let fixed = with(|t| t.cube(self.fixed.0));
        let mut groups: Vec<u32> = Vec::new();
        let mut group_of: FxHashMap<u32, usize> = FxHashMap::default();
        let mut last_var: Vec<u32> = Vec::new();
        let mut index_of: FxHashMap<SymId, usize> = FxHashMap::default();
        if !self.groups.is_empty() {
            for atom in self.support(cond) {
                let Some((sym, group)) = self.group_about(atom) else { continue };
                let i = *index_of.entry(sym).or_insert_with(|| {
                    groups.push(group.0);
                    last_var.push(0);
                    groups.len() - 1
                });
                group_of.insert(atom as u32, i);
                last_var[i] = last_var[i].max(atom as u32);
            }
        }
        with(|t| {
            // A group the assumptions already break rules out every path.
            if groups.iter().any(|&g| !t.satisfiable_under(g, &fixed)) {
                return Some(None);
            }
            let mut states: Vec<Vec<u32>> = groups.iter().map(|&g| vec![g]).collect();
            let mut search = table::PathSearch {
                group_of: &group_of,
                last_var: &last_var,
                fixed: &fixed,
                fuel: FEASIBLE_SEARCH_NODES,
                failed: FxHashSet::default(),
                scratch: Vec::new(),
                path: Vec::new(),
                shortest: short.then(FxHashMap::default),
            };
            let found = t.consistent_path(cond.0, &mut states, &mut search)?;
            Some(found.then_some(search.path))
        })
    }

    /// `cond` restricted to what the constraints allow.
    pub fn within_constraints(&self, cond: &Cond) -> Cond {
        cond.and(&self.constraints_for(cond))
    }

    /// The atoms `cond` depends on.
    pub fn support(&self, cond: &Cond) -> Vec<usize> {
        let mut vars = Vec::new();
        with(|t| t.support(cond.0, &mut vars, &mut rustc_hash::FxHashSet::default()));
        let mut out: Vec<usize> = vars.into_iter().map(|v| v as usize).collect();
        out.sort();
        out.dedup();
        out
    }

    /// `cond` as a small sum of products: each product a list of (atom, holds), prime with
    /// respect to the constraints (a literal is dropped when the product without it still lies
    /// inside `cond` wherever the constraints hold), products the others cover removed. `None`
    /// when it has more than [`MAX_PRODUCTS`] products.
    pub fn products(&self, cond: &Cond) -> Option<Vec<Vec<(usize, bool)>>> {
        self.products_within(cond, &self.truth())
    }

    /// Like [`Conds::products`], with `care` (configurations that matter) as extra
    /// constraints: literals `care` makes redundant are dropped too.
    pub fn products_within(&self, cond: &Cond, care: &Cond) -> Option<Vec<Vec<(usize, bool)>>> {
        // Printing is no bound of the answer: an operation too large to finish makes the
        // condition "too large to print" (with an example), and is not counted.
        let before = approximated();
        let products = self.products_unbounded(cond, care, true);
        if approximated() != before {
            forget_approximations(before);
            return None;
        }
        products
    }

    /// `project`: whether to ask [`Conds::allowed_over`] rather than the constraints and
    /// `care` themselves (the same answers, faster; tests compare the two).
    fn products_unbounded(&self, cond: &Cond, care: &Cond, project: bool) -> Option<Vec<Vec<(usize, bool)>>> {
        // What is allowed is `constraints and care`; both may be large next to `cond` and its
        // products, so they are never conjoined: every question below is whether one small
        // condition meets both (a search of the three together, which builds no node).
        let constraints = self.constraints_for(cond);
        let projected = if project { self.allowed_over(cond, &constraints, care) } else { None };
        let (constraints, care) = match projected {
            Some(allowed) => (allowed, self.truth()),
            None => (constraints, *care),
        };
        let care = &care;
        let allowed = |small: &Cond| with(|t| t.intersects3(constraints.0, care.0, small.0));
        // The cubes of `cond` itself, or of a form that agrees with it where `care` holds
        // (those of `cond and care` would spell out every test of `care` as well); the
        // literals `care` makes redundant are dropped below.
        let (cond, cubes) = match with(|t| t.cubes(cond.0, MAX_PRODUCTS * 4)) {
            Some(cubes) => (*cond, cubes),
            None if size(cond) + size(care) + size(&constraints) <= SIMPLIFY_MAX_NODES => {
                let simpler = cond.simplify_within(&constraints.and(care));
                (simpler, with(|t| t.cubes(simpler.0, MAX_PRODUCTS * 4))?)
            }
            None => return None,
        };
        let cond = &cond;
        let outside = cond.not();
        if !allowed(&outside) {
            // Everywhere the constraints and `care` allow.
            return Some(vec![Vec::new()]);
        }
        // The same question of `small` and a product's literals, without conjoining them.
        let allowed_with = |small: &Cond, lits: &[(usize, bool)]| self.meets_under([constraints, *care, *small], lits);
        let mut out: Vec<Vec<(usize, bool)>> = Vec::new();
        // Drops the literals of a product that the others make redundant, from the first on.
        let prime = |lits: &mut Vec<(usize, bool)>| {
            let mut i = 0;
            while i < lits.len() && lits.len() > 1 {
                let mut without = lits.clone();
                without.remove(i);
                if allowed_with(&outside, &without) {
                    i += 1;
                } else {
                    lits.remove(i);
                }
            }
        };
        for cube in cubes {
            let mut lits: Vec<(usize, bool)> = cube.into_iter().map(|(v, b)| (v as usize, b)).collect();
            prime(&mut lits);
            // `not (x == "a") and not (x == "b")` where `x` can only be "c" or "d" there reads
            // as `x == "c"` or `x == "d"`: the equalities it implies go last, so the negations
            // go first.
            match self.implied_equalities(&lits, &|lits| allowed_with(&self.truth(), lits)).as_slice() {
                [] => {
                    lits.sort();
                    out.push(lits);
                }
                implied => {
                    for &member in implied {
                        let mut lits = lits.clone();
                        lits.push((member, true));
                        prime(&mut lits);
                        lits.sort();
                        out.push(lits);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        // Drop products covered by the others; infeasible ones first.
        out.retain(|lits| allowed_with(&self.truth(), lits));
        // (The others of each: those kept before it and all after it, each side's disjunction
        // made once rather than for every product.)
        let cubes: Vec<Cond> = out.iter().map(|lits| self.cube(lits)).collect();
        let mut after = vec![self.falsity(); cubes.len() + 1];
        for i in (0..cubes.len()).rev() {
            after[i] = after[i + 1].or(&cubes[i]);
        }
        let total = out.len();
        let mut kept: Vec<Vec<(usize, bool)>> = Vec::new();
        let mut kept_before = self.falsity();
        for (i, lits) in std::mem::take(&mut out).into_iter().enumerate() {
            let left = kept.len() + total - i;
            if left > 1 && !allowed_with(&kept_before.or(&after[i + 1]).not(), &lits) {
                continue;
            }
            kept_before = kept_before.or(&cubes[i]);
            kept.push(lits);
        }
        out = kept;
        (out.len() <= MAX_PRODUCTS).then_some(out)
    }

    /// `constraints and care` with the atoms no question of [`Conds::products_within`] asks
    /// about quantified away: those questions are whether a condition over `cond`'s atoms
    /// (and the equalities of the values they compare) meets both, and each then walks one
    /// diagram over those atoms rather than two large ones (most of printing a large report).
    /// `None` when it would be too large to build.
    fn allowed_over(&self, cond: &Cond, constraints: &Cond, care: &Cond) -> Option<Cond> {
        let asked = self.support(cond);
        let compared: Vec<SymId> = asked
            .iter()
            .filter_map(|&a| match &self.atoms[a].key {
                AtomKey::Equals(sym, _) => Some(*sym),
                _ => None,
            })
            .collect();
        let is_asked = |a: usize| {
            asked.binary_search(&a).is_ok()
                || matches!(&self.atoms[a].key, AtomKey::Equals(sym, _) if compared.contains(sym))
        };
        let mut others: FxHashSet<u32> = FxHashSet::default();
        for a in self.support(constraints).into_iter().chain(self.support(care)) {
            if !is_asked(a) {
                others.insert(a as u32);
            }
        }
        with(|t| t.and_exists(constraints.0, care.0, &others)).map(Cond)
    }

    /// The equalities of a value that a product only negates equalities of, one of which the
    /// product implies among the configurations `care`: at most as many as it negates (the
    /// positive form is then no longer), none otherwise.
    fn implied_equalities(&self, lits: &[(usize, bool)], allowed: &dyn Fn(&[(usize, bool)]) -> bool) -> Vec<usize> {
        let and_holds = |atom: usize| {
            let mut more = lits.to_vec();
            more.push((atom, true));
            more
        };
        let mut done: Vec<SymId> = Vec::new();
        for &(atom, holds) in lits {
            let AtomKey::Equals(sym, _) = &self.atoms[atom].key else { continue };
            let of_sym = |a: usize| matches!(&self.atoms[a].key, AtomKey::Equals(s, _) if s == sym);
            if holds || done.contains(sym) || lits.iter().any(|&(a, h)| h && of_sym(a)) {
                continue;
            }
            done.push(*sym);
            let negated = lits.iter().filter(|&&(a, _)| of_sym(a)).count();
            let candidates: Vec<usize> = (0..self.atoms.len())
                .filter(|&a| of_sym(a) && !lits.iter().any(|(l, _)| *l == a))
                .filter(|&a| allowed(&and_holds(a)))
                .collect();
            if candidates.is_empty() || candidates.len() > negated {
                continue;
            }
            let mut none = lits.to_vec();
            none.extend(candidates.iter().map(|&a| (a, false)));
            if !allowed(&none) {
                return candidates;
            }
        }
        Vec::new()
    }

    /// A condition that agrees with `class` wherever `care` (and the constraints) hold,
    /// over only the atoms that decide it there: an atom is left out when flipping it never
    /// takes a configuration of `care` into or out of `class`. This is what makes a row
    /// printable: the path conditions of the code that ran (which dual-stream variant, a
    /// batch-size shortcut) are not what decides how often the value is applied. Atoms are
    /// tried latest first (the deepest in the code), within `fuel` steps in all; past that the
    /// remaining atoms stay (a longer text, never a wrong one).
    pub fn decisive(&self, class: &Cond, care: &Cond, fuel: &mut usize) -> Cond {
        // Only a shorter text is at stake: an operation too large to finish is no bound of the
        // answer, and `class` itself is printed instead.
        if *fuel == 0 || size(class) > DECISIVE_MAX_NODES || size(care) > SIMPLIFY_MAX_NODES {
            return *class;
        }
        let before = approximated();
        // One condition may take at most a quarter of what is left, so that the others are
        // simplified too.
        let mut own = (*fuel / 4).max(DECISIVE_MIN_FUEL).min(*fuel);
        let given = own;
        let shown = self.decisive_unbounded(class, care, &mut own);
        *fuel -= given - own;
        if approximated() != before {
            forget_approximations(before);
            return *class;
        }
        shown
    }

    fn decisive_unbounded(&self, class: &Cond, care: &Cond, fuel: &mut usize) -> Cond {
        let care = care.and(&self.constraints_for(class));
        let inside = class.and(&care);
        let outside = class.not().and(&care);
        if inside.is_false() || outside.is_false() {
            return inside.simplify_within(&care);
        }
        let tested: rustc_hash::FxHashSet<u32> = self.support(class).into_iter().map(|a| a as u32).collect();
        // Atoms only `care` tests never decide `class`: two configurations that differ only
        // in them are in `class` alike.
        let mut free: rustc_hash::FxHashSet<u32> =
            self.support(&care).into_iter().map(|a| a as u32).filter(|a| !tested.contains(a)).collect();
        // Of two atoms that say the same within `care`, the one `class` implies holds (`x ==
        // "cutlass"`) reads better than the negation of another (`not (x == "triton")`): those
        // are tried last, so they are the ones kept.
        let mut order: Vec<(bool, u32)> =
            tested.iter().map(|&a| (!inside.meets(&self.literal_cond(a as usize, false)), a)).collect();
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let order: Vec<u32> = order.into_iter().map(|(_, a)| a).collect();
        // One memo, emptied for each atom (its answers hold for one set of free atoms only),
        // keeps its room from atom to atom.
        let mut memo = FxHashMap::default();
        for atom in order {
            free.insert(atom);
            memo.clear();
            let meets = with(|t| t.meets_modulo(inside.0, outside.0, &free, &mut memo, fuel));
            if meets != Some(false) {
                free.remove(&atom);
            }
            if meets.is_none() {
                break;
            }
        }
        let quantified = match Self::quantified(&inside, &free, true) {
            Some(q) => q,
            None => return class.simplify_within(&care),
        };
        quantified.simplify_within(&care)
    }

    /// One conjunction of literals, as short as found, under which `cond` holds among the
    /// configurations `care`: an example configuration of a condition too large to print.
    pub fn example_within(&self, cond: &Cond, care: &Cond) -> Option<Vec<(usize, bool)>> {
        // Within the constraints too: a path of the diagram may set one value equal to two
        // constants, which no configuration does. Searched rather than conjoined: the
        // conjunction of a large condition with them may be too large to build.
        // Printing is no bound of the answer (as in `products_within`): a conjunction too large
        // to build is wider, and the example may then break a constraint of `care`.
        let before = approximated();
        let constraints = self.constraints_for(cond);
        let constraints_exact = approximated() == before;
        let within = constraints.and(care);
        forget_approximations(before);
        let cube = if constraints_exact {
            with(|t| t.constrained_cube(cond.0, within.0, EXAMPLE_SEARCH_NODES))?
        } else {
            // The groups of constraints did not conjoin (over atoms far apart in the order,
            // their conjunction is large): without them the shortest path set one value equal
            // to two constants. A path the search allows group by group instead, inside
            // `care` where that conjoins (too large, the conjunction is `cond`).
            let before = approximated();
            let inside = cond.and(care);
            forget_approximations(before);
            self.search_path(&inside, true).flatten()?
        };
        // Tests of atoms `cond` does not depend on only keep the example inside `care` (which
        // the reader already knows: no raise, a factor other than 1): left out.
        let support: rustc_hash::FxHashSet<usize> = self.support(cond).into_iter().collect();
        let mut lits: Vec<(usize, bool)> =
            cube.into_iter().map(|(v, b)| (v as usize, b)).filter(|(v, _)| support.contains(v)).collect();
        // `x == "a"` says `not (x == "b")`, `is_cpu()` says `not is_rocm()`: a negation the
        // other literals of its group imply under the group's constraint is left out (one at
        // a time, so that of two negations implying each other one stays).
        let mut i = 0;
        while i < lits.len() {
            let (atom, holds) = lits[i];
            let implied = !holds
                && self.group_about(atom).is_some_and(|(group, constraint)| {
                    let mut rest = constraint;
                    for (j, &(other, other_holds)) in lits.iter().enumerate() {
                        if j != i && self.atoms[other].group == Some(group) {
                            rest = rest.and(&self.literal_cond(other, other_holds));
                        }
                    }
                    !rest.meets(&self.literal_cond(atom, true))
                });
            if implied {
                lits.remove(i);
            } else {
                i += 1;
            }
        }
        // So are those an assumption (or a value of 1, 0 or None) fixed.
        lits.retain(|&(a, holds)| self.fixed.meets(&self.literal_cond(a, !holds)));
        lits.sort();
        Some(lits)
    }

    /// Text of a condition, e.g. `_use_aiter and not config.hash`; `always` / `never`.
    pub fn render(&self, cond: &Cond) -> String {
        self.render_within(cond, &self.truth())
    }

    /// [`Conds::render`] among the configurations `care`.
    pub fn render_within(&self, cond: &Cond, care: &Cond) -> String {
        if !self.feasible(&cond.and(care)) {
            return "never".into();
        }
        self.render_products(cond, self.products_within(cond, care).as_deref())
    }

    /// The products of `cond` as it stands, none dropped for the configurations that matter:
    /// for a condition over few atoms whose minimal form [`Conds::products_within`] could not
    /// find. `None` past [`RAW_PRINT_MAX_ATOMS`] atoms or [`MAX_PRODUCTS`] products.
    pub fn raw_products(&self, cond: &Cond) -> Option<Vec<Vec<(usize, bool)>>> {
        if !(1..=RAW_PRINT_MAX_ATOMS).contains(&self.support(cond).len()) {
            return None;
        }
        let cubes = with(|t| t.cubes(cond.0, MAX_PRODUCTS))?;
        let cubes: Vec<Vec<(usize, bool)>> =
            cubes.into_iter().map(|c| c.into_iter().map(|(v, b)| (v as usize, b)).collect()).collect();
        (!cubes.is_empty() && cubes.iter().all(|c| !c.is_empty())).then_some(cubes)
    }

    /// The text of `cond` from its products as [`Conds::products_within`] gave them (`None`:
    /// too many), for callers that need both.
    pub fn render_products(&self, cond: &Cond, products: Option<&[Vec<(usize, bool)>]>) -> String {
        let Some(products) = products else {
            // Too many products within the configurations that matter, or too large an
            // operation to find them there: a condition over few atoms is written as it
            // stands (its own products, none dropped for the configurations that matter).
            if let Some(raw) = self.raw_products(cond) {
                return self.render_products(cond, Some(&raw));
            }
            // `cond` itself may have no atoms (true, where they were all over-approximated at
            // a bound).
            return match self.support(cond).len() {
                0 => "(a condition too large to print)".to_string(),
                n => format!("(a condition over {n} atoms, too large to print)"),
            };
        };
        if products.iter().any(|p| p.is_empty()) || products.is_empty() {
            return "always".into();
        }
        // Tests the products share are said once: `a and (b or c)`.
        factor::render(&factor::factor(products), &|(atom, holds)| factor::Spelling {
            text: self.literal(atom, holds),
            equality: self.equality_sides(atom),
        })
    }

    /// For an equality of a value with a constant named as such (`x == "a"`, no alias): the
    /// value's id and the two sides' texts.
    fn equality_sides(&self, atom: usize) -> Option<(u32, String, String)> {
        let entry = &self.atoms[atom];
        let AtomKey::Equals(sym, constant) = &entry.key else { return None };
        if entry.alias.is_some() {
            return None;
        }
        let constant = constant.to_string();
        let lhs = entry.display.strip_suffix(&format!(" == {constant}"))?;
        Some((*sym, lhs.to_string(), constant))
    }

    /// One literal: the atom's name, or its negation.
    pub fn literal(&self, atom: usize, holds: bool) -> String {
        let display = self.atoms[atom].name();
        if holds {
            return display.to_string();
        }
        // `not (x > 2)` reads `x <= 2`.
        if matches!(self.atoms[atom].key, AtomKey::Above { .. }) {
            for (op, flipped) in [(" >= ", " < "), (" > ", " <= ")] {
                if let Some((l, r)) = display.rsplit_once(op) {
                    return format!("{l}{flipped}{r}");
                }
            }
        }
        crate::resolve::negate(display)
    }

    /// The conjunction of literals `(atom, holds)`.
    pub fn cube(&self, lits: &[(usize, bool)]) -> Cond {
        match sorted_literals(lits) {
            Some(lits) => Cond(with(|t| t.cube_of_literals(&lits))),
            None => self.falsity(),
        }
    }

    /// Whether the three conditions and the literals `(atom, holds)` hold together somewhere
    /// (`false` when an atom is asked both ways), without building a node.
    pub fn meets_under(&self, ops: [Cond; 3], lits: &[(usize, bool)]) -> bool {
        match sorted_literals(lits) {
            Some(fixed) => with(|t| t.intersects3_under(ops.map(|c| c.0), &fixed)),
            None => false,
        }
    }

    /// The condition that atom `index` has value `holds`.
    pub fn literal_cond(&self, index: usize, holds: bool) -> Cond {
        let var = Self::var(index);
        if holds { var } else { var.not() }
    }

    /// Names an atom after the variable that holds it (`_use_aiter` for
    /// `get_bool_env_var("SGLANG_USE_AITER") and _is_hip`); the test stays as its definition.
    pub fn alias(&mut self, atom: usize, name: &str) {
        let entry = &mut self.atoms[atom];
        if entry.alias.is_none() {
            entry.alias = Some(name.to_string());
        }
        // Named as a platform flag (`_is_hip = is_hip()`, evaluated to `torch.version.hip is
        // not None`), it is that platform's predicate.
        let (name, holds) = match name.strip_prefix("not ") {
            Some(name) => (name, false),
            None => (name, true),
        };
        if let Some(platforms) = Platform::holds_on(name) {
            let var = Self::var(atom);
            self.join_platforms(atom, if holds { var } else { var.not() }, platforms);
        }
    }

    /// Records that the code raises where `cond` holds: those configurations never finish.
    pub fn raises(&mut self, cond: &Cond, loc: Loc) {
        if self.feasible(cond) {
            if self.raising_seen.insert(*cond) {
                self.raising.push(*cond);
            }
            // Summaries replay the same raises again and again.
            if self.raised_at_seen.insert((*cond, loc)) {
                self.raised_at.push((*cond, loc));
            }
        }
    }

    /// How many raising conditions were recorded so far (see `raising_since`).
    pub fn raising_count(&self) -> usize {
        self.raising.len()
    }

    /// The raising conditions recorded after the first `count`.
    pub fn raising_since(&self, count: usize) -> &[Cond] {
        &self.raising[count.min(self.raising.len())..]
    }

    /// Where the code raises, with the share of the configurations the constraints allow each
    /// place ends (atoms weighted equally; assumptions not counted), widest first, one entry
    /// per place; none where the constraints allow no configuration.
    pub fn raise_places(&self) -> Vec<(Loc, f64)> {
        /// Pairs of nodes one raise's share may visit with the constraints.
        const SHARE_PAIRS_BUDGET: usize = 200_000;
        let mut widest: FxHashMap<Loc, f64> = FxHashMap::default();
        // Assumptions are single-atom constraints: their conjunction is one path of the
        // diagram, whose atoms count with their assumed value (no node is built for them). The
        // groups of constraints are conjoined: the table may be full at the end of a large
        // evaluation, and a conjunction too large is then a wider one (a share less exact),
        // which is no bound of the answer and not counted as one.
        let before = approximated();
        let fixed = with(|t| t.cube(self.fixed.0));
        let mut memo = FxHashMap::default();
        let mut pairs = FxHashMap::default();
        for (cond, loc) in &self.raised_at {
            // Among the assignments the constraints allow: a class chosen among four is a
            // quarter of them, whatever the atoms spelling the choice.
            let constraints = self.groups_for(cond);
            let share = with(|t| {
                let allowed = t.share(constraints.0, &fixed, &mut memo);
                let mut budget = SHARE_PAIRS_BUDGET;
                match t.share_both(cond.0, constraints.0, &fixed, &mut pairs, &mut memo, &mut budget) {
                    Some(both) if allowed > 0.0 => both / allowed,
                    Some(_) => 0.0,
                    // Past the budget, the share among all assignments (the constraints not
                    // taken into account): a share is what the list is sorted by, not an answer.
                    None => t.share(cond.0, &fixed, &mut memo),
                }
            });
            // A raise the constraints exclude (an assumption made later than it) is no place
            // where configurations end.
            if share == 0.0 && !self.feasible(cond) {
                continue;
            }
            let entry = widest.entry(*loc).or_insert(0.0);
            *entry = entry.max(share);
        }
        forget_approximations(before);
        let mut places: Vec<(Loc, f64)> = widest.into_iter().collect();
        places.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        places
    }

    /// Marks an atom under which scaling cannot matter.
    pub fn mark_vacuous(&mut self, atom: usize, why: &'static str) {
        if !self.vacuous.iter().any(|(a, _)| *a == atom) {
            self.vacuous.push((atom, why));
        }
    }

    /// The atoms under which scaling cannot matter, with why.
    pub fn vacuous(&self) -> &[(usize, &'static str)] {
        &self.vacuous
    }

    /// The configurations that run without raising, as far as `budget` new nodes allow: the
    /// conjunction of every raise's negation can be far larger than any one row (many raises
    /// over unrelated atoms), and filling the table would leave the report's own operations
    /// nothing to work with. Past the budget the remaining raises are left out, so the answer is
    /// wider than the running configurations (safe where it is used as the configurations
    /// that matter: less is simplified away, nothing wrongly). The bool says it is exact.
    pub fn runs_within(&self, budget: usize) -> (Cond, bool) {
        let start = node_count();
        let before = approximated();
        let mut runs = self.truth();
        for cond in &self.raising {
            if node_count().saturating_sub(start) > budget {
                return (runs, false);
            }
            runs = runs.and(&cond.not());
        }
        (runs, approximated() == before)
    }

    /// `cond` without the configurations that raise, as far as they bear on `cond`'s atoms
    /// (cheaper than `cond.and(&runs())`: each step stays within `cond`).
    ///
    /// Only the raises linked to `cond` are taken out: those testing one of its atoms (or an
    /// atom about the same value, which the constraints link to them), then those linked to
    /// what was taken out, and so on. A raise about unrelated atoms removes no configuration of
    /// `cond`'s atoms (some setting of its own atoms avoids it), and conjoining it only made the
    /// condition larger: on a large trace, a thousand raises over a thousand atoms filled the
    /// node table. (Unrelated raises that together cover every setting of their atoms would
    /// leave nothing running at all; such code never finishes, and is not what a trace meets.)
    pub fn without_raising(&self, cond: &Cond) -> Cond {
        self.without_raising_within(cond, usize::MAX).expect("no budget")
    }

    /// [`Conds::without_raising`] within `budget` new nodes: `None` past it (the nodes made
    /// until then stay in the table).
    pub fn without_raising_within(&self, cond: &Cond, budget: usize) -> Option<Cond> {
        let start = node_count();
        let over = || node_count().saturating_sub(start) > budget;
        let taken = self.raises_linked_to(cond);
        if taken.is_empty() {
            return Some(*cond);
        }
        // The raises taken out are gathered in one disjunction and conjoined once: conjoining
        // them one by one made a new diagram of `cond`'s size for each (most of a large
        // report's nodes). Rows of one report take out sets of raises that mostly overlap:
        // the disjunction is made over a fixed binary split of the raises, each part's kept
        // (a running disjunction rebuilt its growing diagram at every raise).
        let span = self.raising.len().next_power_of_two() as u32;
        let union = match self.union_of_raises(&taken, 0, span, &over) {
            Ok(union) => Some(union),
            Err(UnionStopped::OverBudget) => return None,
            Err(UnionStopped::Widened) => None,
        };
        if let Some(union) = union {
            return Some(cond.and(&union.not()));
        }
        // Where the disjunction is too large, they are conjoined one by one.
        let mut out = *cond;
        for &i in &taken {
            if over() {
                return None;
            }
            out = out.and(&self.raising[i as usize].not());
            if out.is_false() {
                break;
            }
        }
        Some(out)
    }

    /// The disjunction of the raises `part` (sorted), all within `[lo, lo + span)`, made from
    /// the disjunctions of its halves' raises, each kept by the set it is of.
    fn union_of_raises(&self, part: &[u32], lo: u32, span: u32, over: &dyn Fn() -> bool) -> Result<Cond, UnionStopped> {
        match part {
            [] => return Ok(self.falsity()),
            [one] => return Ok(self.raising[*one as usize]),
            _ => {}
        }
        if let Some(union) = self.raised_unions.borrow().get(part) {
            return Ok(*union);
        }
        let half = span / 2;
        let split = part.partition_point(|&i| i < lo + half);
        let left = self.union_of_raises(&part[..split], lo, half, over)?;
        let right = self.union_of_raises(&part[split..], lo + half, half, over)?;
        if over() {
            return Err(UnionStopped::OverBudget);
        }
        let before = approximated();
        let union = left.or(&right);
        if approximated() != before {
            forget_approximations(before);
            return Err(UnionStopped::Widened);
        }
        self.raised_unions.borrow_mut().insert(part.to_vec(), union);
        Ok(union)
    }

    /// The raises linked to `cond` (see [`Conds::without_raising`]) that meet it, in order:
    /// those about its atoms, then those linked to what was taken, until none is added.
    fn raises_linked_to(&self, cond: &Cond) -> Vec<u32> {
        let mut links: FxHashSet<u64> = FxHashSet::default();
        self.add_links(cond, &mut links);
        let mut supports = self.raising_links.borrow_mut();
        while supports.len() < self.raising.len() {
            let mut raise_links = FxHashSet::default();
            self.add_links(&self.raising[supports.len()], &mut raise_links);
            let mut raise_links: Vec<u64> = raise_links.into_iter().collect();
            raise_links.sort_unstable();
            supports.push(raise_links);
        }
        let mut pending: Vec<u32> = (0..self.raising.len() as u32).collect();
        let mut taken = Vec::new();
        loop {
            let mut linked_more = false;
            pending.retain(|&i| {
                let raise_links = &supports[i as usize];
                // A raise about no atom raises everywhere.
                if !raise_links.is_empty() && !raise_links.iter().any(|l| links.contains(l)) {
                    return true;
                }
                // Most raises are about other configurations: testing that costs no node.
                if cond.meets(&self.raising[i as usize]) {
                    linked_more |= raise_links.iter().any(|l| !links.contains(l));
                    links.extend(raise_links.iter().copied());
                    taken.push(i);
                }
                false
            });
            if !linked_more {
                break;
            }
        }
        taken.sort_unstable();
        taken
    }

    /// The link keys of `cond`'s atoms: an atom about a value is linked to every atom about
    /// that value (the constraints relate them); any other atom only to itself.
    fn add_links(&self, cond: &Cond, links: &mut FxHashSet<u64>) {
        for atom in self.support(cond) {
            links.insert(match self.atoms[atom].group {
                Some(group) => 1 << 63 | group as u64,
                None => atom as u64,
            });
        }
    }

    /// Fixes an atom's value (an assumption): the constraints now require it.
    pub fn fix(&mut self, atom: usize, holds: bool) {
        let lit = self.literal_cond(atom, holds);
        self.fixed = self.fixed.and(&lit);
        self.generation.set(self.generation.get() + 1);
    }

    /// The only atom `cond` is (`Some((atom, true))`) or negates (`Some((atom, false))`).
    pub fn as_literal(&self, cond: &Cond) -> Option<(usize, bool)> {
        let support = self.support(cond);
        let [atom] = support.as_slice() else { return None };
        if cond.same(&self.literal_cond(*atom, true)) {
            Some((*atom, true))
        } else if cond.same(&self.literal_cond(*atom, false)) {
            Some((*atom, false))
        } else {
            None
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A choice among `n` made before what each choice then tests: read as "the first that
    /// holds", the `or` over the choices is one chain through the choices (a node per choice
    /// and its test), not a chain per choice nor a node per subset.
    #[test]
    fn a_choice_made_first_keeps_its_diagrams_small() {
        let mut conds = Conds::default();
        let n = 20;
        let choice =
            |conds: &mut Conds, i: i64| conds.atom(AtomKey::Equals(0, Constant::Int(i)), || format!("x == {i}"));
        let atoms: Vec<Cond> = (0..n).map(|i| choice(&mut conds, i)).collect();
        conds.exactly_one(0, &atoms, false);
        let before = approximated();
        let mut any = conds.falsity();
        for i in 0..n {
            let picked = choice(&mut conds, i);
            let test = conds.atom(AtomKey::Test(format!("y{i}")), || format!("y{i}"));
            any = any.or(&picked.and(&test));
        }
        assert_eq!(approximated(), before, "an operation was too large and approximated");
        assert!(size(&any) <= (2 * n + 1) as usize, "{} nodes", size(&any));
        // Printed without the other choices it rules out.
        let third = choice(&mut conds, 3);
        let y3 = conds.atom(AtomKey::Test("y3".into()), || "y3".into());
        assert_eq!(conds.render(&third.and(&y3)), "x == 3 and y3");
        // Not two choices at once; some choice always.
        let fourth = choice(&mut conds, 4);
        assert!(!conds.feasible(&third.and(&fourth)));
        assert!(!conds.feasible(&atoms.iter().fold(conds.truth(), |acc, a| acc.and(&a.not()))));
    }

    /// Feasibility answered on the first path walked down agrees with the exact answer (the
    /// condition conjoined with its constraints), for conditions over values with a choice of
    /// members, tests of their own and assumptions, contradictory ones included.
    #[test]
    fn feasibility_on_a_walked_path_is_the_exact_answer() {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..40 {
            let mut conds = Conds::default();
            // Free tests, then three values of four members each (exactly one holds): a path
            // may reach `true` on tests alone, before the members it depends on.
            let mut atoms: Vec<Cond> = Vec::new();
            for i in 0..4 {
                atoms.push(conds.atom(AtomKey::Test(format!("t{i}")), || format!("t{i}")));
            }
            for sym in 0..3 {
                let members: Vec<Cond> = (0..4)
                    .map(|i| conds.atom(AtomKey::Equals(sym, Constant::Int(i)), || format!("v{sym} == {i}")))
                    .collect();
                conds.exactly_one(sym, &members, false);
                atoms.extend(members);
            }
            // Assumptions: some rounds fix two members of the last value (no configuration
            // left for it), the others one atom.
            let fixes =
                if round % 4 == 0 { vec![(12, true), (13, true)] } else { vec![(next(16) as usize, next(2) == 0)] };
            for (atom, holds) in fixes {
                conds.fix(atom, holds);
            }
            for _ in 0..60 {
                let mut cond = conds.falsity();
                for _ in 0..1 + next(3) {
                    let mut product = conds.truth();
                    for _ in 0..1 + next(4) {
                        let atom = atoms[next(atoms.len() as u64) as usize];
                        product = product.and(&if next(2) == 0 { atom } else { atom.not() });
                    }
                    cond = cond.or(&product);
                }
                let exact = cond.meets(&conds.constraints_for(&cond));
                assert_eq!(conds.feasible(&cond), exact, "round {round}: {}", conds.render(&cond));
            }
        }
    }

    /// The share of configurations a raise ends counts a choice among four as a quarter, however
    /// its atoms spell it.
    #[test]
    fn a_raise_shares_configurations_among_those_the_constraints_allow() {
        let mut conds = Conds::default();
        let atoms: Vec<Cond> =
            (0..4).map(|i| conds.atom(AtomKey::Equals(0, Constant::Int(i)), || format!("x == {i}"))).collect();
        conds.exactly_one(0, &atoms, false);
        let first = conds.atom(AtomKey::Equals(0, Constant::Int(0)), String::new);
        let loc = Loc { file: crate::index::FileId::from_u32(0), span: Default::default() };
        conds.raises(&first, loc);
        let places = conds.raise_places();
        assert_eq!(places.len(), 1);
        assert!((places[0].1 - 0.25).abs() < 1e-9, "{}", places[0].1);
    }

    #[test]
    fn canonical_and_feasible() {
        let mut conds = Conds::default();
        let a = conds.atom(AtomKey::Test("a".into()), || "a".into());
        let b = conds.atom(AtomKey::Test("b".into()), || "b".into());
        assert!(a.and(&b).or(&a.and(&b.not())).same(&a));
        assert!(!conds.feasible(&a.and(&a.not())));
        assert_eq!(conds.render(&a.and(&b.not())), "a and not b");
        assert_eq!(conds.render(&a.or(&a.not())), "always");
    }

    #[test]
    fn a_small_condition_whose_minimal_form_was_not_found_is_printed_as_it_stands() {
        // (`products_within` gives up when the configurations that matter are too large to
        // combine with: `None`.)
        let mut conds = Conds::default();
        let a = conds.atom(AtomKey::Test("a".into()), || "a".into());
        let b = conds.atom(AtomKey::Test("b".into()), || "b".into());
        assert_eq!(conds.render_products(&a.and(&b.not()), None), "a and not b");
        let many: Vec<Cond> = (0..10).map(|i| conds.atom(AtomKey::Test(format!("c{i}")), || format!("c{i}"))).collect();
        let all = many.iter().fold(conds.truth(), |acc, c| acc.and(c));
        assert_eq!(conds.render_products(&all, None), "(a condition over 10 atoms, too large to print)");
    }

    #[test]
    fn equalities_of_one_value_exclude_each_other() {
        let mut conds = Conds::default();
        let x = conds.atom(AtomKey::Equals(0, Constant::Str("ep".into())), || "x == \"ep\"".into());
        let y = conds.atom(AtomKey::Equals(0, Constant::Str("fi".into())), || "x == \"fi\"".into());
        assert!(!conds.feasible(&x.and(&y)));
        // `x == "fi" and not (x == "ep")` prints without the implied literal.
        assert_eq!(conds.render(&y.and(&x.not())), "x == \"fi\"");
    }

    /// Values whose equalities are made in turns (so each value's atoms lie far apart in the
    /// order), and a class choice; `x0 == 1` fixed.
    fn interleaved_values(conds: &mut Conds) -> Vec<Cond> {
        let mut atoms = Vec::new();
        for constant in 0..4 {
            for sym in 0..5 {
                let text = format!("x{sym} == {constant}");
                atoms.push(conds.atom(AtomKey::Equals(sym, Constant::Int(constant)), || text));
            }
        }
        let classes: Vec<Cond> = (0..3)
            .map(|c| {
                conds.atom(AtomKey::IsClass(9, ClassId { file: crate::index::FileId::from_u32(0), local: c }), || {
                    format!("o is C{c}")
                })
            })
            .collect();
        conds.exactly_one(9, &classes, false);
        atoms.extend(classes);
        conds.fix(5, true);
        atoms
    }

    #[test]
    fn an_example_keeps_the_constraints_that_did_not_conjoin() {
        // Twenty values, each equal to 0 or 1, the atoms of every value's `== 0` before any
        // `== 1`: the conjunction of their groups tells 2^20 histories apart, past an
        // operation's fuel, and is widened (groups left out).
        let mut conds = Conds::default();
        let n = 20;
        let equals = |conds: &mut Conds, sym: usize, c: i64| {
            conds.atom(AtomKey::Equals(sym as SymId, Constant::Int(c)), || format!("x{sym} == {c}"))
        };
        let zero: Vec<Cond> = (0..n).map(|s| equals(&mut conds, s, 0)).collect();
        let one: Vec<Cond> = (0..n).map(|s| equals(&mut conds, s, 1)).collect();
        // The shortest path sets the last value equal to both; the other is every value 0.
        let all_zero = zero.iter().fold(conds.truth(), |acc, z| acc.and(z));
        let cond = zero[n - 1].and(&one[n - 1]).or(&all_zero);
        let example = conds.example_within(&cond, &conds.truth()).expect("an example");
        let holds = |atom: &Cond| {
            let (a, _) = conds.as_literal(atom).unwrap();
            example.iter().any(|&(b, h)| a == b && h)
        };
        assert!(!(holds(&zero[n - 1]) && holds(&one[n - 1])), "{example:?}");
        assert!(zero.iter().all(|z| holds(z)), "{example:?}");
        // Of two allowed paths, the short one: `x0 == 0 and x1 == 0`, not every other value
        // unequal to 0 (the `false` branches the search would otherwise take first).
        let long = (0..n - 1).fold(zero[n - 1], |acc, s| acc.and(&zero[s].not()));
        let cond = zero[0].and(&zero[1]).or(&long);
        let example = conds.example_within(&cond, &conds.truth()).expect("an example");
        assert_eq!(example.len(), 2, "{example:?}");
    }

    /// Numbers below `n`, from a fixed linear congruential sequence: the same cases every run.
    fn sequence(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        }
    }

    /// A sum of `1 + next(products)` products of `min + next(more)` literals of `atoms`, each
    /// negated one time in `negated`: `[products, min, more, negated]`.
    fn random_condition(
        conds: &Conds,
        atoms: &[Cond],
        next: &mut impl FnMut(usize) -> usize,
        [products, min, more, negated]: [usize; 4],
    ) -> Cond {
        let mut cond = conds.falsity();
        for _ in 0..1 + next(products) {
            let mut product = conds.truth();
            for _ in 0..min + next(more) {
                let atom = atoms[next(atoms.len())];
                product = product.and(&if next(negated) == 0 { atom.not() } else { atom });
            }
            cond = cond.or(&product);
        }
        cond
    }

    #[test]
    fn three_conditions_meet_exactly_when_their_conjunction_is_not_false() {
        let mut conds = Conds::default();
        let atoms: Vec<Cond> = (0..8).map(|i| conds.atom(AtomKey::Test(format!("a{i}")), || format!("a{i}"))).collect();
        let mut next = sequence(11);
        let mut random = |conds: &Conds| {
            let cond = random_condition(conds, &atoms, &mut next, [3, 1, 4, 2]);
            if next(4) == 0 { cond.not() } else { cond }
        };
        let (mut met, mut missed) = (0, 0);
        for _ in 0..3000 {
            let (a, b, c) = (random(&conds), random(&conds), random(&conds));
            let before = node_count();
            let meets = with(|t| t.intersects3(a.0, b.0, c.0));
            assert_eq!(node_count(), before, "the test built nodes");
            assert_eq!(meets, !a.and(&b).and(&c).is_false());
            // Any order, and an operand repeated or constant.
            assert_eq!(meets, with(|t| t.intersects3(c.0, a.0, b.0)));
            assert_eq!(a.meets(&b), with(|t| t.intersects3(a.0, b.0, TRUE)));
            assert_eq!(a.meets(&b), with(|t| t.intersects3(a.0, b.0, a.0)));
            assert!(!with(|t| t.intersects3(a.0, b.0, FALSE)));
            if meets { met += 1 } else { missed += 1 }
        }
        assert!(met > 300 && missed > 300, "{met} {missed}");
    }

    #[test]
    fn products_within_care_are_the_condition_there_and_the_same_projected_or_not() {
        let mut conds = Conds::default();
        let mut atoms = interleaved_values(&mut conds);
        // A value that is one of four: negating three of its equalities implies the fourth.
        let members: Vec<Cond> =
            (0..4).map(|k| conds.atom(AtomKey::Equals(7, Constant::Int(k)), || format!("m == {k}"))).collect();
        conds.exactly_one(7, &members, false);
        atoms.extend(members);
        // Atoms only `care` tests: what printing quantifies away.
        atoms.extend((0..6).map(|i| conds.atom(AtomKey::Test(format!("c{i}")), || format!("c{i}"))));
        let asked = &atoms[..atoms.len() - 3];
        let mut next = sequence(29);
        let all_constraints = conds.groups.values().fold(conds.fixed, |c, g| c.and(g));
        let mut printed = 0;
        for _ in 0..400 {
            let cond = random_condition(&conds, asked, &mut next, [3, 1, 3, 2]);
            let care = random_condition(&conds, &atoms, &mut next, [3, 1, 3, 2]).not();
            let Some(products) = conds.products_within(&cond, &care) else { continue };
            printed += 1;
            // Asking the projection gives what asking the two conditions gives.
            assert_eq!(Some(&products), conds.products_unbounded(&cond, &care, false).as_ref());
            let sum = products.iter().fold(conds.falsity(), |s, p| s.or(&conds.cube(p)));
            let within = all_constraints.and(&care);
            let differ = sum.and(&cond.not()).or(&cond.and(&sum.not())).and(&within);
            assert!(differ.is_false(), "{} printed as {products:?}", conds.render(&cond));
        }
        assert!(printed > 300, "{printed}");
    }

    #[test]
    fn a_bounded_satisfiability_check_gives_no_answer_past_its_steps_and_memoizes_nothing() {
        let mut conds = Conds::default();
        let atoms: Vec<Cond> = (0..6).map(|i| conds.atom(AtomKey::Test(format!("m{i}")), || format!("m{i}"))).collect();
        // Five atoms in common, then opposite on the last: each level is one step.
        let common = atoms[..5].iter().fold(conds.truth(), |c, a| c.and(a));
        let (a, b) = (common.and(&atoms[5]), common.and(&atoms[5].not()));
        assert_eq!(with(|t| t.intersects_within(a.0, b.0, 2)), None);
        // A cut check left no memo behind: with the steps it needs it answers exactly.
        assert_eq!(with(|t| t.intersects_within(a.0, b.0, 100)), Some(false));
        assert_eq!(with(|t| t.intersects_within(a.0, common.0, 100)), Some(true));
        assert!(!a.meets(&b));
    }

    #[test]
    fn feasibility_agrees_with_conjoining_the_constraints_and_builds_nothing() {
        let mut conds = Conds::default();
        let atoms = interleaved_values(&mut conds);
        // Conditions made of random literals, `and`-ed and `or`-ed.
        let mut next = sequence(7);
        let (mut feasible, mut infeasible) = (0, 0);
        for _ in 0..2000 {
            let cond = random_condition(&conds, &atoms, &mut next, [2, 2, 6, 3]);
            let before = node_count();
            let answer = conds.feasible(&cond);
            assert_eq!(node_count(), before, "a feasibility check built nodes");
            assert_eq!(answer, cond.meets(&conds.constraints_for(&cond)), "{}", conds.render(&cond));
            match answer {
                true => feasible += 1,
                false if !cond.is_false() => infeasible += 1,
                false => {}
            }
        }
        // Both answers came up, the second for conditions only the constraints rule out.
        assert!(feasible > 100 && infeasible > 100, "{feasible} {infeasible}");
    }

    #[test]
    fn comparisons_with_numbers_are_linked_to_each_other_and_to_the_value() {
        let mut conds = Conds::default();
        let above = |conds: &mut Conds, bound: f64, strict: bool| {
            let text = format!("x {} {bound}", if strict { ">" } else { ">=" });
            conds.atom(AtomKey::Above { sym: 0, bits: bound.to_bits(), strict }, || text)
        };
        let gt2 = above(&mut conds, 2.0, true);
        let gt1 = above(&mut conds, 1.0, true);
        let ge2 = above(&mut conds, 2.0, false);
        let truthy = conds.atom(AtomKey::Truthy(0), || "x".into());
        let is1 = conds.atom(AtomKey::Equals(0, Constant::Int(1)), || "x == 1".into());
        // x > 2 implies x > 1, x >= 2 and that x is truthy; x == 1 is none of those.
        assert!(!conds.feasible(&gt2.and(&gt1.not())));
        assert!(!conds.feasible(&gt2.and(&ge2.not())));
        assert!(!conds.feasible(&gt1.and(&truthy.not())));
        assert!(!conds.feasible(&is1.and(&gt1)));
        assert!(conds.feasible(&is1.and(&gt1.not()).and(&truthy)));
        // Not linked the other way: x >= 2 need not be above 2.
        assert!(conds.feasible(&ge2.and(&gt2.not())));
        // The negation reads as the other comparison.
        assert_eq!(conds.render(&gt2.not()), "x <= 2");
        assert_eq!(conds.render(&ge2.not().and(&gt1)), "x > 1 and x < 2");
    }

    #[test]
    fn running_configurations_stop_at_their_node_budget_and_stay_wider() {
        // Raises `a_i and b_i` with every `a` ordered before every `b`: the conjunction of
        // their negations has about 2^n nodes.
        let mut conds = Conds::default();
        let n = 12;
        let a: Vec<Cond> = (0..n).map(|i| conds.atom(AtomKey::Test(format!("a{i}")), || format!("a{i}"))).collect();
        let b: Vec<Cond> = (0..n).map(|i| conds.atom(AtomKey::Test(format!("b{i}")), || format!("b{i}"))).collect();
        let loc = Loc { file: crate::index::FileId::from_u32(0), span: crate::syntax::Span { start: 0, end: 0 } };
        for i in 0..n {
            conds.raises(&a[i].and(&b[i]), loc);
        }
        // The bounded one first: once built, the nodes are free.
        let (bounded, complete) = conds.runs_within(100);
        assert!(!complete);
        let (exact, complete) = conds.runs_within(usize::MAX);
        assert!(complete);
        assert!(!bounded.same(&exact));
        // Wider, never narrower: every running configuration is still in it.
        assert!(exact.and(&bounded.not()).is_false());
    }

    #[test]
    fn a_product_asked_both_ways_is_nothing() {
        let mut conds = Conds::default();
        let a = conds.atom(AtomKey::Test("a".into()), || "a".into());
        let b = conds.atom(AtomKey::Test("b".into()), || "b".into());
        // Unsorted, repeated literals are one product; an atom asked both ways is none.
        assert!(conds.cube(&[(1, false), (0, true), (1, false)]).same(&a.and(&b.not())));
        assert!(conds.cube(&[(0, true), (0, false)]).is_false());
        let truth = conds.truth();
        assert!(conds.meets_under([truth, truth, b.not()], &[(0, true)]));
        assert!(!conds.meets_under([truth, truth, truth], &[(0, true), (0, false)]));
        assert!(!conds.meets_under([truth, truth, b], &[(1, false)]));
    }

    #[test]
    fn two_unknowns_equal_agree_with_their_equalities_to_constants() {
        let mut conds = Conds::default();
        let equals = |conds: &mut Conds, sym: SymId, i: i64| {
            conds.atom(AtomKey::Equals(sym, Constant::Int(i)), || format!("v{sym} == {i}"))
        };
        let a1 = equals(&mut conds, 0, 1);
        let same = conds.atom(AtomKey::Test("v0 == v1".into()), || "v0 == v1".into());
        conds.relate_equal(0, 1, &same);
        // Tested later, the other value's equality is related all the same.
        let b1 = equals(&mut conds, 1, 1);
        let b2 = equals(&mut conds, 1, 2);
        // Both 1 is equal; equal and one is 1, the other is.
        assert!(!conds.feasible(&a1.and(&b1).and(&same.not())));
        assert!(!conds.feasible(&same.and(&a1).and(&b1.not())));
        assert!(!conds.feasible(&same.and(&b1).and(&a1.not())));
        // Equal at a value not both were tested against, or unequal, is still possible.
        assert!(conds.feasible(&same.and(&a1.not()).and(&b1.not())));
        assert!(conds.feasible(&a1.and(&b2).and(&same.not())));
        // (Equal to 2 was not asked of the first value: nothing is said of it.)
        assert!(conds.feasible(&same.and(&b2)));
    }

    #[test]
    fn raises_are_taken_out_of_a_condition_through_the_atoms_they_share() {
        let mut conds = Conds::default();
        let atom = |conds: &mut Conds, name: &str| conds.atom(AtomKey::Test(name.into()), || name.into());
        let (a, b, c, d) = (atom(&mut conds, "a"), atom(&mut conds, "b"), atom(&mut conds, "c"), atom(&mut conds, "d"));
        // Two values' atoms: `x == 1` and `x == 2` are linked through `x`.
        let x1 = conds.atom(AtomKey::Equals(0, Constant::Int(1)), || "x == 1".into());
        let x2 = conds.atom(AtomKey::Equals(0, Constant::Int(2)), || "x == 2".into());
        let loc = Loc { file: crate::index::FileId::from_u32(0), span: crate::syntax::Span { start: 0, end: 0 } };
        conds.raises(&a.and(&b), loc); // shares `a` with the row
        conds.raises(&b.and(&c.not()), loc); // shares `b` with the raise above only
        conds.raises(&d, loc); // about nothing the row touches
        conds.raises(&x2.not(), loc); // about `x`, like the row's `x == 1`
        let row = a.and(&x1.not());
        // Within a budget of new nodes: nothing once it is spent (taking the linked raises out
        // makes nodes); with room, the same answer as unbounded.
        assert!(conds.without_raising_within(&row, 0).is_none());
        let bounded = conds.without_raising_within(&row, 10_000).expect("within the budget");
        let out = conds.without_raising(&row);
        assert!(bounded.same(&out));
        // Linked raises are out, in a chain: `a and b` takes `b` in, then `b and not c` counts.
        assert!(out.same(&row.and(&a.and(&b).not()).and(&b.and(&c.not()).not()).and(&x2)));
        // The unrelated raise on `d` leaves the row as it was there.
        assert!(conds.feasible(&out.and(&d)));
        // Another row takes out its own set, part of it the first's (made once, kept).
        let other = conds.without_raising(&b);
        assert!(other.same(&b.and(&a.and(&b).not()).and(&b.and(&c.not()).not())));
        assert!(conds.without_raising(&row).same(&out));
        // A raise everywhere leaves nothing.
        conds.raises(&conds.truth(), loc);
        assert!(conds.without_raising(&row).is_false());
    }

    #[test]
    fn per_program_atoms_are_quantified_away_and_configuration_atoms_stay() {
        let mut conds = Conds::default();
        let config = conds.atom(AtomKey::Test("c".into()), || "c".into());
        let loc =
            |start| Loc { file: crate::index::FileId::from_u32(0), span: crate::syntax::Span { start, end: start } };
        let past_end = conds.atom(AtomKey::PerProgram(loc(1)), || "pid >= n".into());
        let inactive = conds.atom(AtomKey::PerProgram(loc(2)), || "expert == -1".into());
        let stores = config.and(&past_end.not()).and(&inactive.not());
        // Some instance stores wherever `c` holds; no configuration has every instance store.
        assert!(conds.over_programs(&stores, true).same(&config));
        assert!(conds.over_programs(&stores, false).is_false());
        // Every instance leaves the buffer only where `c` fails.
        assert!(conds.over_programs(&stores.not(), false).same(&config.not()));
        assert!(conds.is_internal(1) && !conds.is_internal(0));
    }

    #[test]
    fn decisive_atoms_keep_only_what_changes_the_class_among_the_configurations_that_matter() {
        let mut conds = Conds::default();
        let flag = conds.atom(AtomKey::Test("flag".into()), || "flag".into());
        let path = conds.atom(AtomKey::Test("path".into()), || "path".into());
        let raises = conds.atom(AtomKey::Test("raises".into()), || "raises".into());
        let care = raises.not();
        let mut fuel = 1_000_000;
        // Two paths, one outcome each way: `path` never decides the class.
        let class = flag.and(&path).or(&flag.and(&path.not()).and(&raises.not()));
        assert!(conds.decisive(&class, &care, &mut fuel).same(&flag));
        // Here it does, and stays.
        let class = flag.and(&path);
        assert!(conds.decisive(&class, &care, &mut fuel).same(&class));
        // Where only configurations that raise differ, the atom goes.
        let class = flag.or(&raises.and(&path));
        assert!(conds.decisive(&class, &care, &mut fuel).same(&flag));
        // Without fuel nothing is reduced.
        let mut none = 0;
        let class = flag.and(&path).or(&flag.and(&path.not()));
        assert!(conds.decisive(&class, &care, &mut none).same(&class));
    }

    #[test]
    fn common_literals_of_the_products_print_once() {
        let mut conds = Conds::default();
        let a = conds.atom(AtomKey::Test("a".into()), || "a".into());
        let b = conds.atom(AtomKey::Test("b".into()), || "b".into());
        let c = conds.atom(AtomKey::Test("c".into()), || "c".into());
        assert_eq!(conds.render(&a.and(&b.or(&c))), "a and (b or c)");
    }

    #[test]
    fn a_condition_too_large_to_print_has_an_example_inside_it() {
        // The parity of 8 atoms has 128 products: too many to print.
        let mut conds = Conds::default();
        let mut parity = conds.falsity();
        for i in 0..8 {
            let name = format!("a{i}");
            let atom = conds.atom(AtomKey::Test(name.clone()), || name.clone());
            parity = parity.and(&atom.not()).or(&parity.not().and(&atom));
        }
        let care = conds.truth();
        assert!(conds.products_within(&parity, &care).is_none());
        let example = conds.example_within(&parity, &care).expect("satisfiable");
        assert_eq!(example.len(), 8);
        let mut cube = conds.truth();
        for (atom, holds) in example {
            cube = cube.and(&conds.literal_cond(atom, holds));
        }
        assert!(!conds.feasible(&cube.and(&parity.not())), "the example lies inside the condition");
        assert!(conds.example_within(&conds.falsity(), &care).is_none());
    }

    #[test]
    fn an_example_respects_the_constraints() {
        // The shortest path sets `x` equal to two constants; the only real example is longer.
        let mut conds = Conds::default();
        let ep = conds.atom(AtomKey::Equals(0, Constant::Str("ep".into())), || "x == \"ep\"".into());
        let fi = conds.atom(AtomKey::Equals(0, Constant::Str("fi".into())), || "x == \"fi\"".into());
        let c: Vec<Cond> = (0..3).map(|i| conds.atom(AtomKey::Test(format!("c{i}")), || format!("c{i}"))).collect();
        let cond = ep.and(&fi).or(&c[0].and(&c[1]).and(&c[2]));
        let example = conds.example_within(&cond, &conds.truth()).expect("satisfiable");
        let mut cube = conds.truth();
        for (atom, holds) in example {
            cube = cube.and(&conds.literal_cond(atom, holds));
        }
        assert!(conds.feasible(&cube), "the example is a configuration");
        assert!(!conds.feasible(&cube.and(&cond.not())), "the example lies inside the condition");
        // An atom fixed (by an assumption) is not repeated in it.
        conds.fix(2, true);
        let example = conds.example_within(&cond, &conds.truth()).expect("satisfiable");
        assert!(!example.iter().any(|&(atom, _)| atom == 2), "{example:?}");
        assert!(example.contains(&(3, true)) && example.contains(&(4, true)), "{example:?}");
    }

    #[test]
    fn an_example_leaves_out_what_its_group_implies() {
        // On the CPU, `is_rocm()` is false: the example says `is_cpu()` alone. A negation the
        // rest of the example does not imply stays.
        let mut conds = Conds::default();
        let rocm = conds.atom(AtomKey::Test("is_rocm()".into()), || "is_rocm()".into());
        let cpu = conds.atom(AtomKey::Test("is_cpu()".into()), || "is_cpu()".into());
        let fused = conds.atom(AtomKey::Test("fused".into()), || "fused".into());
        let cond = cpu.and(&rocm.not()).and(&fused.not());
        let example = conds.example_within(&cond, &conds.truth()).expect("satisfiable");
        assert_eq!(example, vec![(1, true), (2, false)]);
        let on_some_gpu = rocm.not().and(&fused);
        let example = conds.example_within(&on_some_gpu, &conds.truth()).expect("satisfiable");
        assert!(example.contains(&(0, false)), "{example:?}");
    }
}

/// Nodes in this thread's table (for statistics).
pub fn node_count() -> usize {
    with(|t| t.node_count())
}

/// Nodes reachable from a condition (its size).
pub fn size(c: &Cond) -> usize {
    with(|t| t.size(c.0))
}

/// How many operations were too large and were over-approximated in this thread's table.
pub fn approximated() -> usize {
    with(|t| t.approximated)
}

/// Takes back the approximations counted since `before`: an operation that was only tried (and
/// whose approximate result was not used) is no loss of precision.
pub fn forget_approximations(before: usize) {
    with(|t| t.approximated = before);
}
