//! Arithmetic on abstract numbers, and where the traced value gets applied: `x * v`, `x /= v`,
//! `x.mul_(v)`, `shared.add_(routed, alpha=v)`, and callees outside the tree that receive it.

use std::rc::Rc;

use ruff_python_ast::Operator;

use super::calls::Args;
use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::kernels::{Applies, KernelModel, toml_constant};
use super::trace::{Normalizer, SiteKind, SiteRecord};
use super::value::*;
use crate::syntax::Constant;

/// Combinations of alternatives an outside call considers before merging.
const MAX_COMBINATIONS: usize = 64;

/// How an operand takes part in arithmetic.
enum Operand {
    Num(Rc<Num>),
    Const(Constant),
    /// An unknown configuration number (a symbol).
    Scalar,
    /// Something that is probably data (an outside object's attribute, an unknown result).
    Data,
    Other,
}

/// Past this many items, a repeated list (`[None] * n`) is not built item by item.
const MAX_REPEATED_ITEMS: usize = 64;

impl Interp<'_, '_> {
    fn operand(&self, v: &Value) -> Operand {
        match v {
            Value::Num(n) => Operand::Num(n.clone()),
            Value::Const(c) => Operand::Const(c.clone()),
            Value::Sym(_) => Operand::Scalar,
            // An object of Python's standard library (`pathlib.Path(d) / name`) is not data.
            Value::ExternalObj(path) if is_standard_library(path) => Operand::Other,
            Value::ExternalObj(_) | Value::Method(..) | Value::Unknown(_) => Operand::Data,
            Value::Obj(id) if matches!(self.heap[*id as usize].kind, ObjKind::Abstract(..)) => Operand::Data,
            _ => Operand::Other,
        }
    }

    pub fn record_site(
        &mut self,
        loc: Loc,
        kind: SiteKind,
        delta: i32,
        cond: &Cond,
        chain: &[HopId],
        callee: Option<String>,
        note: Option<String>,
    ) -> SiteId {
        // A site in a device kernel runs if some program instance runs it.
        let relative = self.conds.over_programs(cond, true);
        // The same site met again under another condition is one site.
        let known =
            self.sites.iter().position(|s| s.loc == loc && s.kind == kind && s.delta == delta && s.callee == callee);
        if self.apart > 0 {
            // In selector terms: the trace gets it when the kernel returns.
            let id = known.unwrap_or_else(|| {
                let cond = self.conds.falsity();
                self.sites.push(SiteRecord {
                    loc,
                    kind,
                    delta,
                    cond,
                    chain: chain.to_vec(),
                    callee,
                    note,
                    on_number: false,
                });
                self.sites.len() - 1
            }) as SiteId;
            self.note_site(id, relative);
            return id;
        }
        let cond = &relative.and(&self.base);
        if let Some(i) = known {
            let merged = self.sites[i].cond.or(cond);
            self.sites[i].cond = merged;
            self.note_site(i as SiteId, relative);
            return i as SiteId;
        }
        self.note_site(self.sites.len() as SiteId, relative);
        self.sites.push(SiteRecord {
            loc,
            kind,
            delta,
            cond: cond.clone(),
            chain: chain.to_vec(),
            callee,
            note,
            on_number: false,
        });
        (self.sites.len() - 1) as SiteId
    }

    /// A site met again by replaying a call summary, under `cond` (relative to the current call).
    pub fn replay_site(&mut self, site: SiteId, cond: &Cond) {
        self.note_site(site, *cond);
        if self.apart > 0 {
            return;
        }
        let absolute = cond.and(&self.base);
        let merged = self.sites[site as usize].cond.or(&absolute);
        self.sites[site as usize].cond = merged;
    }

    /// `left op right` for every pair of alternatives.
    pub fn binop(&mut self, left: &G, op: Operator, right: &G, pc: &Cond, loc: Loc, in_place: bool) -> G {
        // Flags combined with `|` or `&` (`use_routed |= materialized`): true where `or` / `and`
        // of their truths is. Named by its text instead, the result was an atom of its own.
        if matches!(op, Operator::BitOr | Operator::BitAnd) && flag_operands(left, right) {
            let (a, b) = (self.truthy(left, loc), self.truthy(right, loc));
            let holds = if op == Operator::BitOr { a.or(&b) } else { a.and(&b) };
            return self.bool_value(&holds, pc);
        }
        let mut out = G::empty();
        for (lc, lv) in left.0.clone() {
            for (rc, rv) in right.0.clone() {
                let c = lc.and(&rc).and(pc);
                if !self.conds.feasible(&c) {
                    continue;
                }
                // A tuple and a Python float (`moe_out * self.routed_scaling_factor` where the
                // experts return `(shared, routed)`): Python raises `TypeError` there.
                if tuple_with_scalar(op, &lv, &rv) || none_with_number(op, &lv, &rv) {
                    self.raise_of(Some("TypeError"), &c, loc);
                    continue;
                }
                let v = self.binop_values(&lv, op, &rv, &c, loc, in_place);
                out.push(&self.conds, c, v);
            }
        }
        self.bounded(out, Some(loc), || "arithmetic produced more alternatives than kept".to_string())
    }

    /// The items of a tuple or list holding constants only (a set, a dict's keys).
    fn constant_items(&self, value: &Value) -> Option<Vec<Constant>> {
        let items: Vec<G> = match value {
            Value::Tuple(items) => items.as_ref().clone(),
            Value::Obj(id) => match &self.read_object(*id).kind {
                ObjKind::List(items) => items.clone(),
                _ => return None,
            },
            _ => return None,
        };
        items
            .iter()
            .map(|g| match g.single() {
                Some(Value::Const(c)) => Some(c.clone()),
                _ => None,
            })
            .collect()
    }

    fn binop_values(&mut self, left: &Value, op: Operator, right: &Value, c: &Cond, loc: Loc, in_place: bool) -> Value {
        use Operator::*;
        // List concatenation keeps the items of both.
        if let (Add, Value::Obj(a), Value::Obj(b)) = (op, left, right) {
            if let (ObjKind::List(x), ObjKind::List(y)) =
                (self.read_object(*a).kind.clone(), self.read_object(*b).kind.clone())
            {
                let mut items = x;
                items.extend(y);
                let id = self.alloc(ObjKind::List(items), loc);
                if self.exact_lists.contains_key(a) && self.exact_lists.contains_key(b) {
                    self.mark_exact(id);
                }
                return Value::Obj(id);
            }
        }
        // `[None] * n` with `n` known (and small): the items repeated, each a slot of its own.
        if let (Mult, Value::Obj(list), Value::Const(Constant::Int(n)))
        | (Mult, Value::Const(Constant::Int(n)), Value::Obj(list)) = (op, left, right)
        {
            if let ObjKind::List(items) = self.read_object(*list).kind.clone() {
                if let Some(times) = usize::try_from(*n).ok().filter(|t| items.len() * t <= MAX_REPEATED_ITEMS) {
                    let repeated = items.iter().cloned().cycle().take(items.len() * times).collect();
                    let id = self.alloc(ObjKind::List(repeated), loc);
                    if self.exact_lists.contains_key(list) {
                        self.mark_exact(id);
                    }
                    return Value::Obj(id);
                }
            }
        }
        // `options.keys() - ACCEPTED[kind]`: the items of the one not in the other, when both
        // hold constants only.
        if op == Sub {
            if let (Some(a), Some(b)) = (self.constant_items(left), self.constant_items(right)) {
                let rest = a
                    .into_iter()
                    .filter(|x| !b.iter().any(|y| super::exprs::consts_equal(x, y)))
                    .map(|x| G::one(&self.conds, Value::Const(x)))
                    .collect();
                let id = self.alloc(ObjKind::List(rest), loc);
                return Value::Obj(id);
            }
        }
        if let (Add, Value::Tuple(a), Value::Tuple(b)) = (op, left, right) {
            let mut items = a.as_ref().clone();
            items.extend(b.iter().cloned());
            return Value::Tuple(Rc::new(items));
        }
        let (l, r) = (self.operand(left), self.operand(right));
        // Identities of an unknown configuration number with 0 or 1 (`layers // pp_size` with
        // `pp_size` 1, `pp_rank * base_layers` with `pp_rank` 0). `// 1` and `% 1` are taken
        // for integers: layer counts and sizes, which is what they are used on.
        let int = |o: &Operand| match o {
            Operand::Const(Constant::Int(i)) => Some(*i),
            _ => None,
        };
        match (op, &l, int(&l), &r, int(&r)) {
            (Add | Sub | Mult | FloorDiv, Operand::Scalar, _, _, Some(k))
                if (k == 0 && matches!(op, Add | Sub)) || (k == 1 && matches!(op, Mult | FloorDiv)) =>
            {
                return left.clone();
            }
            (Add | Mult, _, Some(k), Operand::Scalar, _) if (k == 0 && op == Add) || (k == 1 && op == Mult) => {
                return right.clone();
            }
            (Mod, Operand::Scalar, _, _, Some(1)) | (Mult, Operand::Scalar, _, _, Some(0)) => {
                return Value::Const(Constant::Int(0));
            }
            (Mult, _, Some(0), Operand::Scalar, _) => return Value::Const(Constant::Int(0)),
            _ => {}
        }
        if let Some(v) = self.arithmetic(left, op, right, loc) {
            return v;
        }
        match (op, &l, &r) {
            (_, Operand::Const(a), Operand::Const(b)) => {
                fold(a, op, b).map(Value::Const).unwrap_or_else(|| self.anonymous_number(loc))
            }
            // Nothing numeric takes a string operand: `KERNEL_PATH / "csrc"` joins a path,
            // `"%s" % x` formats. Taken for data, a path made every kernel loaded from it data.
            (_, Operand::Const(Constant::Str(_)), _) | (_, _, Operand::Const(Constant::Str(_))) => {
                self.anonymous_number(loc)
            }
            (Mult | Div, _, _) => self.scale(l, r, op == Div, c, loc, in_place),
            (MatMult, Operand::Num(a), Operand::Num(b)) => Value::Num(Rc::new(self.product(a, b, 1))),
            (Add | Sub, Operand::Num(a), Operand::Num(b)) => Value::Num(Rc::new(union(a, b))),
            (Add | Sub, Operand::Num(n), other) | (Add | Sub, other, Operand::Num(n)) => {
                if !n.tensor && n.carries_traced() {
                    // `v + 1` is not a power of `v`: not followed, and said so.
                    return self.not_followed(
                        n,
                        loc,
                        "the traced value takes part in an addition here; the result is not followed as a scale",
                        c,
                    );
                }
                match other {
                    Operand::Data => Value::Num(Rc::new(union(n, &Num::plain_tensor()))),
                    _ => Value::Num(n.clone()),
                }
            }
            (Pow, Operand::Num(n), Operand::Const(k)) if whole_power(k).is_some() => {
                let k = whole_power(k).unwrap_or(1);
                Value::Num(Rc::new(Num {
                    tensor: n.tensor,
                    parts: n.parts.iter().map(|p| Part { exp: p.exp * k, ..p.clone() }).collect(),
                    shape: n.shape,
                }))
            }
            (_, Operand::Num(n), _) | (_, _, Operand::Num(n)) => {
                if n.carries_traced() && !n.tensor {
                    let what = if op == Pow {
                        "the traced value is raised to a power that is not a whole number here; not followed"
                    } else {
                        "the traced value takes part in an operation that is not a product here; not followed"
                    };
                    return self.not_followed(n, loc, what, c);
                }
                Value::Num(n.clone())
            }
            (Add, Operand::Data, _) | (Add, _, Operand::Data) => Value::Num(Rc::new(Num::plain_tensor())),
            _ => self.anonymous_number(loc),
        }
    }

