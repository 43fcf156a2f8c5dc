//! The decision-diagram table behind [`super::Cond`]: reduced ordered binary decision diagrams
//! with complement edges, in one node table shared by every condition of a trace, with lossy
//! memos of operation results (CUDD's unique and computed tables, in miniature).
//!
//! Glossary:
//! - *edge*: a node's index times two, plus a complement bit. `f` and `not f` are one node
//!   reached by two edges, so negation is free and builds nothing (a trace negates path
//!   conditions and raises constantly: without complement edges each negation copied its
//!   whole condition).
//! - *canonical form*: the `hi` edge (the atom holds) of a node is never complemented, and no
//!   node has `lo == hi`; the one terminal is FALSE, its complement TRUE. Two conditions are
//!   the same function exactly when they are the same edge.
//! - *fuel*: the new nodes the current top-level operation may still make. Past it the
//!   operation is abandoned (ABANDONED unwinds) and the caller over-approximates.
//! - *work*: the recursive steps it may still take (memo misses), bounded the same way: an
//!   operation that only finds nodes made spends no fuel.
//!
//! Every operation here is a function of the conditions it is given, not of how the table
//! holds them: the node a cube walk visits, the cofactors `restrict` follows, the paths
//! `cubes` lists are those of the function, so answers do not depend on the order in which
//! nodes were made.

use rustc_hash::{FxHashMap, FxHashSet};

pub const FALSE: u32 = 0;
pub const TRUE: u32 = 1;
/// Marks an abandoned operation while it unwinds. Never an edge: node indices stay far below
/// 2^31 ([`HARD_MAX_NODES`]).
pub const ABANDONED: u32 = u32::MAX;

/// A search for one path of a diagram that groups of constraints over disjoint sets of atoms
/// all allow ([`Table::consistent_path`]). Because the groups share no atom, a path that
/// leaves each group satisfiable extends to a configuration of all of them at once.
pub struct PathSearch<'g> {
    /// The group each atom of the searched diagram belongs to, if any.
    pub group_of: &'g FxHashMap<u32, usize>,
    /// The last atom (in the diagram's order) of each group that the searched diagram tests.
    pub last_var: &'g [u32],
    /// Atoms fixed beforehand (assumptions).
    pub fixed: &'g FxHashMap<u32, bool>,
    /// Diagram nodes the search may still visit.
    pub fuel: usize,
    /// Nodes, with the groups' states, from which no path is allowed.
    pub failed: FxHashSet<Vec<u32>>,
    /// Where the memo keys of the nodes on the current path are built.
    pub scratch: Vec<u32>,
    /// The tests of the path being searched (atom, holds): once one is found, that path.
    pub path: Vec<(u32, bool)>,
    /// With a memo of shortest paths, the branch with the shorter path to `true` is tried
    /// first (a path to show a reader); without, the one that ends the search at once.
    pub shortest: Option<FxHashMap<u32, usize>>,
}

/// Nodes a group's state may hold during a [`PathSearch`].
const MAX_STATE_NODES: usize = 64;

/// The terminal's variable: after every atom.
const TERMINAL_VAR: u32 = u32::MAX;

/// New nodes one operation may create before it is abandoned for an approximation.
pub const OP_FUEL: usize = 200_000;
/// Steps (recursive calls whose result the memo had lost or never held) one operation may take
/// before it is abandoned for an approximation. The fuel counts new nodes only: an operation
/// over large diagrams that finds its nodes made, recomputing what the lossy memo dropped,
/// made none and ran for minutes (SGLang 0.5.23's `MiMoV2MoE`: single conjunctions of 50
/// million steps, a quarter of a microsecond each). Ten times the fuel: the operations of the
/// traces that answer took under 700,000.
pub const OP_WORK: usize = 2_000_000;
/// Steps (memo misses) one satisfiability test may take before it answers "may meet"
/// ([`Table::intersects_within`]). It makes no node, so its steps are cheap: ten times an
/// operation's. At `OP_WORK` vLLM 0.20's `AXK1DecoderLayer` lost three final cases of its
/// split (tests of 2 to 20 million steps); past this, `DeepseekV2DecoderLayer`'s `nixl_ep`
/// case spent minutes in single tests.
pub const MEET_WORK: usize = 10 * OP_WORK;
/// Nodes the table may hold at most (about 1 GB with its unique table and memos).
pub const HARD_MAX_NODES: usize = 24_000_000;

/// Memo entries each operation's memo starts with, and at most grows to.
const MEMO_MIN: usize = 1 << 12;
const AND_MEMO_MAX: usize = 1 << 23;
const OTHER_MEMO_MAX: usize = 1 << 22;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Node {
    var: u32,
    lo: u32,
    hi: u32,
}

fn index(e: u32) -> usize {
    (e >> 1) as usize
}

fn complemented(e: u32) -> bool {
    e & 1 == 1
}

/// `not e`: the same node, the other way.
pub fn not(e: u32) -> u32 {
    e ^ 1
}

