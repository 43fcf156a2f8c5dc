//! Call summaries: a function called again with the same receiver and arguments, while
//! nothing it read has changed, gives the same result. The same `to_standard()` or
//! `select_experts(...)` is reached from many paths of an MoE layer (every dispatcher and
//! runner materialises the same routing); evaluating it once and replaying the result is
//! what keeps those layers within bounds.
//!
//! A call's evaluation depends on: its receiver and arguments (conditions included, seen
//! relative to the call), the objects older than the call that it reads, and the stack (depth
//! and recursion bounds). Its effects outside itself are: its result (with the objects it made
//! that the result reaches), writes into older objects, application sites and raises. A
//! summary is kept only for calls that wrote into no older object and hit no bound; it
//! records the versions of the older objects read, the sites and raises under conditions
//! relative to the call, and a copy of the objects the result reaches. Replaying gives the
//! caller what evaluating the body again would: fresh copies of those objects, the sites and
//! raises under the caller's condition.
//!
//! Conditions are seen from the call: what the call reads from older objects, which hold
//! conditions as seen from the entry, is taken `relative_to` the call's base (the condition
//! under which it runs). Where that drops or simplifies an alternative (a field set only under
//! `config.fold`), the result depends on the base: the summary then replays only under the
//! same base. Objects the call made may hold conditions as seen from the entry too (a nested
//! `__init__` writes into an object older than itself); the summary keeps them as seen from
//! the call, so that a replay under another base does not carry the first caller's condition.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::cond::{Cond, Selection};
use super::interp::{ArgSlot, Interp, ObjKind, Object};
use super::value::*;

/// What one call in progress has read and done so far.
#[derive(Default)]
pub struct Session {
    /// Objects numbered below this existed before the call.
    pub mark: HeapId,
    /// Older objects read, with their version when first read.
    pub reads: FxHashMap<HeapId, u32>,
    /// Older objects written: the call has an effect a summary cannot replay.
    pub writes: Vec<HeapId>,
    /// Application sites met and raises, in the order met (see [`Effect`]).
    pub effects: Vec<Effect>,
    /// False when the result depends on more than the inputs (a bound, a recursion cut).
    pub replayable: bool,
    /// Older objects whose contents read differently under another base (see the module doc).
    pub base_reads: FxHashSet<HeapId>,
}

/// An application site or a raise a call met, under a condition relative to the call; or
/// those of a call it made, relative to that call, with the condition it was made under.
///
/// A callee's effects are handed to its caller as they are, not conjoined with the condition
/// of the call: only a call kept as a summary needs them relative to itself (most calls write
/// into older objects and are never kept), and conjoining every raise at every level of the
/// stack was a tenth of a large trace.
pub enum Effect {
    Site(SiteId, Cond),
    Raise(Cond, Loc),
    Call(Cond, Rc<[Effect]>),
}

/// The sites and raises of `effects`, relative to the call that met them, in the order met.
fn flatten(effects: &[Effect], within: &Cond, sites: &mut Vec<(SiteId, Cond)>, raises: &mut Vec<(Cond, Loc)>) {
    for effect in effects {
        match effect {
            Effect::Site(site, c) => sites.push((*site, c.and(within))),
            Effect::Raise(c, loc) => raises.push((c.and(within), *loc)),
            Effect::Call(pc, nested) => flatten(nested, &pc.and(within), sites, raises),
        }
    }
}

/// A finished call that can be replayed.
pub struct Summary {
    reads: Vec<(HeapId, u32)>,
    returns: G,
    alive: Cond,
    /// What the call wrote into the tensors it was handed (see `Frame::aliases`).
    written: Vec<(ArgSlot, G)>,
    sites: Vec<(SiteId, Cond)>,
    raises: Vec<(Cond, Loc)>,
    /// The objects the call made that its result reaches, as they were when it returned.
    made: Vec<(HeapId, Object)>,
    /// The base the call ran under, when what it read depends on it.
    base: Option<Cond>,
}

impl Interp<'_, '_> {
    /// Whether object `id` is outside the innermost call in progress (older than it, or a
    /// shared object such as a module global's value).
    fn outside(&self, id: HeapId, mark: HeapId) -> bool {
        id < mark || self.shared[id as usize]
    }