    /// `x.dim()`, `x.size()` and `x.size(k)` of a tensor made with known sizes: the count of
    /// its sizes, their tuple, the `k`th (from the end when negative).
    fn known_dimension(&self, n: &Num, name: &str, args: &Args) -> Option<G> {
        if !n.tensor {
            return None;
        }
        let dims = self.shapes[n.shape? as usize].clone();
        if !args.keywords.is_empty() || args.unknown_star {
            return None;
        }
        match (name, args.positional.as_slice()) {
            ("dim", []) => Some(G::one(&self.conds, Value::Const(Constant::Int(dims.len() as i64)))),
            ("size", []) => Some(G::one(&self.conds, Value::Tuple(Rc::new(dims.to_vec())))),
            ("size", [k]) => {
                let Some(Value::Const(Constant::Int(k))) = k.value.single() else { return None };
                let at = if *k < 0 { dims.len() as i64 + k } else { *k };
                usize::try_from(at).ok().and_then(|at| dims.get(at)).cloned()
            }
            _ => None,
        }
    }

    /// Integer arithmetic on unknown numbers, one symbol per computation (see
    /// [`SymKey::Arith`]); `None` unless an operand is an unknown number and the other one or
    /// an integer.
    fn arithmetic(&mut self, left: &Value, op: Operator, right: &Value, loc: Loc) -> Option<Value> {
        let term = |v: &Value| match v {
            Value::Sym(s) => Some(ArithTerm::Sym(*s)),
            Value::Const(Constant::Int(i)) => Some(ArithTerm::Int(*i)),
            _ => None,
        };
        let op = match op {
            Operator::Add => ArithOp::Add,
            Operator::Sub => ArithOp::Sub,
            Operator::Mult => ArithOp::Mul,
            Operator::FloorDiv => ArithOp::FloorDiv,
            Operator::Mod => ArithOp::Mod,
            _ => return None,
        };
        let (mut a, mut b) = (term(left)?, term(right)?);
        if !matches!(a, ArithTerm::Sym(_)) && !matches!(b, ArithTerm::Sym(_)) {
            return None;
        }
        if op.commutes() && b < a {
            std::mem::swap(&mut a, &mut b);
        }
        let text = self.text(loc);
        let value = self.sym(SymKey::Arith(op, a, b), text, None);
        Some(self.never_none_value(value))
    }

    /// An unknown value computed at `loc` (a symbol named by its text).
    fn anonymous(&mut self, loc: Loc) -> Value {
        let text = self.text(loc);
        self.sym(SymKey::At(loc, text.clone()), text, None)
    }

    /// An unknown value computed at `loc` by an operator or a tensor's metadata: never `None`
    /// (`n_routed_experts + n_shared == None` was an atom, and a configuration where it held a
    /// row of its own).
    fn anonymous_number(&mut self, loc: Loc) -> Value {
        let value = self.anonymous(loc);
        self.never_none_value(value)
    }

    /// `value`, noted as never `None` when it is a symbol (see `Interp::never_none`).
    pub(super) fn never_none_value(&mut self, value: Value) -> Value {
        if let Value::Sym(s) = value {
            self.never_none.insert(s);
        }
        value
    }

    /// Multiplication or division. Data times a scalar that carries the traced value is an
    /// application site; scalars combine into derived scalars.
    fn scale(&mut self, l: Operand, r: Operand, divide: bool, c: &Cond, loc: Loc, in_place: bool) -> Value {
        let sign = if divide { -1 } else { 1 };
        let data_like = |o: &Operand| match o {
            Operand::Num(n) => n.tensor,
            Operand::Data => true,
            _ => false,
        };
        let as_num = |o: &Operand| -> Option<Rc<Num>> {
            match o {
                Operand::Num(n) => Some(n.clone()),
                Operand::Data => Some(Rc::new(Num::plain_tensor())),
                _ => None,
            }
        };
        // What the left operand undergoes.
        let left_kind = if divide {
            SiteKind::Div
        } else if in_place {
            SiteKind::MulInPlace
        } else {
            SiteKind::Mul
        };
        // Which side is data and which carries the factor.
        let (data, factor, factor_sign, kind) = match (data_like(&l), data_like(&r)) {
            (true, false) => (as_num(&l), as_num(&r), sign, left_kind),
            (false, true) if !divide => (as_num(&r), as_num(&l), 1, SiteKind::Mul),
            // `v / t` scales the data's inverse by `v`: an application all the same (a kernel's
            // `w *= v / w.sum()` normalizes and scales at once).
            (false, true) => (
                as_num(&r).map(|n| {
                    let parts = n.parts.iter().map(|p| Part { exp: -p.exp, ..p.clone() }).collect();
                    Rc::new(Num { tensor: true, parts, shape: n.shape })
                }),
                as_num(&l),
                1,
                SiteKind::Mul,
            ),
            (true, true) => {
                let (a, b) = (as_num(&l).unwrap_or_default_num(), as_num(&r).unwrap_or_default_num());
                if divide && normalizes(&a, &b) {
                    // Scaled as a whole, the data comes out of no scale; scaled part by part, each
                    // part keeps its scale relative to the others.
                    if uniformly_scaled(&a) {
                        self.note_normalized(loc, Normalizer::OwnSum, c);
                        return Value::Num(Rc::new(unscaled(&a)));
                    }
                    return Value::Num(a);
                }
                return Value::Num(Rc::new(self.product(&a, &b, sign)));
            }
            _ => {
                // Scalars: `1 / v`, `v * 2`, `a * v` stay scalars, with combined exponents. An
                // unknown number scaled may be data all the same (an outside object's field):
                // the place is a site, in case it is (see `SiteRecord::on_number`).
                return match (&l, &r) {
                    (Operand::Num(a), Operand::Num(b)) => Value::Num(Rc::new(self.product(a, b, sign))),
                    (Operand::Num(a), Operand::Scalar) if !divide => {
                        Value::Num(Rc::new(self.scaled_number(a, 1, SiteKind::Mul, c, loc)))
                    }
                    (Operand::Num(a), _) => Value::Num(a.clone()),
                    (Operand::Scalar, Operand::Num(b)) => {
                        Value::Num(Rc::new(self.scaled_number(b, sign, left_kind, c, loc)))
                    }
                    (_, Operand::Num(b)) => {
                        let parts = b.parts.iter().map(|p| Part { exp: p.exp * sign, ..p.clone() }).collect();
                        Value::Num(Rc::new(Num { tensor: b.tensor, parts, shape: b.shape }))
                    }
                    _ => self.anonymous_number(loc),
                };
            }
        };
        let data = data.unwrap_or_default_num();
        let Some(factor) = factor else { return Value::Num(data) };
        if !factor.carries_traced() {
            return Value::Num(data);
        }
        // One site per component of the factor that carries the traced value.
        let mut parts = Vec::new();
        for fp in &factor.parts {
            let delta = fp.exp * factor_sign;
            let site = (delta != 0).then(|| {
                let site = self.record_site(loc, kind, delta, c, &fp.chain, None, None);
                // Data was scaled here: an application whatever else the place scaled.
                self.sites[site as usize].on_number = false;
                site
            });
            for dp in &data.parts {
                // Zeros scaled are zeros, and a buffer nothing wrote is still that: no
                // application reaches them.
                if dp.zero || dp.unwritten {
                    if dp.unwritten {
                        self.note_unwritten(loc, c);
                    }
                    parts.push(dp.clone());
                    continue;
                }
                let mut sites = dp.sites.to_vec();
                // (A scalar's own product with an unknown number is no application here: this is.)
                sites.extend(fp.sites.iter().copied().filter(|s| !self.sites[*s as usize].on_number));
                sites.extend(site);
                parts.push(Part {
                    exp: dp.exp + delta,
                    sites: Rc::from(sites),
                    chain: dp.chain.clone(),
                    unknown: Part::first_unknown(dp.unknown, fp.unknown),
                    zero: false,
                    unwritten: false,
                    shared: dp.shared,
                });
            }
        }
        Value::Num(Rc::new(Num { tensor: true, parts, shape: None }.normalize()))
    }

    /// A number carrying the traced value taken into arithmetic whose effect on the scale the
    /// count cannot say (`1 + v`, `v ** 0.5`): it keeps its exponents, unknown, so data it then
    /// scales is incomplete (an UNKNOWN row naming this place, not a count).
    fn not_followed(&mut self, n: &Num, loc: Loc, what: &str, c: &Cond) -> Value {
        let blocker = self.blocker(loc, what, c);
        let parts =
            n.parts.iter().map(|p| Part { unknown: Part::first_unknown(p.unknown, Some(blocker)), ..p.clone() });
        Value::Num(Rc::new(Num { tensor: false, parts: parts.collect(), shape: None }))
    }

    /// A non-linear function of data (`softmax`, `sigmoid`, `tanh`, `exp`, `log`): what comes
    /// out is no multiple of what went in (`softmax(v * x)` is not `v * softmax(x)`; the value
    /// is a temperature there), so it carries none of its scale. Where scaled data went in,
    /// said: a NEVER row names the place.
    fn squashed(&mut self, input: &G, pc: &Cond, loc: Loc) -> G {
        self.map(input, |interp, v| match v {
            Value::Num(n) if n.tensor && n.carries_traced() => {
                interp.note_normalized(loc, Normalizer::NonLinear, pc);
                Value::Num(Rc::new(unscaled(&n)))
            }
            other => other,
        })
    }

