//! Abstract values: what a Python expression may evaluate to, without running it.
//!
//! Every value is a [`G`] (guarded): a short list of alternatives, each under the condition in
//! which it is the value. Numbers and tensors are [`Num`]: what matters about them is how many
//! times the traced value multiplies them (their exponent), and where that happened.

use std::rc::Rc;

use ruff_python_ast::name::Name;

use super::cond::{Cond, Conds};
use crate::index::{ClassId, FileId, FuncId};
use crate::syntax::{Constant, Span};

/// An object on the abstract heap.
pub type HeapId = u32;
/// An unknown value, by what it is about (see [`SymKey`]).
pub type SymId = u32;
/// An application site (see `trace.rs`).
pub type SiteId = u32;
/// A step the traced value took (see `trace.rs`).
pub type HopId = u32;

/// A place in the analyzed code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: FileId,
    pub span: Span,
}

/// One multiplicative component of a number or tensor: the traced value to the power `exp`,
/// with the application sites that made it so and the hops of the traced value itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Part {
    pub exp: i32,
    pub sites: Rc<[SiteId]>,
    pub chain: Rc<[HopId]>,
    /// The part went through a callee whose effect on the scale is not known (an unresolved
    /// function): its exponent is what is known, not the answer. The first such callee, as an
    /// index into `Interp::blockers` (see [`Part::first_unknown`]).
    pub unknown: Option<u32>,
    /// The part is zeros (a buffer `torch.zeros_like(x)` made, before anything was added into
    /// it): scaling it applies nothing, and beside other parts it is none of the data.
    pub zero: bool,
    /// The part is a buffer nothing has written yet (`torch.empty(...)`, `x.new_empty(...)`):
    /// whatever memory held. Scaling it applies nothing; beside data, it is none of the data (a
    /// buffer written in part, or on some paths, holds what was written); alone at the output,
    /// the output is not data the code computed.
    pub unwritten: bool,
    /// The part is a shared expert's output (what a module held as `shared_expert(s)` or
    /// `shared_mlp` gave): the routed experts' factor must not scale it. (A routing
    /// kernel's fused shared-expert slot is not marked: its parts would stop merging with the
    /// others at the alternatives bound.)
    pub shared: bool,
}

impl Part {
    /// Data of no scale, with no history: nothing applied, nothing unknown.
    pub fn plain() -> Part {
        Part {
            exp: 0,
            sites: Rc::from([]),
            chain: Rc::from([]),
            unknown: None,
            zero: false,
            unwritten: false,
            shared: false,
        }
    }

    /// Whether it took part in scaling: a non-zero exponent, an application site (even one a
    /// division cancelled), or code whose effect on the scale is not known.
    pub fn touched(&self) -> bool {
        self.exp != 0 || !self.sites.is_empty() || self.unknown.is_some()
    }

    /// What makes a part combined from two unknown: the blocker met first (the lower index),
    /// one value whichever order they combine in.
    pub fn first_unknown(a: Option<u32>, b: Option<u32>) -> Option<u32> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

/// A number or tensor. A sum of differently scaled things has several parts (`shared +
/// routed * v` is one part with exponent 0 and one with exponent 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Num {
    /// Tensors (data) as opposed to scalars (configuration numbers). Multiplying a tensor by a
    /// scalar that carries the traced value is an application.
    pub tensor: bool,
    pub parts: Vec<Part>,
    /// A tensor's dimensions, when the code that made it gave them (`torch.empty((n, topk,
    /// d))`), as an index into `Interp::shapes`: a later `x.shape[1]` is then that `topk`,
    /// the same atom as where it came from.
    pub shape: Option<u32>,
}

impl Num {
    pub fn plain_tensor() -> Num {
        Num { tensor: true, parts: vec![Part::plain()], shape: None }
    }

    /// A tensor of zeros (`torch.zeros(...)`, `torch.zeros_like(x)`, `x.new_zeros(...)`): data
    /// that carries nothing until something is added into it. (Not `x.zero_()`: a buffer
    /// zeroed in place is often filled by a kernel the trace does not follow.)
    pub fn zero_tensor() -> Num {
        Num { tensor: true, parts: vec![Part { zero: true, ..Part::plain() }], shape: None }
    }

