//! Loops whose iterations the evaluation does not tell apart. A loop over a sequence of unknown
//! length runs its body once, for an element that stands for every element. A test of that
//! element — `if chunk_start >= num_tokens`, `if i == 0`, `if layer.is_moe` — is true in some
//! iterations and false in others: it is not a configuration, and reading it as one made
//! "this iteration is past the data" a row of its own (vLLM's chunked experts, where a rank
//! runs extra chunks to keep its collectives in step and stores none of them, read NEVER).
//!
//! Such a test is a *per-iteration* atom. When the loop ends, its per-iteration atoms are
//! quantified away from the locals it leaves behind, as a device kernel's per-program tests are
//! when it returns (`device.rs`): a value the loop bound is there where some iteration binds it;
//! a value from before the loop stays only where no iteration rebinds it. Where iterations
//! differ in what they bind (only the first chunk scaled), both values are there: the output
//! holds both kinds of data. A comprehension's item is there where some iteration produces it,
//! and so is an item the loop appends to a list the function holds.
//! A site keeps the test in its condition (it says in which iterations the site runs), and
//! attribute writes into objects keep it too: a layer built for index `i` keeps
//! `i < config.num_hash_layers`, which is what tells a model's layer kinds apart.
//!
//! In a loop over data (`for expert_idx in expert_hit`, a tensor's rows), the element is data,
//! not a symbol: a test of data in its body is per-iteration of the innermost such loop.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use rustc_hash::{FxHashMap, FxHashSet};

use super::cond::Cond;
use super::interp::{Frame, Interp};
use super::ops::union;
use super::value::{ArithTerm, G, Loc, SymId, SymKey, Value};

impl Interp<'_, '_> {
    /// Records that the unknown value `element` stands for every element of a loop's sequence
    /// (or their position, `enumerate`'s index): tests of it, or of anything read from it,
    /// are per-iteration.
    pub fn note_loop_element(&mut self, element: &Value) {
        if let Value::Sym(s) = element {
            self.loop_elements.insert(*s);
        }
    }

    /// The loop element the unknown value `s` is, or was read or computed from (`layer.is_moe`,
    /// `layer_idx % config.moe_layer_freq`).
    pub fn loop_element_of(&self, s: SymId) -> Option<SymId> {
        self.loop_element_within(s, 64)
    }

    fn loop_element_within(&self, mut s: SymId, budget: usize) -> Option<SymId> {
        // Bounded: symbols are made from earlier ones, so the chain ends; the bound only
        // guards against a mistake turning into a hang.
        for _ in 0..budget {
            if self.loop_elements.contains(&s) {
                return Some(s);
            }
            match &self.syms[s as usize].key {
                SymKey::Path(parent, _) => s = *parent,
                SymKey::Arith(_, a, b) => {
                    return [a, b].into_iter().find_map(|term| match term {
                        ArithTerm::Sym(x) => self.loop_element_within(*x, budget / 2),
                        ArithTerm::Int(_) => None,
                    });
                }
                _ => return None,
            }
        }
        None
    }

    /// For a loop whose element is data (a tensor's rows, `for expert_idx in expert_hit`): an
    /// element standing for the loop, under which tests of data in its body are per-iteration.
    pub fn data_loop(&mut self, element: &G, loc: Loc) -> Option<SymId> {
        fn holds_data(g: &G) -> bool {
            g.iter().any(|(_, v)| match v {
                Value::Num(n) => n.tensor,
                // `zip`'s and `enumerate`'s pairs.
                Value::Tuple(items) => items.iter().any(holds_data),
                _ => false,
            })
        }
        if !holds_data(element) {
            return None;
        }
        let text = format!("an iteration over {}", self.text(loc));
        let loop_sym = self.sym_id(SymKey::LoopIndex(loc), text, None);
        self.loop_elements.insert(loop_sym);
        Some(loop_sym)
    }

    /// Marks the atom `cond` stands for as per-iteration when one of the values it tests is (or
    /// was read from) a loop element, or is data tested in the body of a loop over data.
    pub fn note_iteration_test(&mut self, cond: &Cond, operands: &[&Value]) {
        let Some((atom, _)) = self.conds.as_literal(cond) else { return };
        let element = operands
            .iter()
            .find_map(|v| match v {
                Value::Sym(s) => self.loop_element_of(*s),
                _ => None,
            })
            .or_else(|| {
                let data = operands.iter().any(|v| matches!(v, Value::Num(n) if n.tensor));
                data.then(|| self.data_loops.last().copied()).flatten()
            });
        if let Some(element) = element {
            self.iteration_atoms.entry(atom).or_insert(element);
        }
    }