    /// Records that a buffer nothing wrote was scaled at `loc` under `c` (relative to the
    /// frame): what a NEVER row there names.
    pub fn note_unwritten(&mut self, loc: Loc, c: &Cond) {
        let at = self.base.and(c);
        match self.unwritten_scaled.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, c)) => *c = c.or(&at),
            None => self.unwritten_scaled.push((loc, at)),
        }
    }

    /// Records that data scaled as a whole lost its scale at `loc` under `c` (relative to the
    /// frame): what a NEVER row there names.
    pub fn note_normalized(&mut self, loc: Loc, how: Normalizer, c: &Cond) {
        let at = self.base.and(c);
        match self.normalized_away.iter_mut().find(|(l, h, _)| *l == loc && *h == how) {
            Some((_, _, c)) => *c = c.or(&at),
            None => self.normalized_away.push((loc, how, at)),
        }
    }

    /// An unknown number times a scalar carrying the traced value (`sign` -1 divides by it): the
    /// scalar's exponents, with a site for each part that carries the value (`on_number` while
    /// no data was ever scaled there).
    fn scaled_number(&mut self, factor: &Num, sign: i32, kind: SiteKind, c: &Cond, loc: Loc) -> Num {
        let carries = factor.carries_traced();
        let mut parts = Vec::new();
        for fp in &factor.parts {
            let delta = fp.exp * sign;
            let mut sites = fp.sites.to_vec();
            if carries && delta != 0 {
                let known = self.sites.len();
                let site = self.record_site(loc, kind, delta, c, &fp.chain, None, None);
                if site as usize == known {
                    self.sites[known].on_number = true;
                }
                sites.push(site);
            }
            parts.push(Part { exp: delta, sites: Rc::from(sites), ..fp.clone() });
        }
        Num { tensor: factor.tensor, parts, shape: factor.shape }
    }

    /// `a` where part of it is replaced by `b` (`t[idx] = v`): the parts of both.
    pub fn union_nums(&mut self, a: &G, b: &G, pc: &Cond) -> G {
        let mut out = G::empty();
        for (ac, av) in a.0.clone() {
            for (bc, bv) in b.0.clone() {
                let c = ac.and(&bc).and(pc);
                if !self.conds.feasible(&c) {
                    continue;
                }
                let v = match (&av, &bv) {
                    (Value::Num(x), Value::Num(y)) => Value::Num(Rc::new(union(x, y))),
                    (Value::Num(x), _) => Value::Num(x.clone()),
                    (_, Value::Num(y)) => Value::Num(y.clone()),
                    _ => av.clone(),
                };
                out.push(&self.conds, c, v);
            }
        }
        out
    }

    /// The union of two values each given under its own conditions (the pieces of one
    /// `torch.cat`, one per alternative of its arguments): where only one is given, that one.
    /// (Intersected instead, a value with alternatives under exclusive conditions, such as
    /// weights renormalized under one flag and not under the other, gave nothing.)
    pub(super) fn union_where_given(&mut self, a: &G, b: &G, pc: &Cond) -> G {
        let (a_given, b_given) = (a.coverage(&self.conds), b.coverage(&self.conds));
        let mut out = self.union_nums(a, b, pc);
        out.extend(&self.conds, a.restrict(&self.conds, &b_given.not()));
        out.extend(&self.conds, b.restrict(&self.conds, &a_given.not()));
        out
    }

    /// `x.add(y, alpha=v)`-like: `x + y * alpha`, the alpha an application site.
    fn add_scaled(&mut self, base: &G, added: &G, alpha: Option<&G>, pc: &Cond, loc: Loc) -> G {
        let scaled = match alpha {
            Some(alpha) => {
                let mut out = G::empty();
                for (ac, av) in added.0.clone() {
                    for (fc, fv) in alpha.0.clone() {
                        let c = ac.and(&fc).and(pc);
                        if !self.conds.feasible(&c) {
                            continue;
                        }
                        let l = self.operand(&av);
                        let r = self.operand(&fv);
                        let v = match (&l, &r) {
                            (Operand::Num(n), Operand::Num(f)) if f.carries_traced() && !f.tensor => {
                                let data = if n.tensor {
                                    n.clone()
                                } else {
                                    Rc::new(Num { tensor: true, parts: n.parts.clone(), shape: n.shape })
                                };
                                self.scale(Operand::Num(data), Operand::Num(f.clone()), false, &c, loc, false)
                            }
                            (_, Operand::Num(f)) if f.carries_traced() && !f.tensor => {
                                self.scale(Operand::Data, Operand::Num(f.clone()), false, &c, loc, false)
                            }
                            _ => av.clone(),
                        };
                        // The site kind for `alpha=` is its own.
                        out.push(&self.conds, c, v);
                    }
                }
                if let Some(last) = self.sites.last_mut() {
                    if last.loc == loc && last.kind == SiteKind::Mul {
                        last.kind = SiteKind::Alpha;
                    }
                }
                out
            }
            None => added.clone(),
        };
        let mut out = G::empty();
        for (bc, bv) in base.0.clone() {
            for (sc, sv) in scaled.0.clone() {
                let c = bc.and(&sc).and(pc);
                if !self.conds.feasible(&c) {
                    continue;
                }
                let v = match (&bv, &sv) {
                    (Value::Num(x), Value::Num(y)) => Value::Num(Rc::new(union(x, y))),
                    (Value::Num(x), _) => Value::Num(x.clone()),
                    (_, Value::Num(y)) => Value::Num(Rc::new(union(y, &Num::plain_tensor()))),
                    _ => Value::Num(Rc::new(Num::plain_tensor())),
                };
                out.push(&self.conds, c, v);
            }
        }
        out
    }

    /// A tensor filled with `fill`: ones times `fill`, so a number that carries the traced
    /// value is applied here (`w.new_full(shape, 1 / v)` divides, at this place); anything
    /// else, or no fill given, is plain data.
    fn filled(&mut self, fill: Option<G>, pc: &Cond, loc: Loc) -> G {
        let plain = || Value::Num(Rc::new(Num::plain_tensor()));
        let Some(fill) = fill else { return G::under(*pc, plain()) };
        let mut out = G::empty();
        for (c, v) in fill.iter() {
            let c = c.and(pc);
            match v {
                Value::Num(n) if n.carries_traced() => {
                    let ones = G::under(c, plain());
                    let product = self.binop(&ones, Operator::Mult, &G::under(c, v.clone()), &c, loc, false);
                    out.extend(&self.conds, product);
                }
                _ => out.push(&self.conds, c, plain()),
            }
        }
        let rest = pc.and(&out.coverage(&self.conds).not());
        if self.conds.feasible(&rest) {
            out.push(&self.conds, rest, plain());
        }
        out
    }

    /// `value` as written into a tensor: a number that carries the traced value becomes data
    /// filled with it (applied here, see `filled`); data and other values stay as they are.
    pub fn as_tensor_fill(&mut self, value: G, loc: Loc) -> G {
        if !value.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced())) {
            return value;
        }
        let mut out = G::empty();
        for (c, v) in value.0 {
            match &v {
                Value::Num(n) if !n.tensor && n.carries_traced() => {
                    let filled = self.filled(Some(G::under(c, v.clone())), &c, loc);
                    out.extend(&self.conds, filled);
                }
                _ => out.push(&self.conds, c, v),
            }
        }
        out
    }

    /// A method called on something that is not an object of the tree.
    pub fn call_method(&mut self, receiver: &Value, name: &str, args: Args, pc: &Cond, loc: Loc) -> G {
        match receiver {
            Value::Num(n) => self.tensor_method(n.clone(), name, args, pc, loc),
            // A scaling method of an unknown tensor (see `getattr`): with the traced value as
            // argument it is an application on data of unknown origin, taken as unscaled like
            // any other input; otherwise an unknown call as before.
            Value::Sym(s) => {
                let traced =
                    args.all_values().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.carries_traced())));
                if traced {
                    self.tensor_method(Rc::new(Num::plain_tensor()), name, args, pc, loc)
                } else {
                    let display = format!("{}.{name}", self.syms[*s as usize].label());
                    let callee = self.sym(SymKey::Path(*s, name.to_string()), display, None);
                    self.call_value(&callee, args, pc, loc)
                }
            }
            // `object.__setattr__(name, value)`, reached from a `__setattr__` of the tree
            // (`super().__setattr__(key, value)`): sets the attribute.
            Value::Obj(id) if name == "__setattr__" && matches!(self.heap[*id as usize].kind, ObjKind::Instance(_)) => {
                if let ([_, value], Some(Value::Const(Constant::Str(key)))) =
                    (args.positional.as_slice(), args.positional.first().and_then(|a| a.value.single()))
                {
                    let value = value.value.restrict(&self.conds, pc);
                    self.set_field(*id, &ruff_python_ast::name::Name::new(key), value, pc);
                }
                G::under(*pc, Value::none())
            }
            Value::Obj(id) => self.container_method(*id, name, args, pc, loc),
            Value::ExternalObj(path) => {
                let path = format!("{path}.{name}");
                self.call_external(&path, Some(receiver.clone()), args, pc, loc)
            }
            Value::Const(Constant::None) => G::under(pc.clone(), Value::unknown(format!("`{name}` called on None"))),
            Value::Const(Constant::Str(text)) if super::builtins::fold_str_method(text, name, &args).is_some() => {
                let folded = super::builtins::fold_str_method(text, name, &args).expect("just folded");
                G::under(*pc, Value::Const(folded))
            }
            Value::Const(c) if !matches!(c, Constant::None) => match self.enum_member_method(c, name) {
                // An enum member (held as its value) calling a method of its class.
                Some(func) => self.call_function(func, Some(receiver.clone()), args, pc, loc),
                None => {
                    let no_args = args.positional.is_empty() && args.keywords.is_empty();
                    match no_args.then(|| self.agreed_member_predicate(c, name)).flatten() {
                        Some(answer) => G::under(pc.clone(), Value::Const(Constant::Bool(answer))),
                        None => {
                            let v = self.anonymous(loc);
                            G::under(pc.clone(), v)
                        }
                    }
                }
            },
            Value::Tuple(_) | Value::Const(_) => {
                let v = self.anonymous(loc);
                G::under(pc.clone(), v)
            }

            _ => {
                let path = format!("<{}>.{name}", super::exprs::short_kind(receiver));
                self.call_external(&path, Some(receiver.clone()), args, pc, loc)
            }
        }
    }

    fn tensor_method(&mut self, n: Rc<Num>, name: &str, args: Args, pc: &Cond, loc: Loc) -> G {
        let receiver = G::under(pc.clone(), Value::Num(n.clone()));
        let first = args.positional.first().map(|a| a.value.clone());
        let keyword = |args: &Args, key: &str| {
            args.keywords.iter().find(|(k, _)| k.as_str() == key).map(|(_, a)| a.value.clone())
        };
        match name {
            "mul" | "mul_" | "multiply" | "multiply_" => match first.or_else(|| keyword(&args, "other")) {
                Some(other) => self.binop(&receiver, Operator::Mult, &other, pc, loc, name.ends_with('_')),
                None => receiver,
            },
            "div" | "div_" | "divide" | "divide_" | "true_divide" | "true_divide_" => {
                match first.or_else(|| keyword(&args, "other")) {
                    Some(other) => self.binop(&receiver, Operator::Div, &other, pc, loc, true),
                    None => receiver,
                }
            }
            "add" | "add_" | "sub" | "sub_" => match first.or_else(|| keyword(&args, "other")) {
                Some(other) => {
                    let alpha = keyword(&args, "alpha");
                    self.add_scaled(&receiver, &other, alpha.as_ref(), pc, loc)
                }
                None => receiver,
            },
            "addmm" | "addmm_" | "baddbmm" | "baddbmm_" | "addbmm" | "addbmm_" => {
                let (m1, m2) =
                    (args.positional.first().map(|a| a.value.clone()), args.positional.get(1).map(|a| a.value.clone()));
                let product = match (m1, m2) {
                    (Some(a), Some(b)) => self.binop(&a, Operator::MatMult, &b, pc, loc, false),
                    _ => G::under(pc.clone(), Value::Num(Rc::new(Num::plain_tensor()))),
                };
                let alpha = keyword(&args, "alpha");
                let base = match keyword(&args, "beta") {
                    Some(beta) => self.binop(&receiver, Operator::Mult, &beta, pc, loc, false),
                    None => receiver,
                };
                self.add_scaled(&base, &product, alpha.as_ref(), pc, loc)
            }
            "pow" | "pow_" => match first {
                Some(k) => self.binop(&receiver, Operator::Pow, &k, pc, loc, false),
                None => receiver,
            },
            "copy_" => first.unwrap_or(receiver),
            // A tensor filled with a value holds that value's scale (`w.new_full(shape, 1 / v)`
            // is a weight of 1/v).
            "new_full" => {
                let fill = args.positional.get(1).map(|a| a.value.clone()).or_else(|| keyword(&args, "fill_value"));
                self.filled(fill, pc, loc)
            }
            "fill_" => self.filled(first.or_else(|| keyword(&args, "value")), pc, loc),
            "new_tensor" => self.filled(first.or_else(|| keyword(&args, "data")), pc, loc),
            "new_zeros" | "zeros_like" => G::under(pc.clone(), Value::Num(Rc::new(Num::zero_tensor()))),
            "new_empty" => G::under(pc.clone(), Value::Num(Rc::new(Num::unwritten_tensor()))),
            "zero_" | "new_ones" => G::under(pc.clone(), Value::Num(Rc::new(Num::plain_tensor()))),
            // Integer or boolean data (expert ids, masks, positions) carries no scale: a routing
            // kernel returning weights and ids gives both the scale of what it was handed, and
            // the ids lose it where the code makes them integers (`topk_ids.to(torch.int32)`).
            _ if matches!(name, "int" | "long" | "short" | "bool" | "byte" | "char")
                || matches!(name, "argmax" | "argmin" | "argsort" | "nonzero")
                || (matches!(name, "to" | "type")
                    && first.clone().or_else(|| keyword(&args, "dtype")).is_some_and(|g| is_integer_dtype(&g))) =>
            {
                G::under(*pc, Value::Num(Rc::new(Num { shape: n.shape, ..Num::plain_tensor() })))
            }
            "size" | "dim" | "numel" | "stride" | "is_contiguous" | "element_size" | "data_ptr" | "get_device" => {
                match self.known_dimension(&n, name, &args) {
                    Some(known) => known.restrict(&self.conds, pc),
                    None => {
                        let v = self.anonymous_number(loc);
                        G::under(pc.clone(), v)
                    }
                }
            }
            "index_add_" | "index_add" | "scatter_add_" | "scatter_add" | "masked_scatter_" | "index_copy_"
            | "scatter_" | "masked_fill" | "masked_fill_" | "index_put_" | "where" => {
                // What is written in comes from the source argument only: the dimension, the
                // index and the mask say where (`out.index_add_(0, token_idx, y)` holds `y`,
                // not the positions `token_idx` of the tokens).
                let (position, keywords): (usize, &[&str]) = match name {
                    "index_add_" | "index_add" | "index_copy_" => (2, &["source"]),
                    "scatter_add_" | "scatter_add" | "scatter_" => (2, &["src", "value"]),
                    "masked_scatter_" => (1, &["source"]),
                    "masked_fill" | "masked_fill_" => (1, &["value"]),
                    "index_put_" => (1, &["values"]),
                    _ => (1, &["other"]),
                };
                let source = args.positional.get(position).map(|a| a.value.clone()).or_else(|| {
                    args.keywords.iter().find(|(k, _)| keywords.contains(&k.as_str())).map(|(_, a)| a.value.clone())
                });
                let mut out = receiver;
                if let Some(source) = source {
                    if source.iter().any(|(_, v)| matches!(v, Value::Num(x) if x.tensor)) {
                        out = self.union_nums(&out, &source, pc);
                    }
                }
                out
            }
            "softmax" | "log_softmax" | "sigmoid" | "tanh" | "exp" | "log" => self.squashed(&receiver, pc, loc),
            // A method tensors do not have, handed the traced value: the receiver is not data
            // but an object taken for it (a module a kernel was compiled into, returned by an
            // outside loader: `load_jit(...).moe_fused_gate(..., factor, ...)`), and the call is
            // an outside kernel like any other, a delegated application.
            _ if !is_tensor_method(name) && args.carry_traced() => {
                let text = self.text(loc);
                let callee = text.split_once('(').map_or(text.as_str(), |(callee, _)| callee).trim().to_string();
                self.call_external(&callee, None, args, pc, loc)
            }
            _ => {
                // Shape, dtype, device and reduction methods keep the scale of the tensor; a
                // traced scalar passed to one is not followed.
                for arg in args.all_values() {
                    if arg.iter().any(|(_, v)| matches!(v, Value::Num(x) if !x.tensor && x.carries_traced())) {
                        self.blocker(
                            loc,
                            format!("the traced value is passed to tensor method `{name}`; not counted"),
                            pc,
                        );
                    }
                }
                receiver
            }
        }
    }

    /// Methods of lists, dicts and record objects built by the evaluator.
    fn container_method(&mut self, id: HeapId, name: &str, args: Args, pc: &Cond, loc: Loc) -> G {
        // Mutations of an older container are gated by the whole condition of the call; what
        // is read from it is seen from the call (`relative_to` the base), as fields are: read
        // with the whole condition, the caller's condition would stay in what the call returns
        // and in its summary, replayed for calls made elsewhere.
        let relative = *pc;
        let pc = &self.gate(id, pc);
        let older = self.older_than_call(id);
        let seen = |this: &Self, g: &G| if older { this.seen_from_call(id, g) } else { g.clone() };
        if matches!(
            name,
            "append"
                | "extend"
                | "insert"
                | "pop"
                | "popitem"
                | "update"
                | "setdefault"
                | "clear"
                | "remove"
                | "sort"
                | "reverse"
        ) {
            self.touch(id);
        }
        let kind = self.read_object(id).kind.clone();
        if matches!(kind, ObjKind::List(_)) && matches!(name, "index" | "pop" | "insert" | "remove") {
            let positional: Vec<G> = args.positional.iter().map(|a| a.value.clone()).collect();
            if let Some(out) = self.list_positional(id, name, &positional, pc, loc) {
                return out;
            }
        }
        // Changed by the coarse treatment, the list's length is no longer known.
        if matches!(kind, ObjKind::List(_)) && matches!(name, "pop" | "insert" | "remove" | "clear") {
            self.exact_lists.remove(&id);
        }
        match (kind, name) {
            (ObjKind::Instance(_), name) if super::modules::REGISTRATION_METHODS.contains(&name) => {
                self.register_on_module(id, &args, &relative)
            }
            // `HyperConnection(config).to(dtype=torch.float32)`: `nn.Module`'s device, dtype and
            // mode methods return the module itself.
            (ObjKind::Instance(class), name)
                if super::modules::SELF_RETURNING_METHODS.contains(&name) && self.is_module_class(class) =>
            {
                G::under(relative, Value::Obj(id))
            }
            (ObjKind::List(mut items), "append") => {
                if let Some(arg) = args.positional.first() {
                    items.push(arg.value.restrict(&self.conds, pc));
                }
                self.heap[id as usize].kind = ObjKind::List(items);
                self.appended(id);
                G::under(relative, Value::none())
            }
            (ObjKind::List(mut items), "extend") => {
                // One item stands for what was added.
                self.exact_lists.remove(&id);
                if let Some(arg) = args.positional.first() {
                    items.push(self.iter_element(
                        &arg.value,
                        pc,
                        loc,
                        &ruff_python_ast::Expr::NoneLiteral(Default::default()),
                    ));
                }
                self.heap[id as usize].kind = ObjKind::List(items);
                G::under(relative, Value::none())
            }
            (ObjKind::List(items), "pop") => {
                let mut out = G::empty();
                for g in items {
                    out.extend(&self.conds, g.restrict(&self.conds, pc));
                }
                out
            }
            (ObjKind::Dict(stored), "get" | "pop" | "__getitem__") => {
                let entries: Vec<(Rc<str>, G)> = stored.iter().map(|(k, g)| (k.clone(), seen(self, g))).collect();
                let key = args.positional.first().map(|a| a.value.clone()).unwrap_or_default();
                let mut out = G::empty();
                for (kc, kv) in key.0.clone() {
                    let c = kc.and(&relative);
                    let raising = name != "get" && args.positional.get(1).is_none();
                    let exact = self.exact_dicts.contains_key(&id);
                    let mut found = self.dict_lookup(&entries, &kv, raising, exact, &c, loc);
                    // A missing key gives the default (`None` for `get`).
                    let missing: Vec<(Cond, Value)> = found
                        .0
                        .iter()
                        .filter(|(_, v)| matches!(v, Value::Unknown(r) if r.contains("missing")))
                        .cloned()
                        .collect();
                    found.0.retain(|(_, v)| !matches!(v, Value::Unknown(r) if r.contains("missing")));
                    let is_state = self.pipeline_state == Some(id);
                    // (A key of the pipeline's state one of its stages writes; see `state_entry`.)
                    let written = matches!(&kv, Value::Const(Constant::Str(k)) if entries.iter().any(|(e, _)| e.as_ref() == k.as_str()));
                    for (mc, _) in missing {
                        match args.positional.get(1) {
                            Some(default) => found.extend(&self.conds, default.value.restrict(&self.conds, &mc)),
                            None if is_state && written && name != "get" => {
                                self.raise_of(Some("KeyError"), &mc, loc);
                            }
                            // The pipeline's state holds data from stages not evaluated.
                            None if is_state => found.push(&self.conds, mc, Value::Num(Rc::new(Num::plain_tensor()))),
                            None if name == "get" => found.push(&self.conds, mc, Value::none()),
                            None => found.push(&self.conds, mc, Value::unknown("key missing")),
                        }
                    }
                    out.extend(&self.conds, found);
                    // `pop` removes the entry where it ran.
                    if name == "pop" {
                        let c = kc.and(pc);
                        if let Value::Const(Constant::Str(k)) = &kv {
                            if let ObjKind::Dict(current) = &mut self.heap[id as usize].kind {
                                if let Some(at) = current.iter().position(|(e, _)| e.as_ref() == k.as_str()) {
                                    let left = current[at].1.restrict(&self.conds, &c.not());
                                    // Popped wherever the dict exists, the key is gone: not
                                    // met iterating the dict (`items()`).
                                    let exists = self.keywords_dicts.get(&id).copied().unwrap_or(Cond::TRUE);
                                    if !self.conds.feasible(&left.coverage(&self.conds).and(&exists)) {
                                        current.remove(at);
                                    } else {
                                        current[at].1 = left;
                                    }
                                }
                            }
                        }
                    }
                }
                out
            }
            (ObjKind::Dict(mut entries), "update" | "setdefault") => {
                for (key, arg) in &args.keywords {
                    super::exprs::set_entry(&mut entries, key.as_str(), arg.value.restrict(&self.conds, pc), self, pc);
                }
                if name == "setdefault" {
                    if let (Some(k), Some(v)) = (args.positional.first(), args.positional.get(1)) {
                        if let Some(Value::Const(Constant::Str(k))) = k.value.single() {
                            if !entries.iter().any(|(e, _)| e.as_ref() == k.as_str()) {
                                entries.push((Rc::from(k.as_str()), v.value.restrict(&self.conds, pc)));
                            }
                        }
                    }
                } else {
                    for arg in &args.positional {
                        if let Some(Value::Obj(other)) = arg.value.single() {
                            if let ObjKind::Dict(more) = self.read_object(*other).kind.clone() {
                                for (k, g) in more {
                                    super::exprs::set_entry(&mut entries, &k, g.restrict(&self.conds, pc), self, pc);
                                }
                            }
                        }
                    }
                }
                self.heap[id as usize].kind = ObjKind::Dict(entries);
                G::under(relative, Value::none())
            }
            (ObjKind::Dict(entries), "items") => {
                let pairs: Vec<G> = entries
                    .iter()
                    .map(|(k, g)| {
                        G::under(
                            relative,
                            Value::Tuple(Rc::new(vec![G::under(relative, super::exprs::key_value(k)), seen(self, g)])),
                        )
                    })
                    .collect();
                let list = self.alloc(ObjKind::List(pairs), loc);
                G::under(relative, Value::Obj(list))
            }
            (ObjKind::Dict(entries), "values") => {
                let values = entries.iter().map(|(_, g)| seen(self, g)).collect();
                let list = self.alloc(ObjKind::List(values), loc);
                G::under(relative, Value::Obj(list))
            }
            (ObjKind::Dict(entries), "keys") => {
                let keys = entries
                    .iter()
                    .map(|(k, g)| G(seen(self, g).0.iter().map(|(c, _)| (*c, super::exprs::key_value(k))).collect()))
                    .collect();
                let list = self.alloc(ObjKind::List(keys), loc);
                self.mark_exact(list);
                self.key_views.insert(list);
                G::under(relative, Value::Obj(list))
            }
            (ObjKind::Dict(_), "copy") => G::under(relative, Value::Obj(self.copy_object(id, loc))),
            (ObjKind::Instance(_), "_replace") => {
                let copy = self.copy_object(id, loc);
                for (key, arg) in &args.keywords {
                    self.set_field(copy, key, arg.value.clone(), &relative);
                }
                G::under(relative, Value::Obj(copy))
            }
            _ => G::under(relative, Value::unknown(format!("method `{name}` of a container"))),
        }
    }

    /// A callee outside the tree. Data passed to it comes back as data whose scale combines
    /// the scales passed in; the traced value passed to it is a delegated application unless a
    /// kernel model says otherwise.
    pub fn call_external(&mut self, path: &str, receiver: Option<Value>, args: Args, pc: &Cond, loc: Loc) -> G {
        // `kernel(**kwargs)` with `kwargs` a dict built here: Python hands the kernel its entries.
        let mut args = self.with_splatted_entries(args);
        // `torch.sum(x, dim=1, out=out)`: the result lands in `out` (torch's convention for
        // every operator), whose own contents do not take part. A kernel model that names its
        // output argument says where instead.
        let out_keyword = args.keywords.iter().position(|(k, _)| k.as_str() == "out");
        if let Some(i) = out_keyword
            && self.kernels.find(path).is_none_or(|m| m.output.is_none())
        {
            let (_, out) = args.keywords.remove(i);
            let result = self.external_result(path, receiver, args, pc, loc);
            let mut written = G::empty();
            for (c, v) in result.iter() {
                if matches!(v, Value::Num(_)) {
                    written.push(&self.conds, *c, v.clone());
                }
            }
            if let (Some(target), false) = (out.loc, written.is_empty()) {
                self.out_writes.push((target, written, *pc));
            }
            return result;
        }
        self.external_result(path, receiver, args, pc, loc)
    }

    /// What an outside callee returns, given what it is handed.
    fn external_result(&mut self, path: &str, receiver: Option<Value>, args: Args, pc: &Cond, loc: Loc) -> G {
        let last = path.rsplit('.').next().unwrap_or(path);
        let first = args.positional.first().map(|a| a.value.clone());
        let keyword = |key: &str| args.keywords.iter().find(|(k, _)| k.as_str() == key).map(|(_, a)| a.value.clone());
        let plain = || Value::Num(Rc::new(Num::plain_tensor()));
        match last {
            "partial" => {
                if let Some(func) = first {
                    let partial = Partial {
                        func,
                        args: args.positional[1..].iter().map(|a| a.value.clone()).collect(),
                        kwargs: args.keywords.iter().map(|(k, a)| (k.clone(), a.value.clone())).collect(),
                    };
                    return G::under(pc.clone(), Value::Partial(Rc::new(partial)));
                }
            }
            // Compiling a function keeps what it computes: the compiled callable is the function.
            "compile" | "script" if matches!(path, "torch.compile" | "torch.jit.script") && receiver.is_none() => {
                if let Some(func) = first {
                    if func.iter().all(|(_, v)| {
                        matches!(v, Value::Func(_) | Value::Bound(..) | Value::Lambda(_) | Value::Partial(_))
                    }) {
                        return func.restrict(&self.conds, pc);
                    }
                }
            }
            // `functools.update_wrapper(wrapper, wrapped)` returns `wrapper`, name and docs copied.
            "update_wrapper" if path == "functools.update_wrapper" && receiver.is_none() => {
                if let Some(wrapper) = first {
                    return wrapper.restrict(&self.conds, pc);
                }
            }
            // `types.SimpleNamespace(a=..., b=...)`: an object holding those attributes, and
            // what code writes into it later (process-wide state kept in one: a communication
            // buffer made on the first call, read back on the next).
            "SimpleNamespace" if path == "types.SimpleNamespace" && receiver.is_none() => {
                let text = self.text(loc);
                let s = self.sym_id(SymKey::At(loc, text.clone()), text, None);
                let id = self.alloc(ObjKind::Opaque(s), loc);
                for (key, arg) in &args.keywords {
                    self.set_field(id, key, arg.value.clone(), pc);
                }
                return G::under(pc.clone(), Value::Obj(id));
            }
            // `typing.cast(T, value)` is `value` (vLLM's custom operators cast what the layer's
            // `_forward_impl` returns).
            "cast" if path == "typing.cast" && receiver.is_none() => {
                let value =
                    args.positional.get(1).or_else(|| args.keywords.iter().find(|(k, _)| k == "val").map(|(_, a)| a));
                if let Some(value) = value {
                    return value.value.restrict(&self.conds, pc);
                }
            }
            // `types.MappingProxyType(mapping)` is a read-only view of the mapping: reads go
            // through to it.
            "MappingProxyType" if path == "types.MappingProxyType" && receiver.is_none() => {
                if let Some(mapping) = first {
                    return mapping.restrict(&self.conds, pc);
                }
            }
            // `copy.copy(obj)`, `dataclasses.replace(obj, **changes)`: a new object holding what
            // `obj` holds (the changes set); `copy.deepcopy(obj)` copies the objects it holds
            // too. Of an unknown value, either is a new object that reads as it (a layer's
            // `copy.deepcopy(config)` has the config's flags, the same atoms).
            "copy" | "replace" | "deepcopy"
                if matches!(
                    path,
                    "copy.copy" | "copy.deepcopy" | "dataclasses.replace" | "msgspec.structs.replace"
                ) && receiver.is_none() =>
            {
                if let Some(original) = first {
                    let changes = if last == "replace" { args.keywords.clone() } else { Vec::new() };
                    return self.copy_of(&original, &changes, last == "deepcopy", pc, loc);
                }
            }
            // `itertools.islice(xs, start, stop)`: some of the items of `xs`, in order, as
            // `xs[start:stop]` (a model's loop over the layers of its pipeline stage).
            "islice"
                if path == "itertools.islice" && receiver.is_none() && (2..=3).contains(&args.positional.len()) =>
            {
                let sequence = |g: &G| {
                    !g.is_empty()
                        && g.iter().all(|(_, v)| match v {
                            Value::Tuple(_) => true,
                            Value::Obj(id) => matches!(self.heap[*id as usize].kind, ObjKind::List(_)),
                            _ => false,
                        })
                };
                if let Some(items) = first.filter(sequence) {
                    let bound = |arg: &super::calls::Arg| match arg.value.single() {
                        Some(Value::Const(Constant::Int(i))) => Some(Some(*i)),
                        Some(Value::Const(Constant::None)) => Some(None),
                        _ => None,
                    };
                    let bounds = match &args.positional[1..] {
                        [stop] => bound(stop).map(|stop| (None, stop)),
                        [start, stop] => bound(start).zip(bound(stop)),
                        _ => None,
                    };
                    return self.sliced(&items, bounds.unwrap_or((None, None)), pc, loc);
                }
            }
            "ModuleList" | "Sequential" | "ModuleDict" | "ParameterList" | "ParameterDict" => {
                return first.unwrap_or_else(|| {
                    let id = self.alloc(ObjKind::List(Vec::new()), loc);
                    G::under(pc.clone(), Value::Obj(id))
                });
            }
            // `F.pad(x, pad, mode, value)`: `x` with entries added, filled with `value`, as
            // `torch.cat([x, torch.full(..., value)])`: the fill's scale is the new entries' only.
            "pad" if path == "torch.nn.functional.pad" && receiver.is_none() => {
                if let Some(input) = first {
                    let input = input.restrict(&self.conds, pc);
                    let fill = args.positional.get(3).map(|a| a.value.clone()).or_else(|| keyword("value"));
                    return match fill {
                        Some(fill) if fill.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.carries_traced())) => {
                            let fill = self.as_tensor_fill(fill, loc);
                            self.union_nums(&input, &fill, pc)
                        }
                        _ => input,
                    };
                }
            }
            // Filled with a value (`torch.full(shape, v)`, `torch.tensor(v)`): that value's scale.
            "full" | "full_like" if receiver.is_none() && path.starts_with("torch.") => {
                let fill = args.positional.get(1).map(|a| a.value.clone()).or_else(|| keyword("fill_value"));
                return self.filled(fill, pc, loc);
            }
            "tensor" | "as_tensor" if receiver.is_none() && path.starts_with("torch.") => {
                return self.filled(first.or_else(|| keyword("data")), pc, loc);
            }
            "empty" | "zeros" | "ones" | "randn" | "rand" if receiver.is_none() && path.starts_with("torch.") => {
                let shape = self.shape_given(&args);
                let made = match last {
                    "zeros" => Num::zero_tensor(),
                    "empty" => Num::unwritten_tensor(),
                    _ => Num::plain_tensor(),
                };
                return G::under(*pc, Value::Num(Rc::new(Num { shape, ..made })));
            }
            "Parameter" | "empty_like" | "zeros_like" | "ones_like" | "rand_like" | "randn_like" => {
                // The same shape as the tensor it is made from.
                let shape = first.as_ref().and_then(|g| match g.single() {
                    Some(Value::Num(n)) => n.shape,
                    _ => None,
                });
                let made = match last {
                    "zeros_like" => Num::zero_tensor(),
                    "empty_like" => Num::unwritten_tensor(),
                    _ => Num::plain_tensor(),
                };
                return G::under(*pc, Value::Num(Rc::new(Num { shape, ..made })));
            }
            "empty" | "zeros" | "ones" | "full" | "randn" | "rand" | "randint" | "arange" | "full_like" | "tensor"
            | "as_tensor" | "from_numpy" | "eye" | "linspace" | "empty_strided" => {
                return G::under(pc.clone(), plain());
            }
            // Roots and powers of numbers: `math.sqrt(v)` is `v ** 0.5`, `math.pow(v, k)` is `v ** k`.
            "sqrt" | "pow"
                if receiver.is_none() && matches!(path, "math.sqrt" | "math.pow" | "numpy.sqrt" | "numpy.power") =>
            {
                if let Some(base) = first.clone() {
                    let power = match last {
                        "sqrt" => G::under(*pc, Value::Const(Constant::Float(0.5))),
                        _ => match args.positional.get(1) {
                            Some(k) => k.value.clone(),
                            None => return G::under(*pc, self.anonymous_number(loc)),
                        },
                    };
                    return self.binop(&base, Operator::Pow, &power, pc, loc, false);
                }
            }
            // A non-linear function of data: see `squashed`.
            "softmax" | "log_softmax" | "sigmoid" | "tanh" | "exp" | "log"
                if receiver.is_none()
                    && (path.strip_prefix("torch.") == Some(last)
                        || path.strip_prefix("torch.nn.functional.") == Some(last)) =>
            {
                if let Some(input) = first.clone().or_else(|| keyword("input")) {
                    return self.squashed(&input, pc, loc);
                }
            }
            // `F.normalize(w, p=1)` divides data by a norm of itself: as `w / w.sum()`.
            "normalize" if receiver.is_none() && path.starts_with("torch.nn.functional.") => {
                if let Some(input) = first.clone().or_else(|| keyword("input")) {
                    return self.map(&input, |interp, v| match v {
                        Value::Num(n) if n.tensor && uniformly_scaled(&n) => {
                            interp.note_normalized(loc, Normalizer::OwnSum, pc);
                            Value::Num(Rc::new(unscaled(&n)))
                        }
                        other => other,
                    });
                }
            }
            "mul" | "multiply" if args.positional.len() == 2 && receiver.is_none() => {
                let (a, b) = (args.positional[0].value.clone(), args.positional[1].value.clone());
                return self.binop(&a, Operator::Mult, &b, pc, loc, false);
            }
            "div" | "divide" | "true_divide" if args.positional.len() == 2 && receiver.is_none() => {
                let (a, b) = (args.positional[0].value.clone(), args.positional[1].value.clone());
                return self.binop(&a, Operator::Div, &b, pc, loc, false);
            }
            "add" | "sub" if args.positional.len() == 2 && receiver.is_none() => {
                let (a, b) = (args.positional[0].value.clone(), args.positional[1].value.clone());
                let alpha = keyword("alpha");
                return self.add_scaled(&a, &b, alpha.as_ref(), pc, loc);
            }
            "cat" | "concat" | "concatenate" | "stack" | "hstack" | "vstack" | "where" | "maximum" | "minimum" => {
                let mut parts = G::under(pc.clone(), plain());
                let mut pieces: Vec<G> = Vec::new();
                // `where(mask, a, b)`: the mask picks between the values, it is not one of them.
                let values = if last == "where" && args.positional.len() == 3 { 1 } else { 0 };
                for arg in &args.positional[values..] {
                    for (c, v) in arg.value.0.clone() {
                        match &v {
                            Value::Tuple(items) => pieces.extend(items.iter().map(|g| g.restrict(&self.conds, &c))),
                            Value::Obj(id) => {
                                if let ObjKind::List(items) = self.read_object(*id).kind.clone() {
                                    pieces.extend(items.into_iter().map(|g| g.restrict(&self.conds, &c)));
                                }
                            }
                            _ => pieces.push(G::under(c.clone(), v.clone())),
                        }
                    }
                }
                let mut first_piece = true;
                for piece in pieces {
                    if piece.iter().any(|(_, v)| matches!(v, Value::Num(_))) {
                        // (`torch.where(mask, x, 1.0 / factor)`: the number enters the data here.)
                        let piece = self.as_tensor_fill(piece, loc);
                        parts = if first_piece { piece } else { self.union_where_given(&parts, &piece, pc) };
                        first_piece = false;
                    }
                }
                return parts;
            }
            _ => {}
        }
        self.combine_external(path, receiver, &args, pc, loc)
    }

    /// A copy of each object `original` may be (`deep`: the objects it holds copied too), with
    /// `changes` set on it.
    fn copy_of(
        &mut self,
        original: &G,
        changes: &[(ruff_python_ast::name::Name, super::calls::Arg)],
        deep: bool,
        pc: &Cond,
        loc: Loc,
    ) -> G {
        let mut out = G::empty();
        for (c, v) in original.restrict(&self.conds, pc).0 {
            let copy = match v {
                Value::Obj(id) if deep => {
                    let (copy, whole) = self.deep_copy_object(id, loc, &mut rustc_hash::FxHashMap::default());
                    if !whole {
                        let what = format!(
                            "`copy.deepcopy` copies at most {} objects: the rest of this copy shares the original's",
                            super::interp::MAX_DEEP_COPY
                        );
                        self.blocker(loc, what, &c);
                    }
                    copy
                }
                Value::Obj(id) => {
                    // A copy holds the state the original has: one whose constructor was
                    // skipped is built first (copied unbuilt, the copy built its own objects
                    // when read, and writes into them never reached the original's).
                    self.build_skipped(id, loc);
                    self.copy_object(id, loc)
                }
                // An unknown value: a new object that reads as it where nothing was written into
                // the copy, holding what was written into the original so far.
                Value::Sym(s) => match self.opaque_object(s, None) {
                    Some(written) => self.copy_object(written, loc),
                    None => self.alloc(ObjKind::Opaque(s), loc),
                },
                other => {
                    out.push(&self.conds, c, other);
                    continue;
                }
            };
            for (key, arg) in changes {
                self.set_field(copy, key, arg.value.clone(), &c);
            }
            out.push(&self.conds, c, Value::Obj(copy));
        }
        out
    }

    /// The shape a tensor factory is given: one tuple or list (`torch.empty((n, k, d))`), or
    /// the sizes one by one (`torch.empty(n, k, d)`). One unknown argument may be a whole shape
    /// (`torch.empty(x.shape)`), and `*sizes` of unknown length leaves the count open: no shape.
    fn shape_given(&mut self, args: &Args) -> Option<u32> {
        if args.unknown_star {
            return None;
        }
        let sizes: Vec<G> = match args.positional.as_slice() {
            [] => return None,
            [one] => match one.value.single() {
                Some(Value::Tuple(items)) => items.to_vec(),
                Some(Value::Obj(id)) => match &self.heap[*id as usize].kind {
                    ObjKind::List(items) => items.clone(),
                    _ => return None,
                },
                Some(Value::Const(Constant::Int(_))) => vec![one.value.clone()],
                _ => return None,
            },
            many => many.iter().map(|a| a.value.clone()).collect(),
        };
        self.shapes.push(Rc::from(sizes));
        Some(self.shapes.len() as u32 - 1)
    }

    /// The generic outside call: combine the scales of the data passed in (as a product), add
    /// delegated applications of the traced value; or, for a callee whose kernel model says
    /// what it returns, that.
    pub(super) fn combine_external(
        &mut self,
        path: &str,
        receiver: Option<Value>,
        args: &Args,
        pc: &Cond,
        loc: Loc,
    ) -> G {
        if let Some(model) = self.kernels.find(path).filter(|m| m.returns.is_some()).cloned() {
            if let Some(returned) = self.modelled_returns(&model, path, args, pc, loc) {
                // A kernel that writes what it computes into an argument (`moe_sum(input,
                // output)`): that argument holds the item its model returns, whatever it held.
                if let Some(output) = &model.output {
                    if let Some(target) = args.named_or_at(&output.name, output.position).and_then(|a| a.loc) {
                        let first = match returned.single() {
                            Some(Value::Tuple(items)) => items.first().cloned(),
                            _ => Some(returned.clone()),
                        };
                        if let Some(written) = first {
                            self.out_writes.push((target, written, *pc));
                        }
                    }
                }
                return returned;
            }
        }
        self.combine_carriers(path, receiver, args, args, pc, loc, false)
    }

    /// What a callee returns by its model's `returns` (`recv_x, recv_ids, recv_weights, ... =
    /// buffer.dispatch(x, topk_idx=ids, topk_weights=weights)` hands each tensor back with its
    /// own scale: a communication moves data, it does not combine it). `None` when the
    /// arguments cannot be placed (a `*args` of unknown length before them).
    fn modelled_returns(&mut self, model: &KernelModel, path: &str, args: &Args, pc: &Cond, loc: Loc) -> Option<G> {
        let returns = model.returns.as_deref().unwrap_or_default();
        let first_star = if args.unknown_star { args.stars_at.first().copied() } else { None };
        let mut items = Vec::with_capacity(returns.len());
        for (i, item) in returns.iter().enumerate() {
            let mut passed = Vec::new();
            for name in &item.from {
                let position = model.position_of(name);
                let by_keyword = args.keywords.iter().any(|(k, _)| k.as_str() == name);
                if !by_keyword && position.zip(first_star).is_some_and(|(p, star)| p >= star) {
                    return None;
                }
                if let Some(arg) = args.named_or_at(name, position) {
                    passed.push((name.as_str(), arg.clone()));
                }
            }
            let value = match passed.as_slice() {
                // None of the caller's data: a value of its own, one per item and call.
                [] if item.from.is_empty() => {
                    let key = format!("{path}[{i}]@{}:{}", loc.file.as_u32(), loc.span.start);
                    let shown = format!("{}(...)[{i}]", last_two(path));
                    G::under(*pc, self.sym(SymKey::External(key), shown, None))
                }
                // What it would hand back was not passed (DeepEP gives `None` for weights it
                // was not sent).
                [] => G::under(*pc, Value::none()),
                [(_, one)] => one.value.restrict(&self.conds, pc),
                several => {
                    let keywords = several
                        .iter()
                        .map(|(name, arg)| (ruff_python_ast::name::Name::new(*name), arg.clone()))
                        .collect();
                    let sub = Args { keywords, ..Args::default() };
                    self.combine_carriers(path, None, &sub, args, pc, loc, true)
                }
            };
            items.push(value);
        }
        Some(match items.len() {
            1 => items.pop().unwrap_or_else(G::empty),
            _ => G::under(*pc, Value::Tuple(Rc::new(items))),
        })
    }

    /// The product of the scales of the data passed in (`args`), with delegated applications of
    /// the traced value; a kernel model's tests read the call's arguments (`call_args`: all of
    /// them, where `args` are those one item of its result is made from). `modelled`: `args`
    /// are what a model says one item is made of, so a buffer nothing wrote among them is what
    /// comes back (`moe_sum_reduce(input, ...)` handed an empty `input`); unmodelled, a callee
    /// handed one writes into it.
    #[allow(clippy::too_many_arguments)]
    fn combine_carriers(
        &mut self,
        path: &str,
        receiver: Option<Value>,
        args: &Args,
        call_args: &Args,
        pc: &Cond,
        loc: Loc,
        modelled: bool,
    ) -> G {
        // The arguments that carry numbers, with how the callee names them.
        let mut carriers: Vec<(Option<String>, Option<usize>, G)> = Vec::new();
        if let Some(r) = &receiver {
            if matches!(r, Value::Num(_)) {
                carriers.push((None, None, G::under(pc.clone(), r.clone())));
            }
        }
        for (i, arg) in args.positional.iter().enumerate() {
            if arg.value.iter().any(|(_, v)| matches!(v, Value::Num(_))) {
                carriers.push((None, Some(i), arg.value.clone()));
            }
        }
        for (name, arg) in &args.keywords {
            if arg.value.iter().any(|(_, v)| matches!(v, Value::Num(_))) {
                carriers.push((Some(name.to_string()), None, arg.value.clone()));
            }
        }
        let looks_like_data = receiver.as_ref().is_some_and(|r| matches!(r, Value::ExternalObj(_) | Value::Num(_)))
            || ["torch", "F.", "triton", "tl.", "sgl_kernel", "flashinfer", "aiter", "vllm", "deep_gemm", "_C", "ops."]
                .iter()
                .any(|p| path.starts_with(p) || path.contains(&format!(".{p}")));
        // Classes outside the tree (`nn.Linear(...)`) make outside objects; calling one later is
        // a call of that object.
        let last = path.rsplit('.').next().unwrap_or(path);
        if receiver.is_none()
            && last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && !last.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        {
            return G::under(pc.clone(), Value::ExternalObj(Rc::from(path)));
        }
        if carriers.is_empty() {
            if looks_like_data && path.starts_with("torch.") && !torch_setting(path) {
                return G::under(pc.clone(), Value::Num(Rc::new(Num::plain_tensor())));
            }
            let text = self.text(loc);
            let display = if text.len() <= 120 { text } else { format!("{path}(...)") };
            // The same call text may be handed different values (`os.environ.get(name)` in a
            // helper called with two names): keyed and shown by what it was handed, when that
            // is known; by where it is otherwise.
            let (key, display) = match self.unknown_call_arguments(args) {
                Some((key, shown)) => {
                    let (callee, written) = split_call_text(&display);
                    let literal = written == shown || written.replace('\'', "\"") == shown;
                    let display = if literal { display.clone() } else { format!("{callee}{shown}") };
                    (format!("{path}|{callee}{key}"), display)
                }
                None => (format!("{display}@{}:{}", loc.file.as_u32(), loc.span.start), display),
            };
            let v = self.sym(SymKey::External(key), display, None);
            // torch answers its questions (`torch.get_default_dtype()`): never with `None`.
            if let (Value::Sym(s), true) = (&v, path.starts_with("torch.") && torch_setting(path)) {
                self.never_none.insert(*s);
            }
            return G::under(pc.clone(), v);
        }
        // Cross product of the carriers' alternatives, bounded.
        let mut combos: Vec<(Cond, Vec<(Option<String>, Option<usize>, Value)>)> = vec![(pc.clone(), Vec::new())];
        for (name, position, g) in &carriers {
            let mut next = Vec::new();
            for (c, chosen) in &combos {
                for (ac, av) in g.0.iter() {
                    let both = c.and(ac);
                    if !self.conds.feasible(&both) {
                        continue;
                    }
                    let mut chosen = chosen.clone();
                    chosen.push((name.clone(), *position, av.clone()));
                    next.push((both, chosen));
                }
            }
            if next.len() > MAX_COMBINATIONS {
                self.bound(Some(loc), format!("arguments of `{path}` have more than {MAX_COMBINATIONS} combinations"));
                next.truncate(MAX_COMBINATIONS);
            }
            combos = next;
        }
        let model = self.kernels.find(path).cloned();
        let mut out = G::empty();
        for (c, chosen) in combos {
            // Start from plain data, or for a model's item or a torch operator (a function of
            // its inputs, which writes into no buffer it is handed) from a plain number (the
            // product's identity: a buffer nothing wrote, handed alone, stays that), and
            // multiply in every number passed; what comes back is data.
            let computes = modelled || (path.starts_with("torch.") && !path.starts_with("torch.ops."));
            let start = Num { tensor: !computes, ..Num::plain_tensor() };
            let mut results: Vec<(Cond, Num)> = vec![(c.clone(), start)];
            for (name, position, value) in &chosen {
                let Value::Num(n) = value else { continue };
                if n.tensor || !n.carries_traced() {
                    results = results.into_iter().map(|(rc, acc)| (rc, self.product(&acc, n, 1))).collect();
                    continue;
                }
                // The traced value (or a scalar derived from it) handed to the callee.
                let (applies, note) =
                    self.kernel_applies(model.as_ref(), name.as_deref(), *position, call_args, &c, loc, path);
                let slot = self.kernel_shared_slot(model.as_ref(), name.as_deref(), *position, call_args, &c, loc);
                let mut next = Vec::new();
                for (rc, acc) in results {
                    let yes = rc.and(&applies);
                    if self.conds.feasible(&yes) {
                        let parts = self.delegated_parts(&acc, n, 1, &yes, loc, path, note.clone());
                        let num = Num { tensor: true, parts, shape: None }.normalize();
                        next.extend(self.with_shared_slot(yes, num, n, slot.as_ref(), loc, path, model.as_ref()));
                    }
                    let no = rc.and(&applies.not());
                    if self.conds.feasible(&no) {
                        next.extend(self.with_shared_slot(no, acc, n, slot.as_ref(), loc, path, model.as_ref()));
                    }
                }
                results = next;
            }
            for (rc, num) in results {
                out.push(&self.conds, rc, Value::Num(Rc::new(Num { tensor: true, ..num }.normalize())));
            }
        }
        // A kernel writing its result into an argument (`moe_sum_reduce(input, output, factor)`)
        // changes the caller's tensor, whichever tensor that is (an input written in place too).
        if let Some(output) = model.as_ref().and_then(|m| m.output.as_ref()) {
            if let Some(target) = call_args.named_or_at(&output.name, output.position).and_then(|a| a.loc) {
                self.out_writes.push((target, out.clone(), *pc));
            }
        }
        out
    }

    /// `data`'s parts weighted by the traced value handed to an outside callee (`factor`)
    /// to the power `power`: each part of the factor is a delegated site (where its exponent
    /// is not 0) added to every part of the data.
    #[allow(clippy::too_many_arguments)]
    fn delegated_parts(
        &mut self,
        data: &Num,
        factor: &Num,
        power: i32,
        cond: &Cond,
        loc: Loc,
        path: &str,
        note: Option<String>,
    ) -> Vec<Part> {
        let mut parts = Vec::new();
        for fp in &factor.parts {
            let exp = fp.exp * power;
            let site = (exp != 0).then(|| {
                self.record_site(loc, SiteKind::Delegated, exp, cond, &fp.chain, Some(path.to_string()), note.clone())
            });
            for dp in &data.parts {
                if dp.zero || dp.unwritten {
                    if dp.unwritten {
                        self.note_unwritten(loc, cond);
                    }
                    parts.push(dp.clone());
                    continue;
                }
                let mut sites = dp.sites.to_vec();
                sites.extend(site);
                parts.push(Part {
                    exp: dp.exp + exp,
                    sites: Rc::from(sites),
                    chain: dp.chain.clone(),
                    unknown: Part::first_unknown(dp.unknown, fp.unknown),
                    zero: false,
                    unwritten: false,
                    shared: dp.shared,
                });
            }
        }
        parts
    }

    /// What a routing kernel gives where its fused shared-expert slot exists: `num` (the other
    /// slots, the factor applied or not) and, beside it, the same data weighted once more by the
    /// factor (`factor`, the value handed in) to the slot's power. The slot is the routed
    /// weights' sum divided by the factor, then scaled as the other slots are (SGLang's
    /// `biased_grouped_topk_impl`: `topk_weights[:, -1] = topk_weights[:, :-1].sum(dim=-1) /
    /// routed_scaling_factor`, and `topk_weights *= routed_scaling_factor` when asked).
    #[allow(clippy::too_many_arguments)]
    fn with_shared_slot(
        &mut self,
        cond: Cond,
        num: Num,
        factor: &Num,
        slot: Option<&(i32, Cond)>,
        loc: Loc,
        path: &str,
        model: Option<&super::kernels::KernelModel>,
    ) -> Vec<(Cond, Num)> {
        let Some((exponent, when)) = slot else { return vec![(cond, num)] };
        let mut out = Vec::new();
        let there = cond.and(when);
        if self.conds.feasible(&there) {
            let note = format!(
                "the kernel's fused shared-expert slot, weighted by the factor to the power {exponent} ({})",
                model.map(|m| m.source.as_str()).unwrap_or_default()
            );
            let slot_parts = self.delegated_parts(&num, factor, *exponent, &there, loc, path, Some(note));
            let mut both = num.clone();
            both.tensor = true;
            both.parts.extend(slot_parts);
            out.push((there, both.normalize()));
        }
        let elsewhere = cond.and(&when.not());
        if self.conds.feasible(&elsewhere) {
            out.push((elsewhere, num));
        }
        out
    }

    /// The fused shared-expert slot of a kernel model, when the factor is passed as the
    /// argument the model names: the slot's power of the factor and where the slot exists.
    fn kernel_shared_slot(
        &mut self,
        model: Option<&super::kernels::KernelModel>,
        name: Option<&str>,
        position: Option<usize>,
        args: &Args,
        pc: &Cond,
        loc: Loc,
    ) -> Option<(i32, Cond)> {
        let model = model?;
        let slot = model.shared_slot.as_ref().filter(|_| model.names_factor(name, position))?;
        let when = self.argument_tests(&slot.when, args, pc, loc);
        Some((slot.exponent, when))
    }

    /// Whether every test of a kernel model on the call's arguments holds.
    fn argument_tests(&mut self, tests: &[super::kernels::ArgTest], args: &Args, pc: &Cond, loc: Loc) -> Cond {
        let mut cond = self.conds.truth();
        for test in tests {
            let passed = args.named_or_at(&test.arg, test.position);
            // An unknown argument's test is named by the argument's text, not the call's.
            let arg_loc = passed.and_then(|a| a.loc).unwrap_or(loc);
            let value = passed
                .map(|a| a.value.clone())
                .or_else(|| {
                    test.default.as_ref().and_then(toml_constant).map(|c| G::under(pc.clone(), Value::Const(c)))
                })
                .unwrap_or_else(|| G::under(pc.clone(), Value::none()));
            let equals = test.equals.as_ref().and_then(toml_constant).map(|c| (ruff_python_ast::CmpOp::Eq, c));
            let greater = test.greater.as_ref().and_then(toml_constant).map(|c| (ruff_python_ast::CmpOp::Gt, c));
            let holds = match equals.or(greater) {
                Some((op, expected)) => {
                    let expected = G::under(pc.clone(), Value::Const(expected));
                    self.compare(&value, op, &expected, &test.arg, "", arg_loc)
                }
                None => self.truthy(&value, arg_loc),
            };
            cond = cond.and(&if test.negate { holds.not() } else { holds });
        }
        cond
    }

    /// Whether an outside callee applies the factor passed as argument `name`/`position`:
    /// the condition, and the note shown with the delegated site.
    #[allow(clippy::too_many_arguments)]
    fn kernel_applies(
        &mut self,
        model: Option<&super::kernels::KernelModel>,
        name: Option<&str>,
        position: Option<usize>,
        args: &Args,
        pc: &Cond,
        loc: Loc,
        path: &str,
    ) -> (Cond, Option<String>) {
        let Some(model) = model else {
            return (self.conds.truth(), Some(format!("no kernel model for `{path}`: counted as applied")));
        };
        let Some(applies) = model.applies.filter(|_| model.names_factor(name, position)) else {
            return (
                self.conds.truth(),
                Some(format!(
                    "passed to `{path}` in an argument its model does not name as the factor: counted as applied"
                )),
            );
        };
        match applies {
            Applies::Always => (self.conds.truth(), Some(format!("applied by the kernel ({})", model.source))),
            Applies::Never => (self.conds.falsity(), Some(format!("not applied by the kernel ({})", model.source))),
            Applies::When => {
                let tests = model.when.clone();
                let cond = self.argument_tests(&tests, args, pc, loc);
                (cond, Some(format!("applied when the kernel model's condition holds ({})", model.source)))
            }
        }
    }
}