    /// A fresh allocation nothing has written (`torch.empty(...)`): see [`Part::unwritten`].
    pub fn unwritten_tensor() -> Num {
        Num { tensor: true, parts: vec![Part { unwritten: true, ..Part::plain() }], shape: None }
    }

    /// Whether every part is a buffer nothing has written.
    pub fn is_unwritten(&self) -> bool {
        !self.parts.is_empty() && self.parts.iter().all(|p| p.unwritten)
    }

    /// Whether some part carries the traced value (a non-zero exponent).
    pub fn carries_traced(&self) -> bool {
        self.parts.iter().any(|p| p.exp != 0)
    }

    /// Whether some part took part in scaling (see [`Part::touched`]).
    pub fn touched(&self) -> bool {
        self.parts.iter().any(Part::touched)
    }

    pub fn normalize(mut self) -> Num {
        self.parts.sort();
        self.parts.dedup();
        // Many parts with exponent 0 and no history say the same thing.
        // Zeros beside other data are none of it (`out = zeros_like(x)`, then
        // `out.index_add_(0, idx, y)`: `out` is `y`'s). Nor is a buffer nothing wrote beside
        // data written into it (in part, or on some paths): only alone is it what is there.
        if self.parts.iter().any(|p| !p.zero && !p.unwritten) {
            self.parts.retain(|p| !p.zero && !p.unwritten);
        } else if self.parts.iter().any(|p| p.unwritten) {
            self.parts.retain(|p| p.unwritten);
        }
        self
    }
}

/// What an unknown value is about; two reads of the same thing get the same symbol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SymKey {
    /// A module-level variable whose value is not known.
    Global(FileId, Name),
    /// A parameter of the entry point (or of a method evaluated with unknown arguments).
    Param(FuncId, Name),
    /// An attribute, call or item of another unknown value.
    Path(SymId, String),
    /// The result of calling a function of the tree with no (or constant) arguments whose result
    /// is not known (`is_cuda()`, `get_moe_a2a_backend()`).
    Call(FuncId, String),
    /// A call of something outside the tree, by its text (`envs.X.get()`).
    External(String),
    /// A loop index, by the loop.
    LoopIndex(Loc),
    /// The shape of a tensor a function was handed, by the function and its parameter, when
    /// the function never rebinds that parameter: `topk_ids.shape[1]` read twice is one size.
    ParamShape(FuncId, Name),
    /// Anything else, by where it was computed.
    At(Loc, String),
    /// Integer arithmetic on unknown numbers (`2 * intermediate_size`, `hidden_size // 2`), by
    /// its operator and operands: the same computation written twice (`i * 2` in one method,
    /// `2 * i` in another) is one number, so a size checked against the one it was made with
    /// is equal, not an open question.
    Arith(ArithOp, ArithTerm, ArithTerm),
}

/// The operators of [`SymKey::Arith`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
}

impl ArithOp {
    /// Whether the operands may be swapped (they are then kept in one order).
    pub fn commutes(self) -> bool {
        matches!(self, ArithOp::Add | ArithOp::Mul)
    }
}

/// An operand of [`SymKey::Arith`]: an unknown number or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArithTerm {
    Sym(SymId),
    Int(i64),
}

#[derive(Clone, Debug)]
pub struct Sym {
    pub key: SymKey,
    pub display: String,
    /// A class the value is known to be an instance of (from an annotation or a base class),
    /// used to enumerate the implementations of a method called on it.
    pub class_hint: Option<ClassId>,
    /// Module-level variables that hold it (`_is_cuda` for `is_cuda()`), for display and for
    /// matching `--assume`.
    pub aliases: Vec<String>,
}

impl Sym {
    /// How the output names it: the variable that holds a computed value when there is one.
    pub fn label(&self) -> String {
        match self.aliases.first() {
            Some(alias) if self.display.contains('(') => alias.clone(),
            _ => self.display.clone(),
        }
    }
}

