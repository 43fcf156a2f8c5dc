//! Registries filled at import time: `@register_combine("triton", "standard")` above a function
//! stores it in a dict (`CombinePool._combine_methods[key] = func`) that the forward path later
//! reads with a key known only at run time. Python fills the dict when the decorated modules are
//! imported; the evaluator fills it when the dict is first made, by applying every decorator of
//! the tree that (directly or through the function it calls) stores into a dict of that name.
//! Each registered key then becomes one configuration of the lookup (see `dict_lookup`).
//! Registrations written as calls at module level count the same way:
//! `register_pre_permute("deepep_normal", "aiter")(func)` and `Pool.register("key", func)`.
//!
//! This over-approximates Python: a module that registers but is never imported still counts.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use rustc_hash::FxHashSet;

use super::calls::{Arg, Args};
use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::value::*;
use crate::index::{FileId, FuncId};

/// Decorators applied to fill one registry, at most (a bound, reported when hit).
const MAX_REGISTRATIONS: usize = 256;

impl Interp<'_, '_> {
    /// `value` was just computed for the global or class attribute `name`: when it is an empty
    /// dict, apply the decorators that register into a dict of that name.
    pub fn fill_registry(&mut self, name: &str, value: &G, loc: Loc) {
        let Some(Value::Obj(id)) = value.single() else { return };
        if !matches!(&self.heap[*id as usize].kind, ObjKind::Dict(entries) if entries.is_empty()) {
            return;
        }
        if !self.registries_filled.insert(name.to_string()) {
            return;
        }
        let writers = self.functions_storing_into(name);
        if writers.is_empty() {
            return;
        }
        // What decorators register is what the evaluation could apply: a key it missed is not
        // a `KeyError` (see `Interp::exact_dicts`).
        self.exact_dicts.remove(id);
        let mut registering: FxHashSet<String> =
            writers.iter().map(|f| self.index.function(*f).name.to_string()).collect();
        let callers = self.functions_calling(&registering);
        registering.extend(callers.iter().map(|f| self.index.function(*f).name.to_string()));
        let applications = self.decorations_by(&registering);
        let calls = self.module_calls_of(&registering);
        let applications_len = applications.len();
        if applications_len + calls.len() > MAX_REGISTRATIONS {
            self.bound(
                Some(loc),
                format!(
                    "more than {MAX_REGISTRATIONS} decorators and calls register into `{name}`; the rest are not applied"
                ),
            );
        }
        // Import time: unconditional, shared objects, no raise constrains the trace.
        let saved = (self.base, self.heap_mark);
        self.base = Cond::TRUE;
        self.heap_mark = self.heap.len() as HeapId;
        self.registering += 1;
        self.raises_muted += 1;
        self.sharing += 1;
        for (file, decorator, target) in applications.into_iter().take(MAX_REGISTRATIONS) {
            self.apply_decorator(file, &decorator, target);
        }
        for (file, call) in calls.into_iter().take(MAX_REGISTRATIONS.saturating_sub(applications_len)) {
            let mut frame = self.frame(None, file);
            self.eval(&mut frame, &call, &Cond::TRUE);
        }
        self.sharing -= 1;
        self.raises_muted -= 1;
        self.registering -= 1;
        (self.base, self.heap_mark) = saved;
    }

    /// `@decorator` (or `@factory(args)`) applied to `target` in `file`'s module scope.
    fn apply_decorator(&mut self, file: FileId, decorator: &Expr, target: Value) {
        let mut frame = self.frame(None, file);
        let pc = Cond::TRUE;
        let loc = self.loc(file, decorator);
        let made = self.eval(&mut frame, decorator, &pc);
        let args = Args { positional: vec![Arg { value: G::under(pc, target), loc: None }], ..Args::default() };
        self.call(&made, args, &pc, loc);
    }

    /// Functions of the tree with a `…name[key] = value` statement in their body.
    fn functions_storing_into(&self, name: &str) -> Vec<FuncId> {
        let needle = format!("{name}[");
        let mut out = Vec::new();
        for (file, entry) in self.index.files.iter_enumerated() {
            if !entry.text.contains(&needle) {
                continue;
            }
            let mut finder = StoreFinder { name, found: Vec::new() };
            finder.visit_body(&entry.ast().body);
            out.extend(self.enclosing_functions(file, &finder.found));
        }
        out
    }