trait OrDefaultNum {
    fn unwrap_or_default_num(self) -> Rc<Num>;
}

impl OrDefaultNum for Option<Rc<Num>> {
    fn unwrap_or_default_num(self) -> Rc<Num> {
        self.unwrap_or_else(|| Rc::new(Num::plain_tensor()))
    }
}

/// Arithmetic between a tuple and a Python float (or a number that is not a tensor), which
/// Python rejects: only `tuple * int` (repetition) and `tuple + tuple` are defined.
fn tuple_with_scalar(op: Operator, left: &Value, right: &Value) -> bool {
    let scalar = |v: &Value| {
        matches!(v, Value::Const(Constant::Float(_))) || matches!(v, Value::Num(n) if !n.tensor && n.carries_traced())
    };
    matches!(op, Operator::Mult | Operator::Div | Operator::Add | Operator::Sub | Operator::MatMult | Operator::Pow)
        && ((matches!(left, Value::Tuple(_)) && scalar(right)) || (scalar(left) && matches!(right, Value::Tuple(_))))
}

/// `None` in arithmetic with a number or data (`out *= factor` where a helper gave nothing back
/// on one path): Python raises `TypeError` there. Taken for the other operand, `None * factor`
/// was the factor, a number of the configuration standing for the layer's output.
fn none_with_number(op: Operator, left: &Value, right: &Value) -> bool {
    let none = |v: &Value| matches!(v, Value::Const(Constant::None));
    let number = |v: &Value| matches!(v, Value::Num(_));
    matches!(
        op,
        Operator::Mult
            | Operator::Div
            | Operator::Add
            | Operator::Sub
            | Operator::MatMult
            | Operator::Pow
            | Operator::FloorDiv
            | Operator::Mod
    ) && ((none(left) && number(right)) || (number(left) && none(right)))
}