/// A callable with some arguments already given (`functools.partial`).
#[derive(Clone, Debug)]
pub struct Partial {
    pub func: G,
    pub args: Vec<G>,
    pub kwargs: Vec<(Name, G)>,
}

/// A `lambda` expression as a value.
#[derive(Clone, Debug)]
pub struct Lambda {
    pub loc: Loc,
    /// The function whose body holds it (its locals are visible inside).
    pub func: Option<FuncId>,
    pub captured: Rc<rustc_hash::FxHashMap<Name, G>>,
}

/// One alternative of a value.

#[derive(Clone, Debug)]
pub enum Value {
    Const(Constant),
    Num(Rc<Num>),
    Sym(SymId),
    /// An object on the heap (instances, lists, dicts).
    Obj(HeapId),
    Class(ClassId),
    Func(FuncId),
    /// A method bound to its receiver.
    Bound(FuncId, Box<Value>),
    /// A property getter bound to its receiver (run when read through an object).
    Property(FuncId, Box<Value>),
    /// A method of something that is not an object of the tree (a tensor, an outside object,
    /// a list or dict), by name.
    Method(Box<Value>, Rc<str>),

    Module(FileId),
    Namespace(Rc<str>),
    /// Something outside the tree, by dotted path (`torch.topk`, `sgl_kernel.moe_fused_gate`).
    External(Rc<str>),
    /// An instance of a class outside the tree (`nn.Linear(...)`).
    ExternalObj(Rc<str>),
    Builtin(Rc<str>),
    Tuple(Rc<Vec<G>>),
    /// `super()` in a method of the class: lookups start after it in the receiver's MRO.
    Super(ClassId, Box<Value>),
    Partial(Rc<Partial>),
    /// A lambda, with the locals of the function that made it.
    Lambda(Rc<Lambda>),

    /// A value the evaluator gave up on, with the reason.
    Unknown(Rc<str>),
}

impl Value {
    pub fn none() -> Value {
        Value::Const(Constant::None)
    }

    pub fn unknown(reason: impl Into<String>) -> Value {
        Value::Unknown(Rc::from(reason.into()))
    }

    /// Identity for merging alternatives (values that are surely the same thing).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Const(a), Value::Const(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            (Value::Sym(a), Value::Sym(b)) => a == b,
            (Value::Obj(a), Value::Obj(b)) => a == b,
            (Value::Class(a), Value::Class(b)) => a == b,
            (Value::Func(a), Value::Func(b)) => a == b,
            (Value::Bound(f, s), Value::Bound(g, t)) => f == g && s.same(t),
            (Value::Property(f, s), Value::Property(g, t)) => f == g && s.same(t),
            (Value::Method(s, m), Value::Method(t, n)) => m == n && s.same(t),

            (Value::Module(a), Value::Module(b)) => a == b,
            (Value::Namespace(a), Value::Namespace(b)) => a == b,
            (Value::External(a), Value::External(b)) => a == b,
            (Value::ExternalObj(a), Value::ExternalObj(b)) => a == b,
            (Value::Builtin(a), Value::Builtin(b)) => a == b,
            // Tuples cannot change: equal items make equal tuples.
            (Value::Tuple(a), Value::Tuple(b)) => {
                Rc::ptr_eq(a, b) || (a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y)))
            }
            (Value::Super(a, s), Value::Super(b, t)) => a == b && s.same(t),
            (Value::Unknown(a), Value::Unknown(b)) => a == b,
            _ => false,
        }
    }
}

/// A guarded value: alternatives, each under its condition. Conditions of different
/// alternatives need not be disjoint only after a bound merged them; the evaluator keeps them
/// disjoint otherwise.
#[derive(Clone, Debug, Default)]
pub struct G(pub Vec<(Cond, Value)>);

/// Alternatives one value may keep before the rest are merged into an unknown
/// (`--max-alternatives`). At 24, SGLang 0.5.23's `Dots3MoE` and the MoRI cases of four blocks
/// read UNKNOWN on CUDA with no quantization; at 48 they answer, for about a quarter more time
/// where a bound is hit (walkthrough section 63).
pub const MAX_ALTERNATIVES: usize = 48;

