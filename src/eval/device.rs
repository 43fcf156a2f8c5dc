//! Device kernels (`@triton.jit`) run as many program instances at once, one per tile of the
//! data. A branch on what differs between instances — the instance's position
//! (`tl.program_id`) or data it loaded (`tl.load`) — is not a configuration: every arm runs,
//! in some instances. `if pid * BLOCK >= n: return` ends the instances past the data; the
//! others store.
//!
//! Such a test is a *per-program* atom ([`AtomKey::PerProgram`]). Inside the kernel it
//! separates what each kind of instance does, like any atom; when the kernel returns, the
//! per-program atoms are quantified away: what the kernel stored into a buffer is what the
//! instances that store wrote (some instance does), and the buffer keeps what it held before
//! only where no instance writes it (every instance leaves it). Without this, every launch
//! made "this instance is past the end" a configuration of the whole model, with the output
//! unscaled in it, and the atom multiplied the conditions of everything after the launch.
//!
//! A kernel is also evaluated *apart* from its caller's conditions. Its arguments arrive with
//! many alternatives, each under a condition of the caller (which quantization, which
//! runner); every operation of the body would combine those conditions. Instead, the feasible
//! combinations of the arguments' alternatives are numbered and a few *selector* atoms stand
//! for them ([`AtomKey::Selector`]): the body combines small cubes, and a second call passing
//! the same values under other conditions is the same call to its summary. When the kernel
//! returns, what it left (stores, sites, raises) is restated in the caller's terms
//! ([`Conds::substitute`](super::cond::Conds::substitute)); until then its sites and raises
//! stay in its session (`Interp::apart`).
//!
//! Which locals vary is found from the kernel's own body (what they are computed from), not
//! from its callers: a per-program value passed to a device helper is not known as one there.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{self as ast, Expr, Stmt};
use rustc_hash::{FxHashMap, FxHashSet};

use super::calls::Args;
use super::cond::{AtomKey, Cond, Selection};
use super::interp::{ArgSlot, Frame, Interp};
use super::value::{G, Loc, SiteId, Value};

/// Combinations of a kernel's arguments the selectors may stand for.
const MAX_COMBINATIONS: usize = 256;

/// Device-language calls whose result differs between program instances.
const PER_PROGRAM_CALLS: &[&str] = &[
    "program_id",
    "num_programs",
    "load",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_cas",
    "atomic_xchg",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "rand",
    "randn",
    "randint",
];

/// What the locals of a kernel are.
#[derive(Debug, Default)]
pub struct KernelLocals {
    /// Locals whose value differs between program instances: computed (transitively) from a
    /// per-program call.
    pub varying: FxHashSet<Name>,
    /// Parameters and locals that may hold a pointer — a parameter, or a pointer plus offsets
    /// (`c_ptrs = c_ptr + stride_cm * offs_token[:, None]`) — with the parameters they point
    /// into.
    pub pointers: FxHashMap<Name, Vec<Name>>,
}

pub fn kernel_locals(def: &ast::StmtFunctionDef) -> Rc<KernelLocals> {
    let mut locals = KernelLocals::default();
    locals.pointers.extend(def.parameters.iter().map(|p| (p.name().id.clone(), vec![p.name().id.clone()])));
    let size = |l: &KernelLocals| (l.varying.len(), l.pointers.values().map(Vec::len).sum::<usize>());
    loop {
        let mut finder = Assignments { locals: &locals, varying: Vec::new(), pointers: Vec::new() };
        for stmt in &def.body {
            finder.visit_stmt(stmt);
        }
        let (varying, pointers) = (finder.varying, finder.pointers);
        let before = size(&locals);
        locals.varying.extend(varying);
        for (name, bases) in pointers {
            let known = locals.pointers.entry(name).or_default();
            known.extend(bases);
            known.sort();
            known.dedup();
        }
        if size(&locals) == before {
            return Rc::new(locals);
        }
    }
}