/// The last two components of a dotted path (`Buffer.dispatch`), to show a call's result.
fn last_two(path: &str) -> &str {
    match path.rmatch_indices('.').nth(1) {
        Some((i, _)) => &path[i + 1..],
        None => path,
    }
}

impl Interp<'_, '_> {
    /// The product of two numbers: every pair of parts, exponents added (`sign` -1 divides).
    /// An application site both parts went through counts once: `weights, ids = kernel(...)`
    /// scales one result, not two, even though both names carry it into the next kernel.
    pub fn product(&self, a: &Num, b: &Num, sign: i32) -> Num {
        let mut parts = Vec::new();
        for pa in &a.parts {
            for pb in &b.parts {
                // Data made of a buffer nothing wrote is still that, whatever numbers multiply
                // it; with other data (an outside kernel handed the empty buffer it writes
                // into beside its inputs), it is that data.
                if (pa.unwritten || !a.tensor) && (pb.unwritten || !b.tensor) && (pa.unwritten || pb.unwritten) {
                    parts.push(if pa.unwritten { pa.clone() } else { pb.clone() });
                    continue;
                }
                // (A scalar's product with an unknown number, `on_number`, scaled no data: a
                // number made there and multiplied by itself carries the factor twice.)
                let shared: i32 = if sign == 1 {
                    pa.sites
                        .iter()
                        .filter(|s| pb.sites.contains(s) && !self.sites[**s as usize].on_number)
                        .map(|s| self.sites[*s as usize].delta)
                        .sum()
                } else {
                    0
                };
                let mut sites = pa.sites.to_vec();
                sites.extend(pb.sites.iter().copied());
                sites.sort();
                sites.dedup();
                let chain = if pb.chain.len() > pa.chain.len() { pb.chain.clone() } else { pa.chain.clone() };
                parts.push(Part {
                    exp: pa.exp + sign * pb.exp - shared,
                    sites: Rc::from(sites),
                    chain,
                    unknown: Part::first_unknown(pa.unknown, pb.unknown),
                    // (A product is also what an outside kernel makes of what it is handed: a
                    // zero bias handed beside the logits does not make its weights zeros.)
                    zero: pa.zero && pb.zero,
                    unwritten: false,
                    // (A shared expert's output weighted by its own gate stays the shared
                    // expert's; combined with other data by a kernel, it is not only that.)
                    shared: pa.shared && pb.shared,
                });
            }
        }
        product_parts(a, b, parts)
    }
}