/// Alternatives [`G::bounded`] dropped: where they held, and whether one was data the value
/// had touched.
#[derive(Clone, Copy, Debug)]
pub struct Cut {
    pub cond: Cond,
    pub scaled: bool,
}

/// Whether a value is, or directly holds (in a tuple), data that took part in scaling.
fn holds_scaled_data(value: &Value) -> bool {
    match value {
        Value::Num(n) => n.touched(),
        Value::Tuple(items) => items.iter().any(|g| g.iter().any(|(_, v)| holds_scaled_data(v))),
        _ => false,
    }
}

/// `a`'s parts with the blockers of `b`'s, when the two differ only in which unknown callee
/// each part went through (a part unknown in one is unknown in the other).
fn merged_blockers(a: &[Part], b: &[Part]) -> Option<Vec<Part>> {
    if a.len() != b.len() {
        return None;
    }
    let mut merged = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x.exp != y.exp
            || x.sites != y.sites
            || x.chain != y.chain
            || x.unknown.is_some() != y.unknown.is_some()
            || x.shared != y.shared
            || x.unwritten != y.unwritten
        {
            return None;
        }
        merged.push(Part { unknown: Part::first_unknown(x.unknown, y.unknown), ..x.clone() });
    }
    Some(merged)
}

/// What a number's scale is, apart from where it was applied: per part, its exponent, whether
/// it took part in scaling, whether an unknown callee blocked it, and whether it is a shared
/// expert's (parts in that order).
fn scale_signature(n: &Num) -> Vec<(i32, bool, bool, bool)> {
    let mut signature: Vec<(i32, bool, bool, bool)> =
        n.parts.iter().map(|p| (p.exp, p.touched(), p.unknown.is_some(), p.shared)).collect();
    signature.sort();
    signature
}

/// Two numbers of one scale signature as one: parts paired in signature order, each with the
/// sites and hops of both.
fn union_of_parts(a: &Num, b: &Num) -> Num {
    let key = |p: &Part| (p.exp, p.touched(), p.unknown.is_some(), p.shared);
    let mut pa: Vec<&Part> = a.parts.iter().collect();
    let mut pb: Vec<&Part> = b.parts.iter().collect();
    pa.sort_by_key(|p| key(p));
    pb.sort_by_key(|p| key(p));
    let union = |x: &[u32], y: &[u32]| -> Rc<[u32]> {
        let mut all: Vec<u32> = x.iter().chain(y).copied().collect();
        all.sort_unstable();
        all.dedup();
        Rc::from(all)
    };
    let parts = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| Part {
            exp: x.exp,
            sites: union(&x.sites, &y.sites),
            chain: union(&x.chain, &y.chain),
            unknown: Part::first_unknown(x.unknown, y.unknown),
            zero: x.zero && y.zero,
            unwritten: x.unwritten && y.unwritten,
            shared: x.shared,
        })
        .collect();
    Num { tensor: a.tensor, parts, shape: if a.shape == b.shape { a.shape } else { None } }.normalize()
}

impl G {
    pub fn one(conds: &Conds, value: Value) -> G {
        G(vec![(conds.truth(), value)])
    }

    pub fn under(cond: Cond, value: Value) -> G {
        G(vec![(cond, value)])
    }