/// Whether `expr` is a pointer expression: a pointer local, or one plus (minus) offsets.
fn is_pointer(expr: &Expr, pointers: &FxHashMap<Name, Vec<Name>>) -> bool {
    match expr {
        Expr::Name(name) => pointers.contains_key(&name.id),
        Expr::BinOp(op) => match op.op {
            ast::Operator::Add => is_pointer(&op.left, pointers) || is_pointer(&op.right, pointers),
            ast::Operator::Sub => is_pointer(&op.left, pointers),
            _ => false,
        },
        _ => false,
    }
}

/// The parameters a pointer expression points into.
fn pointer_bases(expr: &Expr, pointers: &FxHashMap<Name, Vec<Name>>, out: &mut Vec<Name>) {
    match expr {
        Expr::Name(name) => out.extend(pointers.get(&name.id).into_iter().flatten().cloned()),
        Expr::BinOp(op) if matches!(op.op, ast::Operator::Add | ast::Operator::Sub) => {
            if is_pointer(&op.left, pointers) {
                pointer_bases(&op.left, pointers, out);
            }
            if matches!(op.op, ast::Operator::Add) && is_pointer(&op.right, pointers) {
                pointer_bases(&op.right, pointers, out);
            }
        }
        _ => {}
    }
}

/// The one parameter `pointer` points into, if there is exactly one among those that were
/// handed a tensor (any parameter may be a pointer as far as the syntax says; `BLOCK` in
/// `ptrs += BLOCK` is not one).
pub fn pointer_base(kernel: &KernelLocals, pointer: &Expr, handed: impl Fn(&Name) -> bool) -> Option<Name> {
    let mut bases = Vec::new();
    pointer_bases(pointer, &kernel.pointers, &mut bases);
    bases.retain(|b| handed(b));
    bases.sort();
    bases.dedup();
    match bases.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// Whether `expr` reads a varying local or calls a per-program function.
pub fn mentions_varying(expr: &Expr, varying: &FxHashSet<Name>) -> bool {
    struct Finder<'v> {
        varying: &'v FxHashSet<Name>,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found {
                return;
            }
            match expr {
                Expr::Name(name) if self.varying.contains(&name.id) => self.found = true,
                Expr::Call(call) if is_per_program_call(call) => self.found = true,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut finder = Finder { varying, found: false };
    finder.visit_expr(expr);
    finder.found
}

fn is_per_program_call(call: &ast::ExprCall) -> bool {
    match call.func.as_ref() {
        Expr::Attribute(attr) => PER_PROGRAM_CALLS.contains(&attr.attr.as_str()),
        Expr::Name(name) => PER_PROGRAM_CALLS.contains(&name.id.as_str()),
        _ => false,
    }
}

/// Collects the names assigned from a varying expression, and from a pointer expression.
struct Assignments<'l> {
    locals: &'l KernelLocals,
    varying: Vec<Name>,
    pointers: Vec<(Name, Vec<Name>)>,
}

impl Assignments<'_> {
    fn bind(&mut self, target: &Expr, value: &Expr) {
        let varying = mentions_varying(value, &self.locals.varying);
        let pointer = is_pointer(value, &self.locals.pointers);
        let mut bases = Vec::new();
        if pointer {
            pointer_bases(value, &self.locals.pointers, &mut bases);
        }
        if !varying && !pointer {
            return;
        }
        let mut targets = vec![target];
        while let Some(target) = targets.pop() {
            match target {
                Expr::Name(name) => {
                    if varying && !self.locals.varying.contains(&name.id) {
                        self.varying.push(name.id.clone());
                    }
                    let known = self.locals.pointers.get(&name.id);
                    if pointer && !bases.iter().all(|b| known.is_some_and(|k| k.contains(b))) {
                        self.pointers.push((name.id.clone(), bases.clone()));
                    }
                }
                Expr::Tuple(t) => targets.extend(t.elts.iter()),
                Expr::List(l) => targets.extend(l.elts.iter()),
                Expr::Starred(s) => targets.push(&s.value),
                _ => {}
            }
        }
    }
}