fn product_parts(a: &Num, b: &Num, mut parts: Vec<Part>) -> Num {
    if parts.len() > 16 {
        parts.sort();
        parts.dedup();
        parts.truncate(16);
    }
    Num { tensor: a.tensor || b.tensor, parts, shape: common_shape(a, b) }.normalize()
}

/// Whether dividing the data `a` by the data `b` normalizes it (`w / w.sum(-1)`): every
/// application `b` carries, `a` went through too. Scaled as a whole, `a` comes out of no scale;
/// scaled part by part, the quotient keeps `a`'s exponents: a part of `w` scaled by `1/v` is
/// still `1/v` relative to the others after renormalizing, and no part is scaled by `v` —
/// pairing `w`'s unscaled part with the sum's `1/v` part would say it is.
fn normalizes(a: &Num, b: &Num) -> bool {
    let applied: Vec<SiteId> = a.parts.iter().flat_map(|p| p.sites.iter().copied()).collect();
    b.parts.iter().any(|p| p.exp != 0)
        && b.parts.iter().all(|p| p.exp == 0 || (!p.sites.is_empty() && p.sites.iter().all(|s| applied.contains(s))))
}

/// A power that is a whole number (`2`, `2.0`, `-1`), as an exponent.
fn whole_power(k: &Constant) -> Option<i32> {
    match k {
        Constant::Int(k) => i32::try_from(*k).ok(),
        Constant::Float(k) if k.fract() == 0.0 && k.abs() <= 64.0 => Some(*k as i32),
        _ => None,
    }
}

