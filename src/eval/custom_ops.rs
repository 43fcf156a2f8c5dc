//! Operators the tree registers with PyTorch and then calls by name. vLLM runs every MoE layer
//! as `torch.ops.vllm.moe_forward(...)` after
//! `direct_register_custom_op(op_name="moe_forward", op_func=_moe_forward)`; others use
//! `@torch.library.custom_op("ns::name")`. Such a call is code of the tree, not an outside
//! kernel: treating it as one would pass the data through unchanged and hide whatever the
//! registered function applies (vLLM's router scales the top-k weights in there). The call
//! evaluates the registered function instead.
//!
//! vLLM hands the calling layer to the operator by name (`self.layer_name`), and the operator
//! looks it up at run time (`get_forward_context().no_compile_layers[name]`). The lookup is not
//! something the evaluator can follow, so in the operator's own body a method called on an object
//! it cannot pin down is taken to be the calling object's method, when that object has it; the
//! trace says so among what it could not resolve. When the calling object does not have it but
//! one object of the tree holds the calling object under that name (`layer.runner._forward_impl`
//! called from the runner that `layer` built as `self.runner`), the looked-up object is taken
//! to be that holder, for every later use of it (`layer.routed_scaling_factor` in a method the
//! operator hands `layer` to), and the trace says so too.
//!
//! SGLang's piecewise-CUDA-graph MoE operator is decorated (`@register_custom_op(...)`), called
//! by name with the layer's index, and looks the layer up by it
//! (`get_tc_piecewise_forward_context().moe_layers[layer_id]`): called from a module's method,
//! it runs the same way, with that module as the caller (`looks_up_its_module`).
//!
//! Registrations are found by text (a string literal naming the operator), then by syntax: a
//! call with that literal and a function of the tree (`op_func=`, `func=`, or the first function
//! among the positional arguments), or a decorator call with that literal above a `def`. Fake
//! (meta) implementations are not the operator. An operator registered to two different
//! functions is left an outside call: which one runs is not known.

use ruff_python_ast::visitor::{self, Visitor};
use std::rc::Rc;

use ruff_python_ast::{self as ast, Expr};

use super::cond::Cond;
use super::interp::{Frame, Interp, ObjKind};
use super::value::*;
use crate::index::{FileId, FuncId};
use crate::resolve::{Ctx, Def};

/// Keyword arguments that name the operator's implementation.
const IMPLEMENTATION_KEYWORDS: [&str; 4] = ["op_func", "func", "fn", "impl_func"];

/// How deep the search for an operator's lookup goes into the plain functions it calls.
const MAX_LOOKUP_HELPER_DEPTH: usize = 3;

impl Interp<'_, '_> {
    /// The function of the tree registered as the operator `path` (`torch.ops.NS.NAME`, or
    /// `torch.ops.NS.NAME.default`), when there is exactly one.
    pub fn custom_op(&mut self, path: &str) -> Option<FuncId> {
        let rest = path.strip_prefix("torch.ops.")?;
        let rest = rest.strip_suffix(".default").unwrap_or(rest);
        let (namespace, name) = rest.split_once('.')?;
        if name.contains('.') {
            return None;
        }
        if let Some(known) = self.custom_ops.get(rest) {
            return *known;
        }
        let found = self.find_custom_op(namespace, name);
        self.custom_ops.insert(rest.to_string(), found);
        found
    }

    /// The object (`self` of the calling frame) that hands itself over to a call of an
    /// operator of the tree.
    pub fn operator_caller(&mut self, frame: &Frame, callee: &G) -> Option<Value> {
        // Every call of the evaluation passes here: only `torch.ops.*` callees are looked up.
        let operators: Vec<Rc<str>> = callee
            .iter()
            .filter_map(|(_, v)| match v {
                Value::External(path) if path.starts_with("torch.ops.") => Some(path.clone()),
                _ => None,
            })
            .collect();
        let called_by_name = callee.iter().any(|(_, v)| matches!(v, Value::Func(f) if self.looks_up_its_module(*f)));
        if !called_by_name && !operators.iter().any(|path| self.custom_op(path).is_some()) {
            return None;
        }
        match frame.locals.get("self")?.single()? {
            caller @ Value::Obj(_) => Some(caller.clone()),
            _ => None,
        }
    }

    /// Whether `func` is an operator the tree registers (`@register_custom_op(...)`) whose body
    /// runs a module it looks up by key: called by name from a module's method, it runs that
    /// module (SGLang's piecewise-CUDA-graph MoE operator, handed `self.layer_id`).
    pub fn looks_up_its_module(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.module_operators.get(&func) {
            return known;
        }
        let found =
            self.index.function(func).decorators.iter().any(names_custom_op) && self.runs_looked_up_object(func);
        self.module_operators.insert(func, found);
        found
    }