impl<'a> Visitor<'a> for Assignments<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            _ => {
                for (target, value) in assignments(stmt) {
                    self.bind(target, value);
                }
            }
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Named(named) = expr {
            self.bind(&named.target, &named.value);
        }
        walk_expr(self, expr);
    }
}

/// `ptr + offsets` in a device kernel: a tensor handed to a kernel is a pointer, and adding
/// offsets to it (positions, or indices it loaded) addresses the same tensor rather than adding
/// data to it. `existing + acc` (two loaded values) is an addition. `left` and `right` are the
/// operands' values.
pub fn pointer_offset(frame: &Frame, binop: &ast::ExprBinOp, left: &G, right: &G) -> Option<G> {
    let kernel = frame.kernel.as_ref()?;
    let side = match binop.op {
        ast::Operator::Add | ast::Operator::Sub if is_pointer(&binop.left, &kernel.pointers) => left,
        ast::Operator::Add if is_pointer(&binop.right, &kernel.pointers) => right,
        _ => return None,
    };
    let tensor = !side.is_empty() && side.iter().all(|(_, v)| matches!(v, Value::Num(n) if n.tensor));
    tensor.then(|| side.clone())
}

impl Interp<'_, '_> {
    /// `ptrs += BLOCK_K * stride_k`: a pointer moved along, still into the same tensor.
    pub fn advances_pointer(&mut self, frame: &mut Frame, assign: &ast::StmtAugAssign) -> bool {
        let Some(kernel) = frame.kernel.clone() else { return false };
        if !matches!(assign.op, ast::Operator::Add | ast::Operator::Sub)
            || !is_pointer(&assign.target, &kernel.pointers)
        {
            return false;
        }
        let pc = self.conds.truth();
        let value = self.eval(frame, &assign.target, &pc);
        !value.is_empty() && value.iter().all(|(_, v)| matches!(v, Value::Num(n) if n.tensor))
    }

    /// The condition under which a branch test holds. In a device kernel, the parts of it that
    /// differ between program instances are per-program atoms (not evaluated: a test of
    /// loaded data or positions says nothing about the configuration).
    pub fn branch_condition(&mut self, frame: &mut Frame, test: &Expr, pc: &Cond) -> Cond {
        let per_program = frame.kernel.as_ref().is_some_and(|kernel| mentions_varying(test, &kernel.varying));
        if !per_program {
            return self.test_condition(frame, test, pc);
        }
        match test {
            Expr::BoolOp(op) => {
                let and = matches!(op.op, ast::BoolOp::And);
                let mut out = self.conds.constant(and);
                for value in &op.values {
                    let c = self.branch_condition(frame, value, pc);
                    out = if and { out.and(&c) } else { out.or(&c) };
                }
                out
            }
            Expr::UnaryOp(op) if matches!(op.op, ast::UnaryOp::Not) => {
                self.branch_condition(frame, &op.operand, pc).not()
            }
            _ => {
                let loc = self.loc(frame.file, test);
                let text = self.text(loc);
                self.atom(AtomKey::PerProgram(loc), || text)
            }
        }
    }

    /// What a device kernel's call leaves behind, over all its program instances (see the
    /// module documentation): stored values where some instance stores them, the buffer's
    /// earlier contents (`initial`) where every instance leaves it.
    pub fn over_programs(
        &self,
        returns: &mut G,
        alive: &mut Cond,
        written: &mut [(ArgSlot, G)],
        initial: &[(ArgSlot, G)],
    ) {
        let exists = |g: &G| {
            let mut out = G::empty();
            for (c, v) in &g.0 {
                out.push(&self.conds, self.conds.over_programs(c, true), v.clone());
            }
            out
        };
        *returns = exists(returns);
        *alive = self.conds.over_programs(alive, true);
        for (slot, value) in written.iter_mut() {
            let before = initial.iter().find(|(s, _)| s == slot).map(|(_, g)| g);
            let mut out = G::empty();
            for (c, v) in &value.0 {
                let kept = before.is_some_and(|g| g.iter().any(|(_, old)| old.same(v)));
                out.push(&self.conds, self.conds.over_programs(c, !kept), v.clone());
            }
            *value = out;
        }
    }
}