/// Whether every part of the data that is not zeros carries the traced value with one
/// exponent: scaled as a whole.
fn uniformly_scaled(n: &Num) -> bool {
    let mut exps = n.parts.iter().filter(|p| !p.zero && !p.unwritten).map(|p| p.exp);
    exps.next().is_some_and(|first| first != 0 && exps.all(|e| e == first))
}

/// The data with its scale taken off: what it was made of is no application any more (what
/// went through an unresolved callee still did).
fn unscaled(n: &Num) -> Num {
    let parts = n
        .parts
        .iter()
        .map(|p| Part { unknown: p.unknown, zero: p.zero, unwritten: p.unwritten, shared: p.shared, ..Part::plain() })
        .collect();
    Num { tensor: true, parts, shape: n.shape }.normalize()
}

/// The sum of two numbers: the parts of both.
pub fn union(a: &Num, b: &Num) -> Num {
    let mut parts = a.parts.clone();
    parts.extend(b.parts.iter().cloned());
    Num { tensor: a.tensor || b.tensor, parts, shape: common_shape(a, b) }.normalize()
}

/// Every alternative a boolean constant or a symbol, and one of them a boolean.
fn flag_operands(left: &G, right: &G) -> bool {
    let flag = |v: &Value| matches!(v, Value::Sym(_) | Value::Const(Constant::Bool(_)));
    let boolean = |v: &Value| matches!(v, Value::Const(Constant::Bool(_)));
    let alternatives = || left.0.iter().chain(right.0.iter()).map(|(_, v)| v);
    alternatives().all(flag) && alternatives().any(boolean)
}