    /// Object `id`, for reading its contents (noted for the summary of the call in progress).
    pub fn read_object(&self, id: HeapId) -> &Object {
        self.note_read(id);
        &self.heap[id as usize]
    }

    /// Notes that the contents of object `id` (fields, items, entries) are read.
    pub fn note_read(&self, id: HeapId) {
        let mut sessions = self.sessions.borrow_mut();
        if let Some(top) = sessions.last_mut() {
            if self.outside(id, top.mark) {
                top.reads.entry(id).or_insert(self.versions[id as usize]);
            }
        }
    }

    /// `g`, read from the contents of object `id` older than the current call, as seen from
    /// the call. Where that differs from `g`, the call's result depends on its base.
    pub fn seen_from_call(&self, id: HeapId, g: &G) -> G {
        let seen = g.relative_to(&self.conds, &self.base);
        let same = seen.0.len() == g.0.len() && seen.iter().zip(g.iter()).all(|((a, _), (b, _))| a == b);
        if !same {
            if let Some(top) = self.sessions.borrow_mut().last_mut() {
                top.base_reads.insert(id);
            }
        }
        seen
    }

    /// Notes that the contents of object `id` change.
    pub fn touch(&mut self, id: HeapId) {
        self.versions[id as usize] += 1;
        // Any change to a dict but an assignment to a constant key: its entries are no longer
        // all known.
        if !self.keyed_write {
            self.exact_dicts.remove(&id);
        }
        let mut sessions = self.sessions.borrow_mut();
        if let Some(top) = sessions.last_mut() {
            if self.outside(id, top.mark) {
                top.writes.push(id);
            }
        }
    }

    /// The innermost call's result now depends on where it was called from.
    pub fn not_replayable(&self) {
        if let Some(top) = self.sessions.borrow_mut().last_mut() {
            top.replayable = false;
        }
    }

    pub fn note_site(&self, site: SiteId, cond: Cond) {
        if let Some(top) = self.sessions.borrow_mut().last_mut() {
            top.effects.push(Effect::Site(site, cond));
        }
    }

    pub fn note_raise(&self, cond: Cond, loc: Loc) {
        if let Some(top) = self.sessions.borrow_mut().last_mut() {
            top.effects.push(Effect::Raise(cond, loc));
        }
    }

    pub fn begin_session(&self) {
        let mark = self.heap.len() as HeapId;
        self.sessions.borrow_mut().push(Session { mark, replayable: true, ..Session::default() });
    }

    /// Ends the innermost call (made under `pc` in its caller): what it read and did becomes
    /// part of the caller's, and a summary is kept under `key` when it can be replayed.
    /// A call evaluated apart (`selections` not empty, see `device.rs`) gives its caller its
    /// reads and writes only; its sites and raises are returned, in selector terms, for the
    /// caller to apply.
    pub fn end_session(
        &mut self,
        key: String,
        pc: &Cond,
        returns: &G,
        alive: Cond,
        written: &[(ArgSlot, G)],
        selections: &[Selection],
    ) -> (Vec<(SiteId, Cond)>, Vec<(Cond, Loc)>) {
        let mut session = self.sessions.borrow_mut().pop().expect("a session per call");
        let apart = !selections.is_empty();
        let kept = session.writes.is_empty() && session.replayable;
        let effects: Rc<[Effect]> = std::mem::take(&mut session.effects).into();
        // Relative to the call: for its summary, or for a caller that applies them itself.
        let (mut sites, mut raises) = (Vec::new(), Vec::new());
        if apart || kept {
            flatten(&effects, &Cond::TRUE, &mut sites, &mut raises);
        }
        let handed = if apart || effects.is_empty() { None } else { Some(Effect::Call(*pc, effects)) };
        self.merge_into_caller(&session.reads, &session.writes, handed);
        self.merge_base_reads(&session.base_reads);
        if !session.replayable {
            self.not_replayable();
        }
        if !kept {
            return if apart { (sites, raises) } else { Default::default() };
        }
        let effects = if apart { (sites.clone(), raises.clone()) } else { Default::default() };
        let made = self.made_objects(returns, session.mark);
        // As seen from the call (see the module doc).
        let base = self.base;
        let made = made
            .into_iter()
            .map(|(id, mut object)| {
                for g in object.fields.values_mut() {
                    *g = g.relative_to(&self.conds, &base);
                }
                match &mut object.kind {
                    ObjKind::List(items) => items.iter_mut().for_each(|g| *g = g.relative_to(&self.conds, &base)),
                    ObjKind::Dict(entries) => {
                        entries.iter_mut().for_each(|(_, g)| *g = g.relative_to(&self.conds, &base))
                    }
                    _ => {}
                }
                (id, object)
            })
            .collect();
        let base = (!session.base_reads.is_empty()).then_some(base);
        let mut reads: Vec<(HeapId, u32)> = session.reads.into_iter().collect();
        reads.sort_unstable();
        self.summaries.insert(
            key,
            Rc::new(Summary {
                reads,
                returns: returns.clone(),
                alive,
                written: written.to_vec(),
                sites,
                raises,
                made,
                base,
            }),
        );
        effects
    }