impl Interp<'_, '_> {
    /// Replaces the conditions of a kernel's arguments by selectors (see the module
    /// documentation): the `j`-th feasible combination of the arguments' alternatives is the
    /// `j`-th assignment of a few fresh atoms. The kernel's body then combines small cubes
    /// instead of its callers' conditions, and two calls passing the same values under
    /// different conditions are the same call to its summary. No selection (empty) when every
    /// argument is unconditional or the combinations are too many.
    pub fn select_arguments(&mut self, args: &mut Args) -> Vec<Selection> {
        // The arguments' alternatives are correlated (the same flags decide several of them):
        // the selectors stand for the feasible combinations, so the body explores no more
        // combinations than it would have with the real conditions.
        let mut values: Vec<&mut G> = args
            .positional
            .iter_mut()
            .map(|a| &mut a.value)
            .chain(args.keywords.iter_mut().map(|(_, a)| &mut a.value))
            .collect();
        let conditional: Vec<usize> = (0..values.len())
            .filter(|&i| !(values[i].is_empty() || matches!(values[i].0.as_slice(), [(c, _)] if c.is_true())))
            .collect();
        if conditional.is_empty() {
            return Vec::new();
        }
        // Each combination: its real condition and, per conditional argument, the alternative
        // taken (`None`: no value there).
        let mut combos: Vec<(Cond, Vec<Option<usize>>)> = vec![(Cond::TRUE, Vec::new())];
        for &i in &conditional {
            let coverage = values[i].coverage(&self.conds);
            let mut choices: Vec<(Cond, Option<usize>)> =
                values[i].0.iter().enumerate().map(|(j, (c, _))| (*c, Some(j))).collect();
            if !coverage.is_true() {
                choices.push((coverage.not(), None));
            }
            let mut next = Vec::new();
            for (c, taken) in &combos {
                for (choice, j) in &choices {
                    let both = c.and(choice);
                    if self.conds.feasible(&both) {
                        let mut taken = taken.clone();
                        taken.push(*j);
                        next.push((both, taken));
                    }
                }
            }
            if next.len() > MAX_COMBINATIONS {
                // Too many to stand for: the body sees the real conditions.
                return Vec::new();
            }
            combos = next;
        }
        let depth = self.apart;
        let bits = usize::BITS - (combos.len().max(2) - 1).leading_zeros();
        let atoms: Vec<Cond> = (0..bits)
            .map(|bit| {
                let key = AtomKey::Selector { depth, bit };
                self.conds.atom(key, || format!("(combination of a device kernel's arguments, bit {bit})"))
            })
            .collect();
        let cube = |j: usize| {
            let mut cube = Cond::TRUE;
            for (bit, atom) in atoms.iter().enumerate() {
                cube = cube.and(&if j >> bit & 1 == 1 { *atom } else { atom.not() });
            }
            cube
        };
        let cubes: Vec<Cond> = (0..combos.len()).map(cube).collect();
        for (k, &i) in conditional.iter().enumerate() {
            let mut selected = G::empty();
            for (j, (_, v)) in values[i].0.iter().enumerate() {
                let mut under = self.conds.falsity();
                for (combo, (_, taken)) in combos.iter().enumerate() {
                    if taken[k] == Some(j) {
                        under = under.or(&cubes[combo]);
                    }
                }
                if !under.is_false() {
                    selected.0.push((under, v.clone()));
                }
            }
            *values[i] = selected;
        }
        let selection = Selection {
            choices: combos.iter().zip(&cubes).map(|((real, _), cube)| (*cube, *real)).collect(),
            atoms: atoms.iter().filter_map(|a| self.conds.as_literal(a).map(|(i, _)| i)).collect(),
        };
        vec![selection]
    }