    pub fn empty() -> G {
        G(Vec::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &(Cond, Value)> {
        self.0.iter()
    }

    /// The disjunction of the alternatives' conditions.
    pub fn coverage(&self, conds: &Conds) -> Cond {
        let mut any = conds.falsity();
        for (c, _) in &self.0 {
            any = any.or(c);
        }
        any
    }

    /// Adds an alternative, merging it with an identical value and dropping it when infeasible.
    pub fn push(&mut self, conds: &Conds, cond: Cond, value: Value) {
        if !conds.feasible(&cond) {
            return;
        }
        for (c, v) in self.0.iter_mut() {
            // Tensors of one scale made with different shapes are one alternative, of a shape
            // not known: keeping them apart multiplies alternatives for a correlation rarely
            // needed.
            if let (Value::Num(a), Value::Num(b)) = (&*v, &value) {
                if Rc::ptr_eq(a, b) || (a.tensor == b.tensor && a.parts == b.parts) {
                    *c = c.or(&cond);
                    if a.shape != b.shape && a.shape.is_some() {
                        *v = Value::Num(Rc::new(Num { shape: None, ..(**a).clone() }));
                    }
                    return;
                }
                // Data of one scale that went through different unknown callees is one
                // alternative: either way its scale is not known, and the first callee met
                // stands for the others (as when two such parts combine).
                if a.tensor == b.tensor {
                    if let Some(parts) = merged_blockers(&a.parts, &b.parts) {
                        *c = c.or(&cond);
                        let shape = if a.shape == b.shape { a.shape } else { None };
                        *v = Value::Num(Rc::new(Num { tensor: a.tensor, parts, shape }));
                        return;
                    }
                }
                continue;
            }
            if v.same(&value) {
                *c = c.or(&cond);
                return;
            }
        }
        self.0.push((cond, value));
    }

    pub fn extend(&mut self, conds: &Conds, other: G) {
        for (c, v) in other.0 {
            self.push(conds, c, v);
        }
    }

    /// Every alternative conjoined with `cond` (infeasible ones dropped).
    pub fn restrict(&self, conds: &Conds, cond: &Cond) -> G {
        let mut out = G::empty();
        for (c, v) in &self.0 {
            out.push(conds, c.and(cond), v.clone());
        }
        out
    }

    /// `new` where `pc` holds and `self` elsewhere (`new` was computed under `pc`). An
    /// alternative that is an old one read under `pc` and left unchanged (`x = x[:, :k]` keeps
    /// the same number) keeps its old condition: no diagram is built for it.
    pub fn overwritten(&self, conds: &Conds, new: G, pc: &Cond) -> G {
        if pc.is_true() {
            return new;
        }
        let mut kept = vec![false; self.0.len()];
        let mut out = G::empty();
        for (cn, v) in new.0 {
            let unchanged = self
                .0
                .iter()
                .enumerate()
                .find(|(i, (co, vo))| !kept[*i] && vo.same(&v) && co.and(pc).same(&cn))
                .map(|(i, (co, _))| (i, *co));
            match unchanged {
                Some((i, co)) => {
                    kept[i] = true;
                    out.push(conds, co, v);
                }
                None => out.push(conds, cn, v),
            }
        }
        let elsewhere = pc.not();
        for (i, (co, vo)) in self.0.iter().enumerate() {
            if !kept[i] {
                out.push(conds, co.and(&elsewhere), vo.clone());
            }
        }
        out
    }

    /// The alternatives as seen from where `care` holds: conditions `care` already decides
    /// are simplified away (a value passed to a call is seen relative to the call's condition).
    pub fn relative_to(&self, conds: &Conds, care: &Cond) -> G {
        if care.is_true() {
            return self.clone();
        }
        let mut out = G::empty();
        for (c, v) in &self.0 {
            if c.meets(care) {
                out.push(conds, c.simplify_within(care), v.clone());
            }
        }
        out
    }

    /// Keeps `max` alternatives ([`MAX_ALTERNATIVES`] by default), the least specific (see
    /// below); the rest become one unknown (reported as a bound).
    /// When cut: where the rest held, and whether it held data the value scaled (an application
    /// may be lost there).
    pub fn bounded(mut self, conds: &Conds, max: usize) -> (G, Option<Cut>) {
        let max = max.max(2);
        if self.0.len() <= max {
            return (self, None);
        }
        self = self.merged_by_scale(max);
        if self.0.len() <= max {
            return (self, None);
        }
        self = self.merged_tuples(conds);
        if self.0.len() <= max {
            return (self, None);
        }
        // What is cut is what is most specific: unknown values first (one loses nothing by
        // standing for more configurations), then values under conditions over more atoms.
        // `PlainMethod() if quant_config is None else quant_config.get_quant_method(self)`,
        // whose call was cut already, keeps the unquantized method and cuts the last classes.
        let mut order: Vec<usize> = (0..self.0.len()).collect();
        order.sort_by_cached_key(|&i| {
            let (c, v) = &self.0[i];
            (matches!(v, Value::Unknown(_)), conds.support(c).len(), i)
        });
        let mut keep = vec![false; self.0.len()];
        for &i in &order[..max - 1] {
            keep[i] = true;
        }
        // The kept ones in their first order.
        let (kept, rest): (Vec<_>, Vec<_>) = self.0.into_iter().zip(keep).partition(|(_, k)| *k);
        self.0 = kept.into_iter().map(|(a, _)| a).collect();
        let rest: Vec<(Cond, Value)> = rest.into_iter().map(|(a, _)| a).collect();
        let mut any = conds.falsity();
        let mut scaled = false;
        for (c, v) in &rest {
            any = any.or(c);
            scaled |= holds_scaled_data(v);
        }
        self.0.push((any, Value::unknown(format!("more than {max} alternatives"))));
        (self, Some(Cut { cond: any, scaled }))
    }

    /// Data alternatives of the same scale merged, as few as it takes to keep `max`: from the last, each tensor joins the nearest earlier one whose
    /// parts have the same exponents (and are touched, and blocked, alike), whose parts then
    /// hold the sites of both. Exponents, the verdict's matter, stay exact; which of the sites
    /// ran where is left to their own conditions. Used only where alternatives would be cut.
    fn merged_by_scale(mut self, max: usize) -> G {
        let signature = |v: &Value| match v {
            Value::Num(n) => Some((n.tensor, scale_signature(n))),
            _ => None,
        };
        let mut signatures: Vec<_> = self.0.iter().map(|(_, v)| signature(v)).collect();
        let mut i = self.0.len();
        while self.0.len() > max && i > 1 {
            i -= 1;
            let Some(sig) = signatures[i].clone() else { continue };
            let Some(j) = (0..i).rev().find(|&j| signatures[j].as_ref() == Some(&sig)) else { continue };
            let (c, v) = self.0.remove(i);
            signatures.remove(i);
            let (Value::Num(a), Value::Num(b)) = (&self.0[j].1, &v) else { unreachable!("signatures are of numbers") };
            let merged = Value::Num(Rc::new(union_of_parts(a, b)));
            self.0[j] = (self.0[j].0.or(&c), merged);
        }
        self
    }

    /// Tuples of one length merged into one tuple whose items are the alternatives of each
    /// position, under the conditions of their tuples: `(backend, kernel_class)` chosen among
    /// forty-nine pairs is a choice of backend and a choice of class, each of a few values.
    /// Exact, since alternatives hold under disjoint conditions and a tuple is read by its
    /// items: where a pair held, each item is its own. Used only where alternatives would be
    /// cut; an item that has more alternatives than kept is cut (and reported) where it is
    /// bound to a name or an attribute.
    fn merged_tuples(self, conds: &Conds) -> G {
        let len_of = |v: &Value| match v {
            Value::Tuple(items) => Some(items.len()),
            _ => None,
        };
        // The length most tuples have.
        let mut lengths: Vec<usize> = self.0.iter().filter_map(|(_, v)| len_of(v)).collect();
        lengths.sort_unstable();
        let Some(len) = lengths.chunk_by(|a, b| a == b).max_by_key(|run| run.len()).map(|run| run[0]) else {
            return self;
        };
        if lengths.iter().filter(|&&l| l == len).count() < 2 {
            return self;
        }
        let mut items: Vec<G> = vec![G::empty(); len];
        // The merged tuple goes where the first one was (the `None` below), under the condition
        // where any of them held.
        let mut placed = false;
        let mut held = conds.falsity();
        let mut out: Vec<(Cond, Option<Value>)> = Vec::new();
        for (c, v) in self.0 {
            match &v {
                Value::Tuple(tuple) if tuple.len() == len => {
                    for (merged, item) in items.iter_mut().zip(tuple.iter()) {
                        for (ci, vi) in item.iter() {
                            merged.push(conds, c.and(ci), vi.clone());
                        }
                    }
                    held = held.or(&c);
                    if !placed {
                        placed = true;
                        out.push((c, None));
                    }
                }
                _ => out.push((c, Some(v))),
            }
        }
        let merged = Value::Tuple(Rc::new(items));
        G(out.into_iter().map(|(c, v)| v.map_or_else(|| (held, merged.clone()), |v| (c, v))).collect())
    }

    /// The same alternatives, in the same order, under the same conditions.
    pub fn same_as(&self, other: &G) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|((c, v), (d, w))| c == d && v.same(w))
    }