    /// Functions of the tree that call a function named in `names`.
    fn functions_calling(&self, names: &FxHashSet<String>) -> Vec<FuncId> {
        let mut out = Vec::new();
        for (file, entry) in self.index.files.iter_enumerated() {
            if !names.iter().any(|n| entry.text.contains(&format!("{n}("))) {
                continue;
            }
            let mut finder = CallFinder { names, found: Vec::new() };
            finder.visit_body(&entry.ast().body);
            out.extend(self.enclosing_functions(file, &finder.found));
        }
        out
    }

    /// The functions (outer and nested) of `file` whose `def` contains one of `offsets`.
    fn enclosing_functions(&self, file: FileId, offsets: &[ruff_text_size::TextSize]) -> Vec<FuncId> {
        let functions = &self.index.file(file).facts.functions;
        let mut out = Vec::new();
        for (local, facts) in functions.iter().enumerate() {
            if offsets.iter().any(|o| facts.range.start <= o.to_u32() && o.to_u32() < facts.range.end) {
                out.push(FuncId { file, local: local as u32 });
            }
        }
        out
    }

    /// The calls made at import time, in module code (not in a function or class body; within
    /// `if`, `try`, `with` and loop blocks), of a function named (last segment) in `names`,
    /// directly (`Pool.register("key", func)`) or through the function it returns
    /// (`register("key")(func)`), as the index recorded them.
    fn module_calls_of(&self, names: &FxHashSet<String>) -> Vec<(FileId, Expr)> {
        let mut out = Vec::new();
        for (file, entry) in self.index.files.iter_enumerated() {
            let mut calls = entry.facts.module_calls.iter().filter(|c| names.contains(c.callee.as_str())).peekable();
            if calls.peek().is_none() {
                continue;
            }
            let module = entry.ast();
            for call in calls {
                if let Some(Stmt::Expr(stmt)) = crate::syntax::stmt_with_range(&module.body, call.range) {
                    out.push((file, (*stmt.value).clone()));
                }
            }
        }
        out
    }

    /// Every decorator of the tree named (last segment) in `names`, with what it decorates.
    fn decorations_by(&self, names: &FxHashSet<String>) -> Vec<(FileId, Expr, Value)> {
        let named = |d: &Expr| {
            let callee = match d {
                Expr::Call(call) => call.func.as_ref(),
                other => other,
            };
            let last = match callee {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.as_str(),
                _ => return false,
            };
            names.contains(last)
        };
        let mut out = Vec::new();
        for func in self.index.all_functions() {
            for d in self.index.function(func).decorators.iter().filter(|d| named(d)) {
                out.push((func.file, d.clone(), Value::Func(func)));
            }
        }
        for class in self.index.all_classes() {
            for d in self.index.class(class).decorators.iter().filter(|d| named(d)) {
                out.push((class.file, d.clone(), Value::Class(class)));
            }
        }
        out
    }
}

/// Finds `x[key] = value` / `x.name[key] = value` where the dict is called `name`.
struct StoreFinder<'n> {
    name: &'n str,
    found: Vec<ruff_text_size::TextSize>,
}

impl<'a> Visitor<'a> for StoreFinder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assign(assign) = stmt {
            for target in &assign.targets {
                if let Expr::Subscript(sub) = target {
                    let named = match sub.value.as_ref() {
                        Expr::Name(n) => n.id.as_str() == self.name,
                        Expr::Attribute(a) => a.attr.as_str() == self.name,
                        _ => false,
                    };
                    if named {
                        self.found.push(ruff_text_size::Ranged::range(stmt).start());
                    }
                }
            }
        }
        visitor::walk_stmt(self, stmt);
    }
}

/// Finds calls of a function named (last segment) in `names`.
struct CallFinder<'n> {
    names: &'n FxHashSet<String>,
    found: Vec<ruff_text_size::TextSize>,
}

impl<'a> Visitor<'a> for CallFinder<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(ast::ExprCall { func, .. }) = expr {
            let last = match func.as_ref() {
                Expr::Name(n) => Some(n.id.as_str()),
                Expr::Attribute(a) => Some(a.attr.as_str()),
                _ => None,
            };
            if last.is_some_and(|l| self.names.contains(l)) {
                self.found.push(ruff_text_size::Ranged::range(expr).start());
            }
        }
        visitor::walk_expr(self, expr);
    }
}