    /// A value of a kernel evaluated apart, in its caller's terms.
    pub fn unselect(&mut self, g: &G, selections: &[Selection]) -> G {
        let mut out = G::empty();
        for (c, v) in &g.0 {
            let real = self.unselect_cond(c, selections);
            out.push(&self.conds, real, v.clone());
        }
        out
    }

    pub fn unselect_cond(&mut self, c: &Cond, selections: &[Selection]) -> Cond {
        let (real, exact) = self.conds.substitute(c, selections);
        if !exact {
            self.bound(None, "a device kernel's conditions were too large to restate in its caller's terms; widened");
        }
        real
    }

    /// The sites and raises of a call (in selector terms when it was evaluated apart), applied
    /// under `pc` in its caller.
    pub fn apply_effects(
        &mut self,
        sites: &[(SiteId, Cond)],
        raises: &[(Cond, Loc)],
        pc: &Cond,
        selections: &[Selection],
    ) {
        for (site, c) in sites {
            let real = self.unselect_cond(c, selections);
            self.replay_site(*site, &real.and(pc));
        }
        for (c, loc) in raises {
            // Widened raises would remove too many configurations: only exact ones count.
            let (real, exact) = self.conds.substitute(c, selections);
            if exact {
                self.raise_under(&real.and(pc), *loc);
            }
        }
    }
}

/// The names a kernel's body reads outside the blocks that the compile-time flags in `flags`
/// turn off (`if MUL_ROUTED_WEIGHT:` with `MUL_ROUTED_WEIGHT=False`; `if not F:` with `F`
/// true; the `else` of one they turn on). A parameter none of the live code reads is not an
/// input of this launch: `topk_weights_ptr`, loaded only under `MUL_ROUTED_WEIGHT`, does not
/// weight the output of a launch that turns it off.
pub fn live_names(def: &ast::StmtFunctionDef, flags: &FxHashMap<Name, bool>) -> FxHashSet<Name> {
    struct Live<'f> {
        flags: &'f FxHashMap<Name, bool>,
        read: FxHashSet<Name>,
    }
    impl<'a> Visitor<'a> for Live<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            let Stmt::If(node) = stmt else {
                walk_stmt(self, stmt);
                return;
            };
            for (test, body) in live_clauses(node, self.flags) {
                if let Some(test) = test {
                    self.visit_expr(test);
                }
                self.visit_body(body);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(name) = expr {
                self.read.insert(name.id.clone());
            }
            walk_expr(self, expr);
        }
    }
    let mut live = Live { flags, read: FxHashSet::default() };
    live.visit_body(&def.body);
    live.read
}