    /// The loop elements among the values of `g` (looking into tuples: `enumerate`'s pairs).
    pub fn loop_elements_in(&self, g: &G, out: &mut FxHashSet<SymId>) {
        for (_, v) in g.iter() {
            match v {
                Value::Sym(s) if self.loop_elements.contains(s) => {
                    out.insert(*s);
                }
                Value::Tuple(items) => {
                    for item in items.iter() {
                        self.loop_elements_in(item, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// The loop elements the objects among the values of `g` were made for (a model's layers,
    /// built one per index by a comprehension): what tells them apart (a layer's kind, tested
    /// on its index) differs between the iterations of a loop over them.
    pub fn kinds_in(&self, g: &G, out: &mut FxHashSet<SymId>) {
        for (_, v) in g.iter() {
            match v {
                Value::Obj(id) => {
                    if let Some(elements) = self.made_for.get(id) {
                        out.extend(elements.iter().copied());
                    }
                }
                Value::Tuple(items) => {
                    for item in items.iter() {
                        self.kinds_in(item, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// The locals as a loop over `elements` (or objects made for `kinds`) begins, kept to tell
    /// what its iterations rebind; `None` when it has no element standing for many (nothing
    /// to quantify, nothing kept).
    pub fn locals_before_iterations(
        &self,
        frame: &Frame,
        elements: &FxHashSet<SymId>,
        kinds: &FxHashSet<SymId>,
    ) -> Option<FxHashMap<Name, G>> {
        (!(elements.is_empty() && kinds.is_empty()) && frame.kernel.is_none()).then(|| frame.locals.clone())
    }

    /// What the loop over `elements` leaves behind, over all its iterations (see the module
    /// documentation): its per-iteration atoms quantified away from the locals, the returns
    /// and where the function goes on. `before`: the locals when the loop began.
    ///
    /// The atoms that tell apart the objects it visits (`kinds`: a layer's kind) are
    /// quantified away from what is not data: the MoE layer a loop keeps is found wherever
    /// some layer is one. Data keeps them: what flowed through the layers is told apart by
    /// the kind of layer it went through, one row each, as the model's answer reads.
    pub fn end_iterations(
        &mut self,
        frame: &mut Frame,
        before: &FxHashMap<Name, G>,
        elements: &FxHashSet<SymId>,
        kinds: &FxHashSet<SymId>,
    ) {
        let own = self.iteration_vars(elements);
        let mut vars = own.clone();
        vars.extend(self.iteration_vars(kinds));
        if vars.is_empty() {
            return;
        }
        let holds_data = |g: &G| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor));
        let mentions =
            |conds: &super::cond::Conds, c: &Cond| conds.support(c).iter().any(|a| vars.contains(&(*a as u32)));
        let mut names: Vec<Name> = frame
            .locals
            .iter()
            .filter(|(_, g)| g.iter().any(|(c, _)| mentions(&self.conds, c)))
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        for name in names {
            let old = before.get(&name);
            let quantified = if holds_data(&frame.locals[&name]) { &own } else { &vars };
            let mut alternatives = Vec::new();
            for (c, v) in frame.locals[&name].iter() {
                // A value from before the loop is left where every iteration leaves it. Data is
                // told apart by identity: an iteration that stores unscaled data into a fresh
                // buffer (`torch.empty`) wrote it, though the two read alike.
                let kept = old.is_some_and(|g| g.iter().any(|(_, o)| same_binding(o, v)));
                alternatives.push((self.conds.over_atoms(c, quantified, !kept), v.clone()));
            }
            let out = self.unite_overlapping(alternatives);
            frame.locals.insert(name, out);
        }
        // A list the loop appended to holds an item where some iteration appended it, as a
        // comprehension's items are there where some iteration produces them: the experts'
        // outputs gathered under `if num_tokens == 0: continue` are in the list wherever some
        // expert got tokens. (Kept per iteration, the list was empty where that test held,
        // and `torch.cat(outputs) if len(outputs) else ...` lost those configurations.)
        let mut lists: Vec<super::value::HeapId> = frame
            .locals
            .values()
            .flat_map(|g| g.iter())
            .filter_map(|(_, v)| match v {
                Value::Obj(id) if matches!(self.heap[*id as usize].kind, super::interp::ObjKind::List(_)) => Some(*id),
                _ => None,
            })
            .collect();
        lists.sort_unstable();
        lists.dedup();
        for id in lists {
            let super::interp::ObjKind::List(items) = &self.heap[id as usize].kind else { continue };
            if !items.iter().any(|g| g.iter().any(|(c, _)| mentions(&self.conds, c))) {
                continue;
            }
            let items: Vec<G> = items
                .iter()
                .map(|g| {
                    let quantified = if holds_data(g) { &own } else { &vars };
                    self.unite_overlapping(
                        g.iter().map(|(c, v)| (self.conds.over_atoms(c, quantified, true), v.clone())).collect(),
                    )
                })
                .collect();
            self.touch(id);
            self.heap[id as usize].kind = super::interp::ObjKind::List(items);
        }
        if frame.returns.iter().any(|(c, _)| mentions(&self.conds, c)) {
            let quantified = if holds_data(&frame.returns) { &own } else { &vars };
            let mut out = G::empty();
            for (c, v) in frame.returns.iter() {
                out.push(&self.conds, self.conds.over_atoms(c, quantified, true), v.clone());
            }
            frame.returns = out;
        }
        // The function goes on where no iteration returned (a search loop finds its match, as
        // a value the loop binds is there where some iteration binds it): the code after the
        // loop (`raise ValueError("not found")`) does not run where an iteration returned.
        frame.alive = self.conds.over_atoms(&frame.alive, &vars, false);
        for bound in frame.bound.values_mut() {
            *bound = self.conds.over_atoms(bound, &vars, true);
        }
    }
}

impl Interp<'_, '_> {
    /// Before an iteration over `element`: where it has an element to run for. An object a
    /// comprehension made for a range that may be empty (`maybe_absent`) stands for elements
    /// that are there only where the range is not empty. The body is still evaluated as one
    /// iteration (what it binds is there, as for any loop of unknown length); a raise in it
    /// needs an element, and is narrowed to where there is one: a check that every layer is a
    /// decoder layer fails on the ranks that hold pipeline padding, not everywhere. Only the
    /// body's own statements are narrowed: a callee that raises stops there as before (going
    /// on past its raise, it would return what it never returns). Returns the guard to
    /// restore after the body.
    pub fn guard_iteration(&mut self, element: &G) -> (usize, Cond) {
        let outer = self.raise_guard;
        let ranges_of = |v: &Value| match v {
            Value::Obj(id) => self.maybe_absent.get(id).cloned(),
            _ => None,
        };
        // (Every loop comes here: nothing to build for the ones over anything else.)
        if !element.iter().any(|(_, v)| ranges_of(v).is_some()) {
            return outer;
        }
        let alternatives: Vec<(Cond, Option<Rc<[super::builtins::RangeBounds]>>)> =
            element.iter().map(|(c, v)| (*c, ranges_of(v))).collect();
        let mut present = self.conds.falsity();
        for (c, ranges) in alternatives {
            let mut there = c;
            for bounds in ranges.iter().flat_map(|r| r.iter()) {
                there = there.and(&self.nonempty(bounds));
            }
            present = present.or(&there);
        }
        let depth = self.stack.len();
        let enclosing = if outer.0 == depth { outer.1 } else { self.conds.truth() };
        self.raise_guard = (depth, enclosing.and(&present));
        outer
    }

    /// `pc` narrowed to where a raise under it can happen (see [`Interp::guard_iteration`]).
    /// Narrowed, it holds only in this iteration: not part of a summary to replay elsewhere.
    pub fn guarded_raise(&mut self, pc: &Cond) -> Cond {
        let (depth, guard) = self.raise_guard;
        if guard.is_true() || depth != self.stack.len() {
            return *pc;
        }
        self.not_replayable();
        pc.and(&guard)
    }

    /// The per-iteration atoms of the loops over `elements`, as variables.
    pub fn iteration_vars(&self, elements: &FxHashSet<SymId>) -> FxHashSet<u32> {
        self.iteration_atoms
            .iter()
            .filter(|(_, element)| elements.contains(element))
            .map(|(&atom, _)| atom as u32)
            .collect()
    }

    /// What a comprehension over `elements` collects, over all its iterations: an item is there
    /// where some iteration produces it (`[e(x) for x in xs if x.any()]` has items wherever
    /// some element passes its filter).
    pub fn over_iterations(&self, g: &G, elements: &FxHashSet<SymId>) -> G {
        let vars = self.iteration_vars(elements);
        if vars.is_empty() {
            return g.clone();
        }
        let alternatives = g.iter().map(|(c, v)| (self.conds.over_atoms(c, &vars, true), v.clone())).collect();
        self.unite_overlapping(alternatives)
    }

    /// Alternatives that now overlap, made one where both are data: iterations that stored
    /// different data into one buffer (the first chunk scaled, the others not) left a buffer
    /// holding both, not one or the other.
    fn unite_overlapping(&self, alternatives: Vec<(Cond, Value)>) -> G {
        let mut out: Vec<(Cond, Value)> = Vec::new();
        for (c, v) in alternatives {
            let Value::Num(n) = &v else {
                out.push((c, v));
                continue;
            };
            if !n.tensor || out.len() > MAX_UNITED {
                out.push((c, v));
                continue;
            }
            let mut rest = c;
            let mut next = Vec::with_capacity(out.len() + 2);
            for (d, w) in out {
                let both = d.and(&c);
                match &w {
                    Value::Num(m) if m.tensor && self.conds.feasible(&both) => {
                        next.push((d.and(&c.not()), w.clone()));
                        next.push((both, Value::Num(Rc::new(union(m, n)))));
                        rest = rest.and(&d.not());
                    }
                    _ => next.push((d, w)),
                }
            }
            next.push((rest, v));
            out = next;
        }
        let mut g = G::empty();
        for (c, v) in out {
            g.push(&self.conds, c, v);
        }
        g
    }
}

/// Overlapping alternatives of one local made one up to this many (each may split in two).
const MAX_UNITED: usize = 16;

/// Whether a local still holds what it held: the same data (not only data of the same scale),
/// or a value that is the same thing.
fn same_binding(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::Num(a), Value::Num(b)) => std::rc::Rc::ptr_eq(a, b),
        _ => before.same(after),
    }
}