/// A memo of an operation on `N` conditions: a fixed array indexed by a hash of the operands,
/// where a new result overwrites the old one. Losing an entry costs a recomputation that finds
/// its nodes already made. Operands are never constants (those are answered before the memo is
/// asked), so an empty entry never matches.
struct Memo<const N: usize> {
    entries: Vec<([u32; N], u32)>,
    max: usize,
}

impl<const N: usize> Memo<N> {
    fn new(max: usize) -> Memo<N> {
        Memo { entries: Vec::new(), max }
    }

    fn slot(&self, key: [u32; N]) -> usize {
        let mut h = ((key[0] as u64) << 32 | key[1] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for &k in &key[2..] {
            h ^= (k as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        }
        (h >> 32) as usize & (self.entries.len() - 1)
    }

    fn get(&self, key: [u32; N]) -> Option<u32> {
        if self.entries.is_empty() {
            return None;
        }
        let (k, r) = self.entries[self.slot(key)];
        (k == key).then_some(r)
    }

    /// Remembers `key -> r`; the array grows with the node table (`nodes`), dropping what it
    /// held.
    fn insert(&mut self, key: [u32; N], r: u32, nodes: usize) {
        if self.entries.len() < self.max && self.entries.len() < nodes {
            let size = nodes.next_power_of_two().clamp(MEMO_MIN, self.max);
            self.entries = written_zeros(size, ([0; N], 0));
        }
        let slot = self.slot(key);
        self.entries[slot] = (key, r);
    }
}

/// `size` copies of a zero `value`, written rather than allocated zeroed. A zeroed allocation
/// of this size is fresh pages the kernel maps to its one zero page: the first read maps it,
/// the first write then faults again and flushes the other cores' TLBs. Writing the zeros
/// up front faults each page once (measured: about a fifth of a large trace went to those
/// faults).
fn written_zeros<T: Copy>(size: usize, value: T) -> Vec<T> {
    let mut items = Vec::with_capacity(size);
    items.resize(size, value);
    items
}

/// The hash of a node, for the unique table: its high bits pick the slot, its low 32 bits are
/// kept in the slot as a fingerprint (most probes then never read the node itself).
fn node_hash(var: u32, lo: u32, hi: u32) -> u64 {
    let h = ((lo as u64) << 32 | hi as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (var as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h ^ (h >> 29)).wrapping_mul(0x1656_67B1_9E37_79F9)
}

pub struct Table {
    nodes: Vec<Node>,
    /// The unique table: open addressing, linear probing, at most half full. A slot holds a
    /// node index (low 32 bits; never 0, the terminal is not in it) and its hash's fingerprint.
    slots: Vec<u64>,
    /// `64 - log2(slots.len())`: the slot of a hash is its top bits.
    shift: u32,
    ands: Memo<2>,
    restricts: Memo<2>,
    meets: Memo<2>,
    meets3: Memo<3>,
    /// Memo of [`Table::size`] (nodes never change once made).
    sizes: FxHashMap<u32, usize>,
    /// New nodes the current operation may still create.
    fuel: usize,
    /// Steps the current operation may still take (see [`OP_WORK`]).
    work: usize,
    /// Steps a bounded [`Table::intersects_within`] may still take; `None` when unbounded.
    meet_steps: Option<usize>,
    /// Whether the bounded satisfiability check ran out of steps (it then unwinds with `true`).
    meet_cut: bool,
    /// Operations that were too large and were over-approximated.
    pub approximated: usize,
}

impl Table {
    pub fn fresh() -> Table {
        const SLOTS: usize = 1 << 10;
        Table {
            nodes: vec![Node { var: TERMINAL_VAR, lo: FALSE, hi: FALSE }],
            slots: vec![0; SLOTS],
            shift: 64 - SLOTS.trailing_zeros(),
            ands: Memo::new(AND_MEMO_MAX),
            restricts: Memo::new(OTHER_MEMO_MAX),
            meets: Memo::new(OTHER_MEMO_MAX),
            meets3: Memo::new(OTHER_MEMO_MAX),
            sizes: FxHashMap::default(),
            fuel: 0,
            work: 0,
            meet_steps: None,
            meet_cut: false,
            approximated: 0,
        }
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Gives the next top-level operation its fuel.
    pub fn refuel(&mut self) {
        self.fuel = OP_FUEL.min(HARD_MAX_NODES.saturating_sub(self.nodes.len()));
        self.work = OP_WORK;
    }

    /// The condition "atom `var` holds".
    pub fn var_edge(&mut self, var: u32) -> u32 {
        self.node(var, FALSE, TRUE)
    }

    /// The node `(var, lo, hi)`, found or made; its fuel is spent, never checked.
    pub fn node(&mut self, var: u32, lo: u32, hi: u32) -> u32 {
        self.find_or_make(var, lo, hi, false)
    }

    /// The conjunction of literals `(var, holds)`, sorted by variable with each once, built
    /// bottom-up in one pass: conjoining them one by one walks the chain made so far at each
    /// literal (quadratic in its length).
    pub fn cube_of_literals(&mut self, lits: &[(u32, bool)]) -> u32 {
        debug_assert!(lits.windows(2).all(|w| w[0].0 < w[1].0), "literals sorted, each variable once");
        lits.iter()
            .rev()
            .fold(TRUE, |f, &(var, holds)| if holds { self.node(var, FALSE, f) } else { self.node(var, f, FALSE) })
    }

    /// [`Table::node`] within the current operation's fuel: ABANDONED when the node is new and
    /// the fuel is spent. Only new nodes count: a result recomputed after the memo lost it
    /// finds its nodes made, and is not abandoned for it.
    fn make(&mut self, var: u32, lo: u32, hi: u32) -> u32 {
        self.find_or_make(var, lo, hi, true)
    }

    fn find_or_make(&mut self, var: u32, lo: u32, hi: u32, may_abandon: bool) -> u32 {
        if lo == hi {
            return lo;
        }
        // Canonical form: `hi` regular; `(v, lo, hi)` with `hi` complemented is the
        // complement of `(v, not lo, not hi)`.
        let flip = hi & 1;
        let (lo, hi) = (lo ^ flip, hi ^ flip);
        let hash = node_hash(var, lo, hi);
        let fingerprint = hash & 0xFFFF_FFFF;
        let mask = self.slots.len() - 1;
        let mut slot = (hash >> self.shift) as usize;
        loop {
            let held = self.slots[slot];
            if held == 0 {
                break;
            }
            if held >> 32 == fingerprint {
                let at = held as u32;
                if self.nodes[at as usize] == (Node { var, lo, hi }) {
                    return at << 1 | flip;
                }
            }
            slot = (slot + 1) & mask;
        }
        if may_abandon && self.fuel == 0 {
            return ABANDONED;
        }
        self.fuel = self.fuel.saturating_sub(1);
        let at = self.nodes.len() as u32;
        self.nodes.push(Node { var, lo, hi });
        self.slots[slot] = fingerprint << 32 | at as u64;
        if self.nodes.len() * 2 > self.slots.len() {
            self.grow_slots();
        }
        at << 1 | flip
    }

    /// Takes one step of the current operation's work; false when it has none left.
    fn take_step(&mut self) -> bool {
        self.work = match self.work.checked_sub(1) {
            Some(left) => left,
            None => return false,
        };
        true
    }

    fn grow_slots(&mut self) {
        let size = self.slots.len() * 2;
        self.slots = written_zeros(size, 0);
        self.shift = 64 - size.trailing_zeros();
        let mask = size - 1;
        for (at, n) in self.nodes.iter().enumerate().skip(1) {
            let hash = node_hash(n.var, n.lo, n.hi);
            let mut slot = (hash >> self.shift) as usize;
            while self.slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = (hash & 0xFFFF_FFFF) << 32 | at as u64;
        }
    }

    /// The atom `f` tests first (TERMINAL_VAR for a constant).
    pub fn var(&self, f: u32) -> u32 {
        self.nodes[index(f)].var
    }

    /// `f` with `var` false and with it true (`f` twice when `f` does not test it first).
    pub fn cofactors(&self, f: u32, var: u32) -> (u32, u32) {
        let n = self.nodes[index(f)];
        if n.var == var {
            let c = f & 1;
            (n.lo ^ c, n.hi ^ c)
        } else {
            (f, f)
        }
    }

    fn and(&mut self, a: u32, b: u32) -> u32 {
        if a == FALSE || b == FALSE || a == not(b) {
            return FALSE;
        }
        if a == TRUE || a == b {
            return b;
        }
        if b == TRUE {
            return a;
        }
        let (a, b) = (a.min(b), a.max(b));
        if let Some(r) = self.ands.get([a, b]) {
            return r;
        }
        if !self.take_step() {
            return ABANDONED;
        }
        let var = self.var(a).min(self.var(b));
        let (a0, a1) = self.cofactors(a, var);
        let (b0, b1) = self.cofactors(b, var);
        let lo = self.and(a0, b0);
        if lo == ABANDONED {
            return ABANDONED;
        }
        let hi = self.and(a1, b1);
        if hi == ABANDONED {
            return ABANDONED;
        }
        let r = self.make(var, lo, hi);
        if r != ABANDONED {
            self.ands.insert([a, b], r, self.nodes.len());
        }
        r
    }

    /// `a or b`, as `not (not a and not b)`: one memo serves both.
    fn or(&mut self, a: u32, b: u32) -> u32 {
        match self.and(not(a), not(b)) {
            ABANDONED => ABANDONED,
            r => not(r),
        }
    }

    /// A top-level `a and b` with its own fuel; `fallback` when it runs out, or when the
    /// table is full (the evaluator stops at its own, lower bound; this one holds memory in
    /// check whatever happens between its checks).
    pub fn and_top(&mut self, a: u32, b: u32, fallback: u32) -> u32 {
        self.refuel();
        self.counted(|t| t.and(a, b), fallback)
    }

    /// A top-level `a or b` (see [`Table::and_top`]).
    pub fn or_top(&mut self, a: u32, b: u32, fallback: u32) -> u32 {
        self.refuel();
        self.counted(|t| t.or(a, b), fallback)
    }

    fn counted(&mut self, op: impl FnOnce(&mut Table) -> u32, fallback: u32) -> u32 {
        match op(self) {
            ABANDONED => {
                self.approximated += 1;
                fallback
            }
            r => r,
        }
    }

    /// Coudert and Madre's `restrict`: a function that agrees with `f` wherever `care` holds,
    /// usually smaller (it drops the tests `care` already decides). ABANDONED past the fuel.
    pub fn restrict(&mut self, f: u32, care: u32) -> u32 {
        if care == TRUE || care == FALSE || f <= TRUE {
            return f;
        }
        if f == care {
            return TRUE;
        }
        if let Some(r) = self.restricts.get([f, care]) {
            return r;
        }
        if self.fuel == 0 || !self.take_step() {
            return ABANDONED;
        }
        let (fv, cv) = (self.var(f), self.var(care));
        let r = if cv < fv {
            // `care` tests a variable `f` does not: any of its cofactors may hold.
            let (c0, c1) = self.cofactors(care, cv);
            let either = self.or(c0, c1);
            if either == ABANDONED {
                return ABANDONED;
            }
            self.restrict(f, either)
        } else {
            let (f0, f1) = self.cofactors(f, fv);
            let (c0, c1) = self.cofactors(care, fv);
            if c0 == FALSE {
                self.restrict(f1, c1)
            } else if c1 == FALSE {
                self.restrict(f0, c0)
            } else {
                let lo = self.restrict(f0, c0);
                if lo == ABANDONED {
                    return ABANDONED;
                }
                let hi = self.restrict(f1, c1);
                if hi == ABANDONED {
                    return ABANDONED;
                }
                self.node(fv, lo, hi)
            }
        };
        if r != ABANDONED {
            self.restricts.insert([f, care], r, self.nodes.len());
        }
        r
    }

    /// [`Table::intersects`] within `steps` memo misses; `None` past them. Checks over large
    /// diagrams whose pairs the lossy memo dropped redid them without end (vLLM 0.20's
    /// `DeepseekV2DecoderLayer`: most of a split of minutes in single checks).
    pub fn intersects_within(&mut self, a: u32, b: u32, steps: usize) -> Option<bool> {
        self.meet_steps = Some(steps);
        self.meet_cut = false;
        let meets = self.intersects(a, b);
        self.meet_steps = None;
        let cut = std::mem::take(&mut self.meet_cut);
        (!cut).then_some(meets)
    }

    /// Whether `a and b` is satisfiable, without building it (no node is created).
    pub fn intersects(&mut self, a: u32, b: u32) -> bool {
        if a == FALSE || b == FALSE || a == not(b) {
            return false;
        }
        if a == TRUE || b == TRUE || a == b {
            return true;
        }
        let (a, b) = (a.min(b), a.max(b));
        if let Some(r) = self.meets.get([a, b]) {
            return r == 1;
        }
        if let Some(left) = self.meet_steps.as_mut() {
            // Out of steps: `true` ends every `||` above at once, and nothing is memoized.
            if *left == 0 {
                self.meet_cut = true;
                return true;
            }
            *left -= 1;
        }
        let var = self.var(a).min(self.var(b));
        let (a0, a1) = self.cofactors(a, var);
        let (b0, b1) = self.cofactors(b, var);
        let r = self.intersects(a0, b0) || self.intersects(a1, b1);
        if self.meet_cut {
            return r;
        }
        self.meets.insert([a, b], r as u32, self.nodes.len());
        r
    }

    /// The number of tests on the shortest path from `f` to `true` (`usize::MAX` for `false`).
    pub fn shortest_path(&self, f: u32, memo: &mut FxHashMap<u32, usize>) -> usize {
        match f {
            FALSE => return usize::MAX,
            TRUE => return 0,
            _ => {}
        }
        if let Some(&d) = memo.get(&f) {
            return d;
        }
        let (lo, hi) = self.cofactors(f, self.var(f));
        let d = self.shortest_path(lo, memo).min(self.shortest_path(hi, memo)).saturating_add(1);
        memo.insert(f, d);
        d
    }

    /// Whether `a and b and c` can hold, without building a node (their conjunction may be large
    /// where each is not).
    pub fn intersects3(&mut self, a: u32, b: u32, c: u32) -> bool {
        let mut ops = [a, b, c];
        ops.sort_unstable();
        // `false` anywhere is nothing; `true` operands, and a repeated one, drop out.
        match ops {
            [FALSE, ..] => return false,
            [TRUE, TRUE, z] => return z != FALSE,
            [TRUE, y, z] => return self.intersects(y, z),
            [x, y, z] if x == y => return self.intersects(x, z),
            [x, y, z] if y == z => return self.intersects(x, y),
            _ => {}
        }
        let [x, y, z] = ops;
        if x == not(y) || y == not(z) || x == not(z) {
            return false;
        }
        if let Some(r) = self.meets3.get(ops) {
            return r == 1;
        }
        let var = self.var(x).min(self.var(y)).min(self.var(z));
        let [(x0, x1), (y0, y1), (z0, z1)] = ops.map(|o| self.cofactors(o, var));
        let r = self.intersects3(x0, y0, z0) || self.intersects3(x1, y1, z1);
        self.meets3.insert(ops, u32::from(r), self.nodes.len());
        r
    }

    /// Whether `a and b and c` holds somewhere the literals `fixed` (sorted by variable) hold,
    /// without building a node: [`Table::intersects3`] of the three and the conjunction of
    /// the literals, which conjoining first made a new diagram per question (a product's
    /// literals tried one by one left out, most of a large report's printing).
    pub fn intersects3_under(&mut self, ops: [u32; 3], fixed: &[(u32, bool)]) -> bool {
        let mut failed = FxHashSet::default();
        self.search_under(ops, fixed, &mut failed)
    }

    fn search_under(&mut self, ops: [u32; 3], fixed: &[(u32, bool)], failed: &mut FxHashSet<[u32; 3]>) -> bool {
        let var = ops.iter().map(|&o| self.var(o)).min().unwrap_or(TERMINAL_VAR);
        // The literals above every operand's first test no longer bear on it.
        let fixed = &fixed[fixed.partition_point(|&(v, _)| v < var)..];
        if fixed.is_empty() || var == TERMINAL_VAR || ops.contains(&FALSE) {
            let [a, b, c] = ops;
            return self.intersects3(a, b, c);
        }
        let mut key = ops;
        key.sort_unstable();
        if failed.contains(&key) {
            return false;
        }
        let cofactors = ops.map(|o| self.cofactors(o, var));
        let branch = |holds: bool| cofactors.map(|(lo, hi)| if holds { hi } else { lo });
        let found = match fixed.first() {
            Some(&(v, holds)) if v == var => self.search_under(branch(holds), &fixed[1..], failed),
            _ => self.search_under(branch(false), fixed, failed) || self.search_under(branch(true), fixed, failed),
        };
        if !found {
            failed.insert(key);
        }
        found
    }

    /// Searches `f` for a path that every group allows (see [`PathSearch`]), without building
    /// a node. `states[j]`: what is left of group `j` along the path so far, as nodes of which
    /// one must hold (an atom the path skipped may take either value); the search changes
    /// them on its way down and puts them back on its way up, so `states` is as it was when
    /// it returns. `Some(true)`: there is such a path; `Some(false)`: there is none; `None`:
    /// the search ran out of fuel.
    pub fn consistent_path(&self, f: u32, states: &mut [Vec<u32>], search: &mut PathSearch) -> Option<bool> {
        if f == FALSE {
            return Some(false);
        }
        if f == TRUE {
            let allowed = states.iter().all(|state| state.iter().any(|&g| self.satisfiable_under(g, search.fixed)));
            return Some(allowed);
        }
        let var = self.var(f);
        // A group none of whose atoms lie below `f` is done: it only has to be satisfiable, and
        // then its state no longer tells paths apart (the memo of failures finds more).
        let mut collapsed: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut broken = false;
        for j in 0..states.len() {
            if search.last_var[j] < var && states[j].as_slice() != [TRUE] {
                if !states[j].iter().any(|&g| self.satisfiable_under(g, search.fixed)) {
                    broken = true;
                    break;
                }
                collapsed.push((j, std::mem::replace(&mut states[j], vec![TRUE])));
            }
        }
        let found = if broken { Some(false) } else { self.consistent_path_below(f, var, states, search) };
        for (j, state) in collapsed.into_iter().rev() {
            states[j] = state;
        }
        found
    }

    /// [`Table::consistent_path`] once the groups done above `f` are collapsed. The memo key
    /// (`f` and the states) is built in the search's scratch buffer, above the keys of the
    /// calls this one is inside; it is copied only when remembered as failed. (Allocating a
    /// key and copying the states at each node was most of the search's time.)
    fn consistent_path_below(
        &self,
        f: u32,
        var: u32,
        states: &mut [Vec<u32>],
        search: &mut PathSearch,
    ) -> Option<bool> {
        let key_start = search.scratch.len();
        search.scratch.push(f);
        for state in states.iter() {
            search.scratch.extend_from_slice(state);
            search.scratch.push(ABANDONED);
        }
        let found = if search.failed.contains(&search.scratch[key_start..]) {
            Some(false)
        } else {
            match self.consistent_path_children(f, var, states, search) {
                Some(false) => {
                    search.failed.insert(search.scratch[key_start..].to_vec());
                    Some(false)
                }
                other => other,
            }
        };
        search.scratch.truncate(key_start);
        found
    }

    /// The children of `f` in the order that may end the search soonest.
    fn consistent_path_children(
        &self,
        f: u32,
        var: u32,
        states: &mut [Vec<u32>],
        search: &mut PathSearch,
    ) -> Option<bool> {
        if search.fuel == 0 {
            return None;
        }
        search.fuel -= 1;
        let (lo, hi) = self.cofactors(f, var);
        // A branch that ends the search at once first.
        let hi_first = match search.shortest.as_mut() {
            Some(memo) => self.shortest_path(hi, memo) < self.shortest_path(lo, memo),
            None => hi == TRUE,
        };
        let order = if hi_first { [(true, hi), (false, lo)] } else { [(false, lo), (true, hi)] };
        for (holds, child) in order {
            if child == FALSE || search.fixed.get(&var).is_some_and(|&fixed| fixed != holds) {
                continue;
            }
            search.path.push((var, holds));
            let found = match search.group_of.get(&var) {
                Some(&j) => match self.advance(&states[j], var, holds, search.fixed) {
                    None => return None,
                    Some(next) if next.is_empty() => Some(false),
                    Some(next) => {
                        let state = std::mem::replace(&mut states[j], next);
                        let found = self.consistent_path(child, states, search);
                        states[j] = state;
                        found
                    }
                },
                None => self.consistent_path(child, states, search),
            };
            match found {
                Some(false) => {
                    search.path.pop();
                }
                other => return other,
            }
        }
        Some(false)
    }

    /// A group's state (nodes of which one must hold) once `var` takes the value `holds`: atoms
    /// above `var` that the path skipped take either value (or the one they are fixed to).
    /// `None` when the state grew past a few nodes.
    fn advance(&self, state: &[u32], var: u32, holds: bool, fixed: &FxHashMap<u32, bool>) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        let mut stack = state.to_vec();
        while let Some(g) = stack.pop() {
            if g == FALSE {
                continue;
            }
            if g == TRUE {
                return Some(vec![TRUE]);
            }
            let top = self.var(g);
            let (lo, hi) = self.cofactors(g, top);
            if top == var {
                out.push(if holds { hi } else { lo });
            } else if top > var {
                out.push(g);
            } else {
                match fixed.get(&top) {
                    Some(&value) => stack.push(if value { hi } else { lo }),
                    None => stack.extend([lo, hi]),
                }
            }
            if out.len() + stack.len() > MAX_STATE_NODES {
                return None;
            }
        }
        if out.contains(&TRUE) {
            return Some(vec![TRUE]);
        }
        out.retain(|&g| g != FALSE);
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// Whether `g` holds for some values of the atoms `assign` leaves open.
    pub fn satisfiable_under(&self, g: u32, assign: &FxHashMap<u32, bool>) -> bool {
        fn walk(t: &Table, g: u32, assign: &FxHashMap<u32, bool>, failed: &mut FxHashSet<u32>) -> bool {
            if g <= TRUE {
                return g == TRUE;
            }
            if failed.contains(&g) {
                return false;
            }
            let var = t.var(g);
            let (lo, hi) = t.cofactors(g, var);
            let ok = match assign.get(&var) {
                Some(&holds) => walk(t, if holds { hi } else { lo }, assign, failed),
                None => walk(t, lo, assign, failed) || walk(t, hi, assign, failed),
            };
            if !ok {
                failed.insert(g);
            }
            ok
        }
        walk(self, g, assign, &mut FxHashSet::default())
    }

    /// Whether some configuration of `a` and some configuration of `b` differ at most in the
    /// atoms of `free` (no node is created). `None` when that took more than `fuel` steps.
    pub fn meets_modulo(
        &self,
        a: u32,
        b: u32,
        free: &FxHashSet<u32>,
        memo: &mut FxHashMap<(u32, u32), bool>,
        fuel: &mut usize,
    ) -> Option<bool> {
        if a == FALSE || b == FALSE {
            return Some(false);
        }
        if a == TRUE || b == TRUE || a == b {
            return Some(true);
        }
        let key = (a.min(b), a.max(b));
        if let Some(&r) = memo.get(&key) {
            return Some(r);
        }
        *fuel = fuel.checked_sub(1)?;
        let var = self.var(a).min(self.var(b));
        let (a0, a1) = self.cofactors(a, var);
        let (b0, b1) = self.cofactors(b, var);
        let pairs: &[(u32, u32)] =
            if free.contains(&var) { &[(a0, b0), (a1, b1), (a0, b1), (a1, b0)] } else { &[(a0, b0), (a1, b1)] };
        let mut r = false;
        for &(x, y) in pairs {
            if self.meets_modulo(x, y, free, memo, fuel)? {
                r = true;
                break;
            }
        }
        memo.insert(key, r);
        Some(r)
    }

    /// `(a and b)` with the atoms of `vars` quantified away existentially, within one
    /// operation's fuel; `None` past it (not counted: the caller has another way).
    pub fn and_exists(&mut self, a: u32, b: u32, vars: &FxHashSet<u32>) -> Option<u32> {
        self.refuel();
        let both = self.and(a, b);
        if both == ABANDONED {
            return None;
        }
        match self.quantify(both, vars, true, &mut FxHashMap::default()) {
            ABANDONED => None,
            r => Some(r),
        }
    }

    /// `f` with the atoms of `vars` quantified away: existentially (`f` holds for some value
    /// of them) or universally (for every value). ABANDONED past the fuel.
    pub fn quantify(&mut self, f: u32, vars: &FxHashSet<u32>, exists: bool, memo: &mut FxHashMap<u32, u32>) -> u32 {
        if f <= TRUE {
            return f;
        }
        if let Some(&r) = memo.get(&f) {
            return r;
        }
        if self.fuel == 0 || !self.take_step() {
            return ABANDONED;
        }
        let var = self.var(f);
        let (f0, f1) = self.cofactors(f, var);
        let lo = self.quantify(f0, vars, exists, memo);
        if lo == ABANDONED {
            return ABANDONED;
        }
        let hi = self.quantify(f1, vars, exists, memo);
        if hi == ABANDONED {
            return ABANDONED;
        }
        let r = if vars.contains(&var) {
            if exists { self.or(lo, hi) } else { self.and(lo, hi) }
        } else {
            self.node(var, lo, hi)
        };
        if r != ABANDONED {
            memo.insert(f, r);
        }
        r
    }

    /// The share of all assignments of the atoms that satisfy `f` (each atom true or false with
    /// equal weight). Atoms in `fixed` count only with their value there.
    pub fn share(&self, f: u32, fixed: &FxHashMap<u32, bool>, memo: &mut FxHashMap<u32, f64>) -> f64 {
        match f {
            FALSE => 0.0,
            TRUE => 1.0,
            _ if complemented(f) => 1.0 - self.share(not(f), fixed, memo),
            _ => {
                if let Some(&known) = memo.get(&f) {
                    return known;
                }
                let var = self.var(f);
                let (lo, hi) = self.cofactors(f, var);
                let share = match fixed.get(&var) {
                    Some(true) => self.share(hi, fixed, memo),
                    Some(false) => self.share(lo, fixed, memo),
                    None => 0.5 * self.share(lo, fixed, memo) + 0.5 * self.share(hi, fixed, memo),
                };
                memo.insert(f, share);
                share
            }
        }
    }

    /// The share of all assignments that satisfy both `a` and `b` (as in [`Table::share`]),
    /// computed over the two diagrams together: nothing is built. `None` past `budget` pairs
    /// of nodes visited (two large diagrams over many atoms: the pairs grow as their product).
    pub fn share_both(
        &self,
        a: u32,
        b: u32,
        fixed: &FxHashMap<u32, bool>,
        memo: &mut FxHashMap<(u32, u32), f64>,
        single: &mut FxHashMap<u32, f64>,
        budget: &mut usize,
    ) -> Option<f64> {
        if a == FALSE || b == FALSE || a == not(b) {
            return Some(0.0);
        }
        if a == TRUE || a == b {
            return Some(self.share(b, fixed, single));
        }
        if b == TRUE {
            return Some(self.share(a, fixed, single));
        }
        let key = if a < b { (a, b) } else { (b, a) };
        if let Some(&known) = memo.get(&key) {
            return Some(known);
        }
        *budget = budget.checked_sub(1)?;
        let var = self.var(a).min(self.var(b));
        let (a_lo, a_hi) = self.cofactors(a, var);
        let (b_lo, b_hi) = self.cofactors(b, var);
        let share = match fixed.get(&var) {
            Some(true) => self.share_both(a_hi, b_hi, fixed, memo, single, budget)?,
            Some(false) => self.share_both(a_lo, b_lo, fixed, memo, single, budget)?,
            None => {
                0.5 * self.share_both(a_lo, b_lo, fixed, memo, single, budget)?
                    + 0.5 * self.share_both(a_hi, b_hi, fixed, memo, single, budget)?
            }
        };
        memo.insert(key, share);
        Some(share)
    }

    /// The literals of a conjunction of literals (its one path to TRUE); for anything else,
    /// the literals of its first path.
    pub fn cube(&self, mut f: u32) -> FxHashMap<u32, bool> {
        let mut out = FxHashMap::default();
        while f > TRUE {
            let var = self.var(f);
            let (lo, hi) = self.cofactors(f, var);
            let holds = lo == FALSE;
            out.insert(var, holds);
            f = if holds { hi } else { lo };
        }
        out
    }

    /// The atoms `f` depends on, in the order met, each once.
    pub fn support(&self, f: u32, out: &mut Vec<u32>, seen: &mut FxHashSet<u32>) {
        if f <= TRUE || !seen.insert(f >> 1) {
            return;
        }
        let n = self.nodes[index(f)];
        out.push(n.var);
        self.support(n.lo, out, seen);
        self.support(n.hi, out, seen);
    }

    /// Nodes reachable from `f` (its size; `f` and `not f` alike).
    pub fn size(&mut self, f: u32) -> usize {
        if let Some(&known) = self.sizes.get(&(f >> 1)) {
            return known;
        }
        let mut seen = FxHashSet::default();
        self.support(f, &mut Vec::new(), &mut seen);
        self.sizes.insert(f >> 1, seen.len());
        seen.len()
    }

    /// A shortest path of `f` to TRUE whose cube also meets `within` (the constraints: a path
    /// may set one value equal to two constants). Depth first, shorter branch first, at most
    /// `budget` nodes visited; `None` when none was found.
    pub fn constrained_cube(&mut self, f: u32, within: u32, mut budget: usize) -> Option<Vec<(u32, bool)>> {
        fn length(t: &Table, f: u32, memo: &mut FxHashMap<u32, usize>) -> usize {
            t.shortest_path(f, memo)
        }
        struct Search {
            memo: FxHashMap<u32, usize>,
            cube: Vec<(u32, bool)>,
            within: u32,
        }
        fn walk(t: &mut Table, at: u32, s: &mut Search, budget: &mut usize) -> bool {
            if at == TRUE {
                return true;
            }
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let var = t.var(at);
            let (lo, hi) = t.cofactors(at, var);
            let (lo_len, hi_len) = (length(t, lo, &mut s.memo), length(t, hi, &mut s.memo));
            let order = if hi_len <= lo_len { [(true, hi), (false, lo)] } else { [(false, lo), (true, hi)] };
            for (holds, child) in order {
                if child == FALSE {
                    continue;
                }
                s.cube.push((var, holds));
                // The cube's variables all come before `child`'s: the path is a chain of
                // nodes over it.
                let mut path = child;
                for &(var, b) in s.cube.iter().rev() {
                    path = if b { t.node(var, FALSE, path) } else { t.node(var, path, FALSE) };
                }
                if t.intersects(path, s.within) && walk(t, child, s, budget) {
                    return true;
                }
                s.cube.pop();
            }
            false
        }
        if !self.intersects(f, within) {
            return None;
        }
        let mut search = Search { memo: Default::default(), cube: Vec::new(), within };
        walk(self, f, &mut search, &mut budget).then_some(search.cube)
    }

    /// The paths to TRUE, as cubes; `None` when there are more than `limit`.
    pub fn cubes(&self, f: u32, limit: usize) -> Option<Vec<Vec<(u32, bool)>>> {
        fn walk(t: &Table, f: u32, path: &mut Vec<(u32, bool)>, out: &mut Vec<Vec<(u32, bool)>>, limit: usize) -> bool {
            if f == FALSE {
                return true;
            }
            if f == TRUE {
                out.push(path.clone());
                return out.len() <= limit;
            }
            let var = t.var(f);
            let (lo, hi) = t.cofactors(f, var);
            path.push((var, false));
            let ok = walk(t, lo, path, out, limit);
            path.pop();
            if !ok {
                return false;
            }
            path.push((var, true));
            let ok = walk(t, hi, path, out, limit);
            path.pop();
            ok
        }
        let mut out = Vec::new();
        walk(self, f, &mut Vec::new(), &mut out, limit).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_builds_nothing_and_canonical_forms_meet() {
        let mut t = Table::fresh();
        let a = t.var_edge(0);
        let b = t.var_edge(1);
        let made = t.node_count();
        let na = not(a);
        assert_eq!(t.node_count(), made);
        t.refuel();
        // a and b, built two ways, is one edge.
        let ab = t.and(a, b);
        let de_morgan = not(t.or(na, not(b)));
        assert_eq!(ab, de_morgan);
        assert_eq!(t.and(a, na), FALSE);
        assert_eq!(t.or(a, na), TRUE);
        // x or not x through cofactors: the terminal.
        assert!(t.intersects(ab, a) && !t.intersects(ab, na));
    }

    #[test]
    fn the_unique_table_finds_every_node_after_growing() {
        let mut t = Table::fresh();
        let vars: Vec<u32> = (0..40).map(|v| t.var_edge(v)).collect();
        t.refuel();
        // The parity of many atoms: one node per atom and parity, well past the first slots.
        let mut parity = FALSE;
        for &v in &vars {
            let a = t.and(parity, not(v));
            let b = t.and(not(parity), v);
            parity = t.or(a, b);
        }
        let made = t.node_count();
        let mut again = FALSE;
        for &v in &vars {
            let a = t.and(again, not(v));
            let b = t.and(not(again), v);
            again = t.or(a, b);
        }
        assert_eq!(again, parity);
        assert_eq!(t.node_count(), made);
    }

    #[test]
    fn literals_are_a_cube_and_are_searched_under_without_nodes() {
        let mut t = Table::fresh();
        let vars: Vec<u32> = (0..6).map(|v| t.var_edge(v)).collect();
        t.refuel();
        // The cube built in one pass is the conjunction built literal by literal.
        let lits = [(1, true), (3, true), (4, false)];
        let mut by_and = TRUE;
        for &(v, holds) in &lits {
            let lit = if holds { vars[v as usize] } else { not(vars[v as usize]) };
            by_and = t.and(by_and, lit);
        }
        assert_eq!(t.cube_of_literals(&lits), by_and);
        // Searching three conditions under literals answers as their conjunction with the
        // cube, for every set of literals over the atoms (each absent, false or true).
        let x = t.or(vars[0], vars[2]);
        let y = {
            let a = t.and(vars[1], not(vars[3]));
            t.or(a, vars[5])
        };
        let z = {
            let a = t.and(vars[2], vars[4]);
            not(a)
        };
        for code in 0..3u32.pow(6) {
            let fixed: Vec<(u32, bool)> = (0..6)
                .filter_map(|v| match code / 3u32.pow(v) % 3 {
                    0 => None,
                    k => Some((v, k == 2)),
                })
                .collect();
            let cube = t.cube_of_literals(&fixed);
            let xy = t.and(x, y);
            let xyz = t.and(xy, z);
            let expected = t.intersects(xyz, cube);
            let made = t.node_count();
            assert_eq!(t.intersects3_under([x, y, z], &fixed), expected, "{fixed:?}");
            assert_eq!(t.node_count(), made);
        }
    }
}