/// Arithmetic on two constants, when Python would give a constant.
fn fold(a: &Constant, op: Operator, b: &Constant) -> Option<Constant> {
    use Operator::*;
    let num = |c: &Constant| match c {
        Constant::Int(i) => Some(*i as f64),
        Constant::Float(x) => Some(*x),
        Constant::Bool(b) => Some(*b as i64 as f64),
        _ => None,
    };
    if let (Constant::Int(x), Constant::Int(y)) = (a, b) {
        return match op {
            Add => x.checked_add(*y).map(Constant::Int),
            Sub => x.checked_sub(*y).map(Constant::Int),
            Mult => x.checked_mul(*y).map(Constant::Int),
            FloorDiv if *y != 0 => Some(Constant::Int(x.div_euclid(*y))),
            Mod if *y != 0 => Some(Constant::Int(x.rem_euclid(*y))),
            Div if *y != 0 => Some(Constant::Float(*x as f64 / *y as f64)),
            BitOr => Some(Constant::Int(x | y)),
            BitAnd => Some(Constant::Int(x & y)),
            BitXor => Some(Constant::Int(x ^ y)),
            _ => None,
        };
    }
    // (`|` and `&` of booleans are decided before, in `binop`, with flags' symbols.)
    if let (Constant::Bool(x), BitXor, Constant::Bool(y)) = (a, op, b) {
        return Some(Constant::Bool(x ^ y));
    }
    if let (Constant::Str(x), Add, Constant::Str(y)) = (a, op, b) {
        return Some(Constant::Str(format!("{x}{y}")));
    }
    let (x, y) = (num(a)?, num(b)?);
    match op {
        Add => Some(Constant::Float(x + y)),
        Sub => Some(Constant::Float(x - y)),
        Mult => Some(Constant::Float(x * y)),
        Div if y != 0.0 => Some(Constant::Float(x / y)),
        _ => None,
    }
}

/// The shape of an elementwise result of `a` and `b`: the tensor's, when the other is a
/// scalar or has the same shape (broadcasting is not followed).
fn common_shape(a: &Num, b: &Num) -> Option<u32> {
    match (a.tensor, b.tensor) {
        (true, false) => a.shape,
        (false, true) => b.shape,
        _ if a.shape == b.shape => a.shape,
        _ => None,
    }
}

/// Whether every alternative of `dtype` is an integer or boolean dtype (`torch.int32`,
/// `torch.long`, `torch.bool`).
fn is_integer_dtype(dtype: &G) -> bool {
    !dtype.is_empty()
        && dtype.iter().all(|(_, v)| match v {
            Value::External(path) => {
                path.starts_with("torch.") && integer_dtype_name(path.rsplit('.').next().unwrap_or(""))
            }
            _ => false,
        })
}

/// Whether a dtype's name (`int32`, `uint8`, `long`, `bool`) is an integer or boolean one.
pub fn integer_dtype_name(name: &str) -> bool {
    name.starts_with("int") || name.starts_with("uint") || matches!(name, "long" | "short" | "bool")
}

/// Whether `name` is a method of `torch.Tensor` (those a traced scalar may be handed without
/// being applied by it, and the ones the evaluator models itself): any other method called on
/// data is not a tensor's.
fn is_tensor_method(name: &str) -> bool {
    const METHODS: &[&str] = &[
        "abs",
        "add",
        "add_",
        "addcdiv",
        "addcdiv_",
        "addcmul",
        "addcmul_",
        "all",
        "amax",
        "amin",
        "any",
        "argmax",
        "argmin",
        "argsort",
        "bernoulli_",
        "bfloat16",
        "bool",
        "byte",
        "cauchy_",
        "ceil",
        "char",
        "chunk",
        "clamp",
        "clamp_",
        "clamp_max",
        "clamp_max_",
        "clamp_min",
        "clamp_min_",
        "clip",
        "clip_",
        "clone",
        "contiguous",
        "copy_",
        "cpu",
        "cuda",
        "cumsum",
        "detach",
        "dim",
        "div",
        "div_",
        "double",
        "element_size",
        "eq",
        "exp",
        "expand",
        "expand_as",
        "exponential_",
        "fill_",
        "flatten",
        "float",
        "float_power",
        "floor",
        "fmod",
        "ge",
        "gather",
        "geometric_",
        "gt",
        "half",
        "index_add",
        "index_add_",
        "index_copy",
        "index_copy_",
        "index_fill",
        "index_fill_",
        "index_put_",
        "index_select",
        "int",
        "is_contiguous",
        "item",
        "kthvalue",
        "le",
        "lerp",
        "lerp_",
        "log",
        "log_normal_",
        "log_softmax",
        "long",
        "lt",
        "masked_fill",
        "masked_fill_",
        "masked_scatter_",
        "max",
        "mean",
        "min",
        "mul",
        "mul_",
        "multiply",
        "multiply_",
        "nan_to_num",
        "nan_to_num_",
        "narrow",
        "ne",
        "neg",
        "new_empty",
        "new_full",
        "new_ones",
        "new_tensor",
        "new_zeros",
        "nonzero",
        "norm",
        "normal_",
        "numel",
        "permute",
        "pow",
        "pow_",
        "quantile",
        "random_",
        "reciprocal",
        "remainder",
        "repeat",
        "repeat_interleave",
        "reshape",
        "round",
        "rsqrt",
        "rsub",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "select",
        "short",
        "sigmoid",
        "sign",
        "size",
        "softmax",
        "sort",
        "split",
        "sqrt",
        "square",
        "squeeze",
        "std",
        "stride",
        "sub",
        "sub_",
        "sum",
        "t",
        "threshold",
        "to",
        "tolist",
        "topk",
        "transpose",
        "true_divide",
        "true_divide_",
        "type",
        "type_as",
        "uniform_",
        "unflatten",
        "unsqueeze",
        "var",
        "view",
        "view_as",
        "where",
        "zero_",
    ];
    METHODS.contains(&name)
}

/// Whether a dotted path names something of Python's standard library (by its top module).
pub(super) fn is_standard_library(path: &str) -> bool {
    const MODULES: &[&str] = &[
        "abc",
        "argparse",
        "array",
        "ast",
        "asyncio",
        "base64",
        "bisect",
        "collections",
        "concurrent",
        "contextlib",
        "copy",
        "csv",
        "ctypes",
        "dataclasses",
        "datetime",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "gc",
        "glob",
        "gzip",
        "hashlib",
        "heapq",
        "importlib",
        "inspect",
        "io",
        "itertools",
        "json",
        "logging",
        "math",
        "multiprocessing",
        "numbers",
        "operator",
        "os",
        "pathlib",
        "pickle",
        "platform",
        "queue",
        "random",
        "re",
        "shutil",
        "signal",
        "socket",
        "string",
        "struct",
        "subprocess",
        "sys",
        "tempfile",
        "textwrap",
        "threading",
        "time",
        "traceback",
        "types",
        "typing",
        "uuid",
        "warnings",
        "weakref",
        "zlib",
    ];
    MODULES.contains(&path.split('.').next().unwrap_or(path))
}

/// A call's text split into the callee and its argument list (the parenthesized part at the
/// end): `get_config()["x"].get(name, 0)` is `get_config()["x"].get` and `(name, 0)`. The
/// whole text and nothing when it does not end with one.
fn split_call_text(text: &str) -> (&str, &str) {
    if !text.ends_with(')') {
        return (text, "");
    }
    let mut depth = 0i32;
    for (i, c) in text.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return (&text[..i], &text[i..]);
                }
            }
            _ => {}
        }
    }
    (text, "")
}

/// A function of torch, called with no data, that answers a question about the process or the
/// device (`torch.get_default_dtype()`, `torch.cuda.device_count()`, `torch.finfo(dtype)`)
/// rather than making a tensor (`torch.empty(n, d)`). Taken for data, a dtype made every call it
/// was handed (`maybe_roundup_sizes(hidden, inter, dtype)`) a computation on data, and the
/// sizes it returned tensors: no size was then equal to the one it was made with.
fn torch_setting(path: &str) -> bool {
    const NAMESPACES: [&str; 14] = [
        "torch.cuda.",
        "torch.xpu.",
        "torch.npu.",
        "torch.mps.",
        "torch.accelerator.",
        "torch.backends.",
        "torch.version.",
        "torch.distributed.",
        "torch.compiler.",
        "torch._dynamo.",
        "torch._inductor.",
        "torch.library.",
        "torch.fx.",
        "torch.utils.",
    ];
    const QUESTIONS: [&str; 6] = ["get_", "set_", "has_", "can_", "are_", "use_"];
    let last = path.rsplit('.').next().unwrap_or(path);
    NAMESPACES.iter().any(|n| path.starts_with(n))
        || QUESTIONS.iter().any(|q| last.starts_with(q))
        || path.split('.').any(|segment| segment.starts_with("is_"))
        || matches!(last, "finfo" | "iinfo" | "device" | "device_count" | "current_device" | "manual_seed" | "seed")
}

#[cfg(test)]
mod tests {
    use super::{split_call_text, torch_setting};

    #[test]
    fn a_call_text_splits_at_its_last_argument_list() {
        assert_eq!(split_call_text("get_config()[\"x\"].get(name, 0)"), ("get_config()[\"x\"].get", "(name, 0)"));
        assert_eq!(split_call_text("os.environ.get(f(a), (1, 2))"), ("os.environ.get", "(f(a), (1, 2))"));
        assert_eq!(split_call_text("envs.X.get()"), ("envs.X.get", "()"));
        assert_eq!(split_call_text("x[0]"), ("x[0]", ""));
    }

    #[test]
    fn torch_settings_are_told_from_tensor_factories() {
        for setting in ["torch.get_default_dtype", "torch.cuda.device_count", "torch.finfo", "torch.is_grad_enabled"] {
            assert!(torch_setting(setting), "{setting}");
        }
        // (`this_op` has `is_` inside a word, not at its start.)
        for factory in ["torch.empty", "torch.zeros", "torch.ops.vllm.this_op"] {
            assert!(!torch_setting(factory), "{factory}");
        }
    }
}
