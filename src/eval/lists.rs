//! Lists the evaluation built, changed by position: `index`, `pop(i)`, `insert`, `remove`.
//!
//! A list is a sequence of items each present under a condition (an `append` under a branch
//! adds an item only there), which iteration visits in order. Moving an item by position
//! (`backends.append(backends.pop(backends.index(b)))`, a priority list reordered on one
//! platform) needs the concrete sequences instead: the list is split into its *worlds*, each a
//! condition and the items present there, the operation runs in each, and the worlds are
//! merged back position by position. Lists with too many worlds keep the coarser treatment.
//!
//! A list is *exact* when its items are its elements: made by a literal (`[*xs]` of an exact
//! list too), `+` or `* n` of exact lists, a comprehension over known sequences, `list(xs)`
//! of an exact list, or a dict's `keys()`, and filled by `append`s outside abstract loops (see
//! `Interp::exact_lists`). Other
//! lists may hold one item standing for many (`extend(xs)`, an `append` in a loop evaluated
//! as one abstract iteration), and their length is not known. `len` of an exact list is
//! computed: `[None] * len(bindings)` then has its slots.

use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::value::*;
use crate::syntax::Constant;
use ruff_python_ast::CmpOp;

/// More worlds than this and a positional operation falls back to the coarse one.
const MAX_WORLDS: usize = 32;

/// A concrete list: where it is this sequence.
pub(super) type World = (Cond, Vec<Value>);

impl Interp<'_, '_> {
    /// Records that list `id` (just made) holds its elements item by item.
    pub(super) fn mark_exact(&mut self, id: HeapId) {
        self.exact_lists.insert(id, self.abstract_depth);
    }

    /// After an `append` to list `id`: exact still if no abstract loop was entered since the
    /// list was made (appended in one, its item stands for many).
    pub(super) fn appended(&mut self, id: HeapId) {
        if self.exact_lists.get(&id).is_some_and(|&depth| depth != self.abstract_depth) {
            self.exact_lists.remove(&id);
        }
    }

    /// `len(xs)` of an exact list under `pc`: per configuration, how many of its items are
    /// present. `None` when the list is not exact or the counts have too many alternatives.
    pub(super) fn list_length(&mut self, id: HeapId, pc: &Cond) -> Option<G> {
        if !self.exact_lists.contains_key(&id) {
            return None;
        }
        let ObjKind::List(items) = &self.read_object(id).kind else { return None };
        let mut counts: Vec<(Cond, i64)> = vec![(*pc, 0)];
        for item in items {
            let present = item.coverage(&self.conds);
            let mut next: Vec<(Cond, i64)> = Vec::new();
            for (c, n) in counts {
                for (c, n) in [(c.and(&present), n + 1), (c.and(&present.not()), n)] {
                    if !self.conds.feasible(&c) {
                        continue;
                    }
                    match next.iter_mut().find(|(_, m)| *m == n) {
                        Some(same) => same.0 = same.0.or(&c),
                        None => next.push((c, n)),
                    }
                }
            }
            if next.len() > MAX_WORLDS {
                return None;
            }
            counts = next;
        }
        let mut out = G::empty();
        for (c, n) in counts {
            out.push(&self.conds, c, Value::Const(Constant::Int(n)));
        }
        Some(out)
    }

    /// `a == b` for two distinct exact lists: where they have the same length and equal items
    /// position by position. Two views of dict keys (`incoming.entries.keys() !=
    /// outgoing.exits.keys()`) compare as sets. `None` when a list is not exact, has too many
    /// worlds, or a keys view holds a key that is not a constant.
    pub(super) fn lists_equal(&mut self, a: HeapId, b: HeapId, loc: Loc) -> Option<Cond> {
        if a == b || !self.exact_lists.contains_key(&a) || !self.exact_lists.contains_key(&b) {
            return None;
        }
        let (ObjKind::List(xs), ObjKind::List(ys)) =
            (self.read_object(a).kind.clone(), self.read_object(b).kind.clone())
        else {
            return None;
        };
        let as_sets = self.key_views.contains(&a) && self.key_views.contains(&b);
        let (left, right) = (self.worlds(&xs)?, self.worlds(&ys)?);
        let mut equal = self.conds.falsity();
        for (ca, va) in &left {
            for (cb, vb) in &right {
                let both = ca.and(cb);
                if !self.conds.feasible(&both) {
                    continue;
                }
                let same = if as_sets {
                    let keys = |values: &[Value]| -> Option<std::collections::BTreeSet<String>> {
                        values
                            .iter()
                            .map(|v| match v {
                                Value::Const(Constant::Str(s)) => Some(s.to_string()),
                                _ => None,
                            })
                            .collect()
                    };
                    self.conds.constant(keys(va)? == keys(vb)?)
                } else if va.len() != vb.len() {
                    self.conds.falsity()
                } else {
                    let mut all = self.conds.truth();
                    for (x, y) in va.iter().zip(vb) {
                        all = all.and(&self.compare_values(x, CmpOp::Eq, y, "", "", loc));
                        if all.is_false() {
                            break;
                        }
                    }
                    all
                };
                equal = equal.or(&both.and(&same));
            }
        }
        Some(equal)
    }