    /// The only value, when there is exactly one alternative.
    pub fn single(&self) -> Option<&Value> {
        match self.0.as_slice() {
            [(_, v)] => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::cond::AtomKey;

    fn tensor(parts: &[(i32, &[SiteId])]) -> Value {
        let parts = parts
            .iter()
            .map(|(exp, sites)| Part {
                exp: *exp,
                sites: Rc::from(*sites),
                chain: Rc::from([]),
                unknown: None,
                zero: false,
                unwritten: false,
                shared: false,
            })
            .collect();
        Value::Num(Rc::new(Num { tensor: true, parts, shape: None }))
    }

    /// Thirty histories of three scales, each under its own configuration of five flags: past
    /// the bound they merge by scale rather than being cut, every configuration keeps its
    /// exponents, and the merged parts hold the sites of the histories they stand for.
    #[test]
    fn histories_past_the_bound_merge_by_scale_and_keep_every_exponent() {
        let mut conds = Conds::default();
        let flags: Vec<Cond> = (0..5).map(|i| conds.atom(AtomKey::Test(format!("f{i}")), || format!("f{i}"))).collect();
        let configuration = |n: usize| {
            let mut c = Cond::TRUE;
            for (bit, flag) in flags.iter().enumerate() {
                c = c.and(&if n >> bit & 1 == 1 { *flag } else { flag.not() });
            }
            c
        };
        let mut g = G::empty();
        let mut expected = Vec::new();
        for n in 0..30 {
            let exp = (n % 3) as i32;
            g.0.push((configuration(n), tensor(&[(exp, &[n as SiteId])])));
            expected.push((configuration(n), exp));
        }
        let (bounded, cut) = g.bounded(&conds, 24);
        assert!(cut.is_none(), "three scales fit: nothing is cut");
        assert!(bounded.0.len() <= 24, "{} alternatives", bounded.0.len());
        for (c, exp) in &expected {
            let holding: Vec<&Value> = bounded.iter().filter(|(d, _)| d.meets(c)).map(|(_, v)| v).collect();
            assert_eq!(holding.len(), 1, "one alternative per configuration");
            let Value::Num(n) = holding[0] else { panic!("data") };
            assert_eq!(n.parts.iter().map(|p| p.exp).collect::<Vec<_>>(), [*exp]);
        }
        let merged = bounded.iter().filter(|(_, v)| matches!(v, Value::Num(n) if n.parts[0].sites.len() > 1)).count();
        assert!(merged > 0, "some histories were merged");
    }

    /// More distinct scales than the bound keeps are still cut, and the cut says where.
    #[test]
    fn more_distinct_scales_than_the_bound_are_cut() {
        let mut conds = Conds::default();
        let mut g = G::empty();
        let mut rest = conds.truth();
        for i in 0..30 {
            let flag = conds.atom(AtomKey::Test(format!("g{i}")), || format!("g{i}"));
            g.0.push((rest.and(&flag), tensor(&[(i, &[i as SiteId])])));
            rest = rest.and(&flag.not());
        }
        let (bounded, cut) = g.bounded(&conds, 24);
        assert_eq!(bounded.0.len(), 24);
        let cut = cut.expect("thirty scales do not fit");
        assert!(cut.scaled && !cut.cond.is_false());
    }
}