    /// Reads of objects also older than the caller depend on the caller's base too.
    fn merge_base_reads(&self, base_reads: &FxHashSet<HeapId>) {
        let mut sessions = self.sessions.borrow_mut();
        let Some(caller) = sessions.last_mut() else { return };
        let mark = caller.mark;
        caller.base_reads.extend(base_reads.iter().filter(|&&id| self.outside(id, mark)));
    }

    fn merge_into_caller(&self, reads: &FxHashMap<HeapId, u32>, writes: &[HeapId], effects: Option<Effect>) {
        let mut sessions = self.sessions.borrow_mut();
        let Some(caller) = sessions.last_mut() else { return };
        let mark = caller.mark;
        for (&id, &version) in reads {
            if self.outside(id, mark) {
                caller.reads.entry(id).or_insert(version);
            }
        }
        caller.writes.extend(writes.iter().filter(|&&id| self.outside(id, mark)));
        caller.effects.extend(effects);
    }

    /// The result of an earlier identical call, replayed under `pc`: `(returns, alive)` as the
    /// body would have left them, or `None` when there is no valid summary.
    /// `base` is the one the call would run under.
    pub fn replay(
        &mut self,
        key: &str,
        pc: &Cond,
        base: &Cond,
        selections: &[Selection],
    ) -> Option<(G, Cond, Vec<(ArgSlot, G)>)> {
        let summary = self.summaries.get(key)?.clone();
        if summary.base.is_some_and(|b| b != *base) {
            return None;
        }
        if summary.reads.iter().any(|&(id, version)| self.versions[id as usize] != version) {
            return None;
        }
        // Fresh copies of the objects the call made, as evaluating it again would make them.
        let mut renumber: FxHashMap<HeapId, HeapId> = FxHashMap::default();
        for (old, object) in &summary.made {
            let id = self.alloc(ObjKind::Sentinel, object.created);
            renumber.insert(*old, id);
        }
        for (old, object) in &summary.made {
            let copy = Object {
                kind: renumber_kind(&object.kind, &renumber),
                fields: object.fields.iter().map(|(k, g)| (k.clone(), renumber_g(g, &renumber))).collect(),
                created: object.created,
            };
            self.heap[renumber[old] as usize] = copy;
            if let Some(&depth) = self.exact_dicts.get(old) {
                self.exact_dicts.insert(renumber[old], depth);
            }
            if let Some(&depth) = self.exact_lists.get(old) {
                self.exact_lists.insert(renumber[old], depth);
            }
            if self.key_views.contains(old) {
                self.key_views.insert(renumber[old]);
            }
        }
        self.apply_effects(&summary.sites, &summary.raises, pc, selections);
        let reads: FxHashMap<HeapId, u32> = summary.reads.iter().copied().collect();
        self.merge_into_caller(&reads, &[], None);
        let written = summary.written.iter().map(|(slot, g)| (slot.clone(), renumber_g(g, &renumber))).collect();
        Some((renumber_g(&summary.returns, &renumber), summary.alive, written))
    }