    /// Whether `func`'s body calls a method of something it looked up by key
    /// (`layer = context.moe_layers[layer_id]; layer.forward_impl(...)`, or directly), or a
    /// plain function it calls does (an operator whose body is `return _run(x, layer_id)`):
    /// such a helper runs as part of the operator, for the same caller.
    pub fn runs_looked_up_object(&mut self, func: FuncId) -> bool {
        self.runs_looked_up_object_within(func, 0)
    }

    fn runs_looked_up_object_within(&mut self, func: FuncId, depth: usize) -> bool {
        if let Some(&known) = self.lookup_runners.get(&func) {
            return known;
        }
        // Marked first: a cycle of calls ends here.
        self.lookup_runners.insert(func, false);
        let found = self.calls_method_of_looked_up(func)
            || depth < MAX_LOOKUP_HELPER_DEPTH
                && self.static_callees(func).iter().any(|&callee| {
                    self.index.function(callee).class().is_none()
                        && self.runs_looked_up_object_within(callee, depth + 1)
                });
        if found || depth == 0 {
            self.lookup_runners.insert(func, found);
        } else {
            // A "no" found below the top depends on the depth left: not kept.
            self.lookup_runners.remove(&func);
        }
        found
    }

    fn calls_method_of_looked_up(&self, func: FuncId) -> bool {
        let module = self.index.file(func.file).ast();
        let range = self.index.function(func).range;
        let Some(ast::Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, range) else {
            return false;
        };
        let mut finder = LookedUpCall::default();
        for stmt in &def.body {
            finder.visit_stmt(stmt);
        }
        finder.found
    }

    /// The calling object of the operator now running, when the frame now running is the
    /// operator's own body or a plain function through which it reaches its lookup (see
    /// [`Interp::runs_looked_up_object`]): the frames from the operator's on.
    pub fn operator_frame_caller(&mut self) -> Option<Value> {
        let (depth, caller) = self.operator_callers.last()?.clone();
        if depth == 0 || self.stack.len() < depth {
            return None;
        }
        let helpers: Vec<FuncId> = self.stack[depth..].to_vec();
        for helper in helpers {
            if self.index.function(helper).class().is_some() || !self.runs_looked_up_object(helper) {
                return None;
            }
        }
        Some(caller)
    }

    /// `attr` of an object the operator's own body cannot pin down (`sym`), as the calling
    /// object's method (see the module documentation).
    pub fn operator_caller_method(&mut self, sym: SymId, attr: &str, pc: &Cond, loc: Loc) -> Option<G> {
        let caller = self.operator_frame_caller()?;
        let Value::Obj(id) = caller else { return None };
        let ObjKind::Instance(class) = self.heap[id as usize].kind else { return None };
        let Some((_, g)) = self.class_attr(class, attr, loc) else {
            return self.caller_holder_attr(sym, id, attr, pc, loc);
        };
        let g = self.map(&g, |this, v| this.bind_class_attr(v, caller.clone(), false));
        if !g.iter().all(|(_, v)| matches!(v, Value::Bound(..))) {
            return None;
        }
        let what = format!(
            "assumed: `{}` is the {} that called the operator, handed over by name",
            self.syms[sym as usize].label(),
            self.index.class(class).name
        );
        self.blocker(loc, what, pc);
        Some(g.restrict(&self.conds, pc))
    }

    /// `attr` of the object the operator looked up (`sym`), when exactly one object of the tree
    /// holds the calling object `caller` as its attribute `attr`: the looked-up object is that
    /// holder from now on.
    fn caller_holder_attr(&mut self, sym: SymId, caller: HeapId, attr: &str, pc: &Cond, loc: Loc) -> Option<G> {
        let holders: Vec<HeapId> = (0..self.heap.len() as HeapId)
            .filter(|&id| {
                let object = &self.heap[id as usize];
                matches!(object.kind, ObjKind::Instance(_))
                    && object
                        .fields
                        .get(attr)
                        .is_some_and(|g| g.iter().any(|(_, v)| matches!(v, Value::Obj(c) if *c == caller)))
            })
            .collect();
        let [holder] = holders.as_slice() else { return None };
        let ObjKind::Instance(holder_class) = self.heap[*holder as usize].kind else { return None };
        let ObjKind::Instance(caller_class) = self.heap[caller as usize].kind else { return None };
        let what = format!(
            "assumed: `{}` is the {} that holds the {} that called the operator as `.{attr}`, handed over by name",
            self.syms[sym as usize].label(),
            self.index.class(holder_class).name,
            self.index.class(caller_class).name,
        );
        self.blocker(loc, what, pc);
        self.looked_up.insert((sym, caller), Value::Obj(*holder));
        Some(self.getattr(&Value::Obj(*holder), attr, pc, loc))
    }

    /// The object `value` was pinned to, when it is an object the operator now running looked
    /// up (the same lookup from another caller is another object).
    pub fn looked_up_object(&self, value: &Value) -> Option<Value> {
        let Value::Sym(sym) = value else { return None };
        let (_, Value::Obj(caller)) = self.operator_callers.last()? else { return None };
        self.looked_up.get(&(*sym, *caller)).cloned()
    }