/// The parameters whose data a kernel's stores are computed from, in the code the flags leave
/// live (see [`live_names`]): followed back from the values stored (`tl.store(ptr, value)`,
/// `tl.atomic_add(ptr, value)`) through assignments to the pointers loaded (`tl.load(ptr)`).
/// Data loaded only to address other data (`offs_token = tl.load(sorted_token_ids_ptr + i)`)
/// or to mask it is not among them: indices do not weight what a kernel computes, and neither
/// does what a buffer it only writes held before. `None` when the kernel stores nothing the
/// analysis sees.
pub fn data_params(def: &ast::StmtFunctionDef, flags: &FxHashMap<Name, bool>) -> Option<FxHashSet<Name>> {
    struct Flow<'a, 'f> {
        flags: &'f FxHashMap<Name, bool>,
        defs: FxHashMap<Name, Vec<&'a Expr>>,
        stores: Vec<(&'a Expr, &'a Expr)>,
    }
    impl<'a> Flow<'a, '_> {
        fn bind(&mut self, target: &'a Expr, value: &'a Expr) {
            match target {
                Expr::Name(name) => self.defs.entry(name.id.clone()).or_default().push(value),
                // `a, b = f(...)`: each takes what the whole value is made from.
                Expr::Tuple(t) => t.elts.iter().for_each(|e| self.bind(e, value)),
                Expr::List(l) => l.elts.iter().for_each(|e| self.bind(e, value)),
                _ => {}
            }
        }
    }
    impl<'a> Visitor<'a> for Flow<'a, '_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::If(node) => {
                    for (_, body) in live_clauses(node, self.flags) {
                        self.visit_body(body);
                    }
                    return;
                }
                _ => {
                    for (target, value) in assignments(stmt) {
                        self.bind(target, value);
                    }
                }
            }
            walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr {
                let name = device_call_name(call);
                if matches!(name, Some("store")) || name.is_some_and(|n| n.starts_with("atomic_")) {
                    let value = call.arguments.args.get(1).or_else(|| {
                        call.arguments
                            .keywords
                            .iter()
                            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "value" || a.as_str() == "val"))
                            .map(|k| &k.value)
                    });
                    if let (Some(ptr), Some(value)) = (call.arguments.args.first(), value) {
                        self.stores.push((ptr, value));
                    }
                }
            }
            if let Expr::Named(named) = expr {
                self.bind(&named.target, &named.value);
            }
            walk_expr(self, expr);
        }
    }
    let locals = kernel_locals(def);
    let mut flow = Flow { flags, defs: FxHashMap::default(), stores: Vec::new() };
    flow.visit_body(&def.body);
    if flow.stores.is_empty() {
        return None;
    }
    let params: FxHashSet<Name> = def.parameters.iter().map(|p| p.name().id.clone()).collect();
    let mut data = FxHashSet::default();
    let mut seen: FxHashSet<Name> = FxHashSet::default();
    let mut work: Vec<&Expr> = flow.stores.iter().map(|(_, value)| *value).collect();
    let mut steps = 0;
    while let Some(expr) = work.pop() {
        steps += 1;
        if steps > 10_000 {
            return None;
        }
        match expr {
            Expr::Name(name) => {
                if params.contains(&name.id) {
                    data.insert(name.id.clone());
                }
                if seen.insert(name.id.clone()) {
                    work.extend(flow.defs.get(&name.id).into_iter().flatten().copied());
                }
            }
            Expr::Call(call) if device_call_name(call) == Some("load") => {
                if let Some(ptr) = call.arguments.args.first() {
                    let mut bases = Vec::new();
                    pointer_bases(ptr, &locals.pointers, &mut bases);
                    data.extend(bases);
                }
                // The value lanes the mask turns off get (`other=`).
                if let Some(other) =
                    call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "other"))
                {
                    work.push(&other.value);
                }
            }
            // A descriptor's `desc.load([row, col])`: the coordinates address, the descriptor holds.
            Expr::Call(call) if matches!(call.func.as_ref(), Expr::Attribute(attr) if attr.attr.as_str() == "load") => {
                if let Expr::Attribute(attr) = call.func.as_ref() {
                    work.push(&attr.value);
                }
            }
            Expr::Call(call) if device_call_name(call) == Some("where") => {
                // `tl.where(mask, a, b)`: the mask picks, `a` and `b` are the values.
                work.extend(call.arguments.args.iter().skip(1));
            }
            Expr::Call(call) => {
                if let Expr::Attribute(attr) = call.func.as_ref() {
                    work.push(&attr.value);
                }
                work.extend(call.arguments.args.iter());
                work.extend(call.arguments.keywords.iter().map(|k| &k.value));
            }
            Expr::Attribute(attr) => work.push(&attr.value),
            Expr::Subscript(sub) => work.push(&sub.value),
            Expr::BinOp(op) => {
                work.push(&op.left);
                work.push(&op.right);
            }
            Expr::UnaryOp(op) => work.push(&op.operand),
            Expr::If(node) => {
                work.push(&node.body);
                work.push(&node.orelse);
            }
            Expr::Tuple(t) => work.extend(t.elts.iter()),
            Expr::List(l) => work.extend(l.elts.iter()),
            Expr::Named(named) => work.push(&named.value),
            // Comparisons and boolean tests make masks; literals carry nothing.
            _ => {}
        }
    }
    Some(data)
}

