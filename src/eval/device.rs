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
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    self.bind(target, &assign.value);
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    self.bind(&assign.target, value);
                }
            }
            Stmt::AugAssign(assign) => self.bind(&assign.target, &assign.value),
            Stmt::For(node) => self.bind(&node.target, &node.iter),
            _ => {}
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
            let value = self.eval(frame, test, pc);
            return self.truthy(&value, self.loc(frame.file, test));
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