    fn find_custom_op(&self, namespace: &str, name: &str) -> Option<FuncId> {
        let qualified = format!("{namespace}::{name}");
        let needles = [format!("\"{name}\""), format!("'{name}'"), format!("{qualified}\""), format!("{qualified}'")];
        let mut found: Vec<FuncId> = Vec::new();
        for (file, entry) in self.index.files.iter_enumerated() {
            if !needles.iter().any(|n| entry.text.contains(n.as_str())) {
                continue;
            }
            let mut finder =
                RegistrationFinder { name, qualified: &qualified, calls: Vec::new(), decorated: Vec::new() };
            finder.visit_body(&entry.ast().body);
            for implementation in &finder.calls {
                found.extend(self.function_named_by(file, implementation));
            }
            for def_range in &finder.decorated {
                let functions = &self.index.file(file).facts.functions;
                if let Some(local) = functions.iter().position(|f| f.range == *def_range) {
                    found.push(FuncId { file, local: local as u32 });
                }
            }
        }
        found.sort();
        found.dedup();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    fn function_named_by(&self, file: FileId, expr: &Expr) -> Option<FuncId> {
        self.resolver.resolve(&Ctx::module(file), expr).iter().find_map(|f| match f.def {
            Def::Function(func) => Some(func),
            _ => None,
        })
    }
}

/// Finds registrations of one operator in a module.
struct RegistrationFinder<'a> {
    name: &'a str,
    qualified: &'a str,
    /// The implementation argument of each registering call.
    calls: Vec<Expr>,
    /// The ranges of `def`s decorated as the operator.
    decorated: Vec<crate::syntax::Span>,
}

impl RegistrationFinder<'_> {
    fn names_operator(&self, expr: &Expr) -> bool {
        match expr {
            Expr::StringLiteral(s) => {
                let text = s.value.to_str();
                text == self.name || text == self.qualified
            }
            _ => false,
        }
    }

    fn registers(&self, call: &ast::ExprCall) -> bool {
        call.arguments.args.iter().any(|a| self.names_operator(a))
            || call.arguments.keywords.iter().any(|k| self.names_operator(&k.value))
    }
}

/// Whether a decorator registers the function as an operator (`@custom_op("ns::f")`,
/// `@torch.library.custom_op(...)`, a tree's own `@register_custom_op(...)`).
pub fn names_custom_op(decorator: &Expr) -> bool {
    crate::syntax::decorator_name(decorator).is_some_and(|n| {
        let last = n.rsplit('.').next().unwrap_or(&n);
        last.contains("custom_op") && !last.contains("fake")
    })
}

/// Whether a callee registers a fake (meta) implementation rather than the operator.
fn is_fake_registration(call: &ast::ExprCall) -> bool {
    crate::syntax::dotted_name(&call.func).is_some_and(|n| n.contains("fake") || n.contains("abstract"))
}

impl<'a> Visitor<'a> for RegistrationFinder<'_> {
    fn visit_stmt(&mut self, stmt: &'a ast::Stmt) {
        if let ast::Stmt::FunctionDef(def) = stmt {
            let registered = def.decorator_list.iter().any(
                |d| matches!(&d.expression, Expr::Call(call) if self.registers(call) && !is_fake_registration(call)),
            );
            if registered {
                self.decorated.push(crate::syntax::Span::from(def.range));
            }
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && self.registers(call)
            && !is_fake_registration(call)
        {
            let by_keyword = call.arguments.keywords.iter().find_map(|k| {
                k.arg.as_ref().filter(|a| IMPLEMENTATION_KEYWORDS.contains(&a.as_str())).map(|_| k.value.clone())
            });
            let by_position =
                || call.arguments.args.iter().find(|a| matches!(a, Expr::Name(_) | Expr::Attribute(_))).cloned();
            if let Some(implementation) = by_keyword.or_else(by_position) {
                self.calls.push(implementation);
            }
        }
        visitor::walk_expr(self, expr);
    }
}

/// Finds a method called on a value looked up by key (see `Interp::runs_looked_up_object`);
/// flow-insensitive over the names bound to lookups.
#[derive(Default)]
struct LookedUpCall {
    looked_up: Vec<ruff_python_ast::name::Name>,
    found: bool,
}

impl<'a> Visitor<'a> for LookedUpCall {
    fn visit_stmt(&mut self, stmt: &'a ast::Stmt) {
        if let ast::Stmt::Assign(assign) = stmt
            && matches!(assign.value.as_ref(), Expr::Subscript(_))
        {
            for target in &assign.targets {
                if let Expr::Name(name) = target {
                    self.looked_up.push(name.id.clone());
                }
            }
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && let Expr::Attribute(attr) = call.func.as_ref()
        {
            match attr.value.as_ref() {
                Expr::Subscript(_) => self.found = true,
                Expr::Name(name) if self.looked_up.contains(&name.id) => self.found = true,
                _ => {}
            }
        }
        visitor::walk_expr(self, expr);
    }
}