/// The parameters a kernel stores into (`tl.store(c_ptr + offs, acc)`, `tl.atomic_add(...)`),
/// in any branch: the buffers a launch that is not evaluated fills.
pub fn stored_params(def: &ast::StmtFunctionDef) -> FxHashSet<Name> {
    struct Stores<'k> {
        pointers: &'k FxHashMap<Name, Vec<Name>>,
        stored: FxHashSet<Name>,
    }
    impl<'a> Visitor<'a> for Stores<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr {
                let name = device_call_name(call);
                if matches!(name, Some("store")) || name.is_some_and(|n| n.starts_with("atomic_")) {
                    if let Some(ptr) = call.arguments.args.first() {
                        let mut bases = Vec::new();
                        pointer_bases(ptr, self.pointers, &mut bases);
                        self.stored.extend(bases);
                    }
                }
            }
            walk_expr(self, expr);
        }
    }
    let locals = kernel_locals(def);
    let mut stores = Stores { pointers: &locals.pointers, stored: FxHashSet::default() };
    stores.visit_body(&def.body);
    stores.stored
}

/// The device-language function a call names (`tl.load(...)` is `load`), when it is one.
fn device_call_name(call: &ast::ExprCall) -> Option<&str> {
    match call.func.as_ref() {
        Expr::Attribute(attr) if matches!(attr.value.as_ref(), Expr::Name(n) if n.id.as_str() == "tl") => {
            Some(attr.attr.as_str())
        }
        _ => None,
    }
}

/// The clauses of an `if` that can run in a launch with these compile-time flags, each with
/// the test still to evaluate (`None` when the flags decide it): a clause the flags turn off is
/// left out, and one they turn on ends the chain.
fn live_clauses<'a>(node: &'a ast::StmtIf, flags: &FxHashMap<Name, bool>) -> Vec<(Option<&'a Expr>, &'a [Stmt])> {
    fn decided(test: &Expr, flags: &FxHashMap<Name, bool>) -> Option<bool> {
        match test {
            Expr::Name(name) => flags.get(&name.id).copied(),
            Expr::UnaryOp(op) if matches!(op.op, ast::UnaryOp::Not) => decided(&op.operand, flags).map(|b| !b),
            _ => None,
        }
    }
    let clauses = std::iter::once((Some(&*node.test), &node.body))
        .chain(node.elif_else_clauses.iter().map(|c| (c.test.as_ref(), &c.body)));
    let mut live = Vec::new();
    for (test, body) in clauses {
        match test.map(|t| (t, decided(t, flags))) {
            Some((_, Some(false))) => {}
            Some((_, Some(true))) | None => {
                live.push((None, body.as_slice()));
                break;
            }
            Some((test, None)) => live.push((Some(test), body.as_slice())),
        }
    }
    live
}

/// What a statement assigns: (target, value) pairs (`x += e` and `for x in e` read `e` into `x`).
fn assignments(stmt: &Stmt) -> Vec<(&Expr, &Expr)> {
    match stmt {
        Stmt::Assign(assign) => assign.targets.iter().map(|t| (t, &*assign.value)).collect(),
        Stmt::AnnAssign(assign) => assign.value.iter().map(|v| (&*assign.target, &**v)).collect(),
        Stmt::AugAssign(assign) => vec![(&*assign.target, &*assign.value)],
        Stmt::For(node) => vec![(&*node.target, &*node.iter)],
        _ => Vec::new(),
    }
}