    /// The objects made since `mark` (and not shared) that `result` reaches, copied.
    fn made_objects(&self, result: &G, mark: HeapId) -> Vec<(HeapId, Object)> {
        let mut seen = FxHashSet::default();
        let mut stack: Vec<HeapId> = Vec::new();
        for (_, v) in result.iter() {
            objects_in(v, &mut stack);
        }
        let mut out = Vec::new();
        while let Some(id) = stack.pop() {
            if self.outside(id, mark) || !seen.insert(id) {
                continue;
            }
            let object = &self.heap[id as usize];
            for g in object.fields.values() {
                g.iter().for_each(|(_, v)| objects_in(v, &mut stack));
            }
            match &object.kind {
                ObjKind::List(items) => {
                    items.iter().flat_map(|g| g.iter()).for_each(|(_, v)| objects_in(v, &mut stack))
                }
                ObjKind::Dict(entries) => {
                    entries.iter().flat_map(|(_, g)| g.iter()).for_each(|(_, v)| objects_in(v, &mut stack))
                }
                _ => {}
            }
            out.push((id, object.clone()));
        }
        out.sort_by_key(|(id, _)| *id);
        out
    }
}

/// The objects a value refers to directly.
fn objects_in(value: &Value, out: &mut Vec<HeapId>) {
    match value {
        Value::Obj(id) => out.push(*id),
        Value::Bound(_, v) | Value::Property(_, v) | Value::Method(v, _) | Value::Super(_, v) => objects_in(v, out),
        Value::Tuple(items) => items.iter().flat_map(|g| g.iter()).for_each(|(_, v)| objects_in(v, out)),
        Value::Partial(p) => {
            std::iter::once(&p.func)
                .chain(p.args.iter())
                .chain(p.kwargs.iter().map(|(_, g)| g))
                .flat_map(|g| g.iter())
                .for_each(|(_, v)| objects_in(v, out));
        }
        Value::Lambda(l) => l.captured.values().flat_map(|g| g.iter()).for_each(|(_, v)| objects_in(v, out)),
        _ => {}
    }
}

fn renumber_g(g: &G, map: &FxHashMap<HeapId, HeapId>) -> G {
    if map.is_empty() {
        return g.clone();
    }
    G(g.iter().map(|(c, v)| (*c, renumber_value(v, map))).collect())
}

fn renumber_value(value: &Value, map: &FxHashMap<HeapId, HeapId>) -> Value {
    let boxed = |v: &Value| Box::new(renumber_value(v, map));
    match value {
        Value::Obj(id) => Value::Obj(*map.get(id).unwrap_or(id)),
        Value::Bound(f, v) => Value::Bound(*f, boxed(v)),
        Value::Property(f, v) => Value::Property(*f, boxed(v)),
        Value::Method(v, m) => Value::Method(boxed(v), m.clone()),
        Value::Super(c, v) => Value::Super(*c, boxed(v)),
        Value::Tuple(items) => Value::Tuple(Rc::new(items.iter().map(|g| renumber_g(g, map)).collect())),
        Value::Partial(p) => Value::Partial(Rc::new(Partial {
            func: renumber_g(&p.func, map),
            args: p.args.iter().map(|g| renumber_g(g, map)).collect(),
            kwargs: p.kwargs.iter().map(|(k, g)| (k.clone(), renumber_g(g, map))).collect(),
        })),
        Value::Lambda(l) => Value::Lambda(Rc::new(Lambda {
            loc: l.loc,
            func: l.func,
            captured: Rc::new(l.captured.iter().map(|(k, g)| (k.clone(), renumber_g(g, map))).collect()),
        })),
        other => other.clone(),
    }
}

fn renumber_kind(kind: &ObjKind, map: &FxHashMap<HeapId, HeapId>) -> ObjKind {
    match kind {
        ObjKind::List(items) => ObjKind::List(items.iter().map(|g| renumber_g(g, map)).collect()),
        ObjKind::Dict(entries) => ObjKind::Dict(entries.iter().map(|(k, g)| (k.clone(), renumber_g(g, map))).collect()),
        other => other.clone(),
    }
}