    /// The concrete sequences `items` stands for, if there are few enough.
    pub(super) fn worlds(&self, items: &[G]) -> Option<Vec<World>> {
        let mut worlds: Vec<World> = vec![(self.conds.truth(), Vec::new())];
        for item in items {
            let absent = item.coverage(&self.conds).not();
            let mut next = Vec::new();
            for (wc, values) in &worlds {
                for (c, v) in item.iter() {
                    let nc = wc.and(c);
                    if self.conds.feasible(&nc) {
                        let mut vs = values.clone();
                        vs.push(v.clone());
                        next.push((nc, vs));
                    }
                }
                let nc = wc.and(&absent);
                if self.conds.feasible(&nc) {
                    next.push((nc, values.clone()));
                }
            }
            if next.len() > MAX_WORLDS {
                return None;
            }
            worlds = next;
        }
        Some(worlds)
    }

    /// Worlds merged back into items: item `i` is the `i`-th value of every world that long.
    fn from_worlds(&self, worlds: &[World]) -> Vec<G> {
        let longest = worlds.iter().map(|(_, vs)| vs.len()).max().unwrap_or(0);
        (0..longest)
            .map(|i| {
                let mut item = G::empty();
                for (c, vs) in worlds {
                    if let Some(v) = vs.get(i) {
                        item.push(&self.conds, *c, v.clone());
                    }
                }
                item
            })
            .collect()
    }

    /// A positional method of list `id` under `pc` (`index`, `pop`, `insert`, `remove`), or
    /// `None` when the list has too many worlds or an argument is not a known position.
    pub(super) fn list_positional(&mut self, id: HeapId, name: &str, args: &[G], pc: &Cond, loc: Loc) -> Option<G> {
        let ObjKind::List(items) = self.read_object(id).kind.clone() else { return None };
        let worlds = self.worlds(&items)?;
        let positions = |g: Option<&G>, default: Option<i64>| -> Option<Vec<(Cond, i64)>> {
            match g {
                None => default.map(|d| vec![(Cond::TRUE, d)]),
                Some(g) => g
                    .iter()
                    .map(|(c, v)| match v {
                        Value::Const(Constant::Int(i)) => Some((*c, *i)),
                        _ => None,
                    })
                    .collect(),
            }
        };
        let mut out = G::empty();
        let mut changed: Vec<World> = Vec::new();
        let mut raised = self.conds.falsity();
        for (wc, values) in worlds {
            let here = wc.and(pc);
            let elsewhere = wc.and(&pc.not());
            if self.conds.feasible(&elsewhere) {
                changed.push((elsewhere, values.clone()));
            }
            if !self.conds.feasible(&here) {
                continue;
            }
            match name {
                "index" | "remove" => {
                    let target = args.first()?.clone();
                    // The first equal item: each position under "equal here, at none before".
                    let mut before = self.conds.falsity();
                    for (i, v) in values.iter().enumerate() {
                        let item = G::under(Cond::TRUE, v.clone());
                        let equal = self.compare(&item, CmpOp::Eq, &target, "…", "…", loc);
                        let first = here.and(&equal).and(&before.not());
                        if self.conds.feasible(&first) {
                            if name == "index" {
                                out.push(&self.conds, first, Value::Const(Constant::Int(i as i64)));
                                changed.push((first, values.clone()));
                            } else {
                                let mut vs = values.clone();
                                vs.remove(i);
                                changed.push((first, vs));
                            }
                        }
                        before = before.or(&equal);
                    }
                    // None equal: `ValueError` (the list is left as it was).
                    let missing = here.and(&before.not());
                    if self.conds.feasible(&missing) {
                        raised = raised.or(&missing);
                        changed.push((missing, values.clone()));
                    }
                }
                "pop" => {
                    for (c, at) in positions(args.first(), Some(-1))? {
                        let within = here.and(&c);
                        if !self.conds.feasible(&within) {
                            continue;
                        }
                        let len = values.len() as i64;
                        let i = if at < 0 { at + len } else { at };
                        if !(0..len).contains(&i) {
                            raised = raised.or(&within);
                            changed.push((within, values.clone()));
                            continue;
                        }
                        let mut vs = values.clone();
                        let popped = vs.remove(i as usize);
                        out.push(&self.conds, within, popped);
                        changed.push((within, vs));
                    }
                }
                "insert" => {
                    let value = args.get(1)?.clone();
                    for (c, at) in positions(args.first(), None)? {
                        for (vc, v) in value.iter() {
                            let within = here.and(&c).and(vc);
                            if !self.conds.feasible(&within) {
                                continue;
                            }
                            let len = values.len() as i64;
                            let i = if at < 0 { (at + len).max(0) } else { at.min(len) };
                            let mut vs = values.clone();
                            vs.insert(i as usize, v.clone());
                            changed.push((within, vs));
                        }
                    }
                }
                _ => return None,
            }
        }
        if changed.len() > MAX_WORLDS * 2 {
            return None;
        }
        let finished = pc.and(&raised.not());
        if matches!(name, "insert" | "remove") && self.conds.feasible(&finished) {
            out.push(&self.conds, finished, Value::none());
        }
        self.raise_under(&raised, loc);
        let items = self.from_worlds(&changed);
        self.heap[id as usize].kind = ObjKind::List(items);
        Some(out)
    }
}
