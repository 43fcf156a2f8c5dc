//! Expressions: what a name, attribute, call or conditional expression denotes, through local
//! scopes, aliases, factories (functions that return classes), `self` attributes and
//! properties.

use crate::syntax::Span;
use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::locals::LocalKind;
use super::{Cond, Def, Found, Hop, HopKind, MAX_ALTERNATIVES, MAX_DEPTH, MAX_STEPS, Resolver};
use crate::index::{AttrWrite, ClassId, FileId, FuncId, FunctionKind, Guard, GuardKind, Parent};
use crate::syntax::{constant, stmt_with_range};

/// Where an expression is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ctx {
    pub file: FileId,
    /// The innermost function whose body holds the expression.
    pub function: Option<FuncId>,
    /// The class whose body holds the expression, for class-level code outside methods.
    pub class: Option<ClassId>,
}

impl Ctx {
    pub fn module(file: FileId) -> Self {
        Ctx { file, function: None, class: None }
    }

    pub fn function(func: FuncId) -> Self {
        Ctx { file: func.file, function: Some(func), class: None }
    }
}

/// Bookkeeping of one resolution: what is being followed, so cycles end.
#[derive(Default)]
pub struct Walk {
    pub names: Vec<(FileId, Name)>,
    pub factories: Vec<FuncId>,
    pub attributes: Vec<(ClassId, Name)>,
    pub depth: usize,
    /// Bumped whenever a cycle or bound cut resolution short: what was computed meanwhile is
    /// partial and must not be memoised.
    pub cut: usize,
    /// Expressions evaluated so far by this resolution (bounded by [`MAX_STEPS`]).
    pub steps: usize,
}

fn cond(file: FileId, range: Span, kind: GuardKind) -> Cond {
    Cond { file, guard: Guard { range: range.into(), kind } }
}

fn with_prefix(mut found: Vec<Found>, hops: &[Hop], conds: &[Cond]) -> Vec<Found> {
    // (In place: most prefixes are empty, and resolution runs for every call the static
    // searches of the evaluator walk through.)
    for f in &mut found {
        if !hops.is_empty() {
            f.hops.splice(0..0, hops.iter().cloned());
        }
        if !conds.is_empty() {
            f.conds.splice(0..0, conds.iter().cloned());
        }
    }
    found
}

fn finish(mut found: Vec<Found>) -> Vec<Found> {
    found.sort();
    found.dedup();
    if found.len() > MAX_ALTERNATIVES {
        found.truncate(MAX_ALTERNATIVES);
        found.push(Found::unresolved(format!("more than {MAX_ALTERNATIVES} alternatives; the rest are not listed")));
    }
    found
}

impl Resolver<'_> {
    /// Everything `expr`, evaluated in `ctx`, may denote.
    pub fn resolve(&self, ctx: &Ctx, expr: &Expr) -> Vec<Found> {
        finish(self.expr(ctx, expr, &mut Walk::default()))
    }

    /// Used by module- and class-level bindings, which keep their value as syntax.
    pub(super) fn resolve_value(&self, ctx: &Ctx, expr: &Expr, walk: &mut Walk) -> Vec<Found> {
        self.expr(ctx, expr, walk)
    }

    pub(crate) fn expr(&self, ctx: &Ctx, expr: &Expr, walk: &mut Walk) -> Vec<Found> {
        if walk.depth > MAX_DEPTH {
            walk.cut += 1;
            return vec![Found::unresolved(format!("resolution deeper than {MAX_DEPTH} steps"))];
        }
        if walk.steps >= MAX_STEPS {
            walk.cut += 1;
            return vec![Found::unresolved(format!("resolution took more than {MAX_STEPS} steps"))];
        }
        walk.steps += 1;
        walk.depth += 1;
        let found = self.expr_inner(ctx, expr, walk);
        walk.depth -= 1;
        finish(found)
    }

    fn expr_inner(&self, ctx: &Ctx, expr: &Expr, walk: &mut Walk) -> Vec<Found> {
        if let Some(value) = constant(expr) {
            return vec![Found::new(Def::Constant(value))];
        }
        match expr {
            Expr::Name(name) => self.name(ctx, &name.id, walk),
            Expr::Attribute(attr) => {
                if attr.attr.as_str() == "__class__" {
                    return self
                        .expr(ctx, &attr.value, walk)
                        .into_iter()
                        .map(|f| own_class(f, ctx.file, attr.range.into()))
                        .collect();
                }
                let mut out = Vec::new();
                for base in self.expr(ctx, &attr.value, walk) {
                    let members = self.member(&base.def, attr.attr.as_str(), walk);
                    out.extend(with_prefix(members, &base.hops, &base.conds));
                }
                out
            }
            Expr::Call(call) => self.call_result(ctx, call, walk),
            // A union of classes (`KindLike = Kind | RegisteredKind`, a type alias): each of
            // them, as `isinstance` and annotations take it. Anything else `|` makes is not
            // followed.
            Expr::BinOp(binop) if matches!(binop.op, ast::Operator::BitOr) => {
                let mut out = self.expr(ctx, &binop.left, walk);
                out.extend(self.expr(ctx, &binop.right, walk));
                let classes = out.iter().all(|f| {
                    matches!(f.def, Def::Class(_) | Def::External(_) | Def::Constant(crate::syntax::Constant::None))
                });
                if classes && out.iter().any(|f| matches!(f.def, Def::Class(_))) { out } else { Vec::new() }
            }
            Expr::If(ifexp) => {
                let test = ifexp.test.range();
                let hop = |e: &Expr| Hop { file: ctx.file, range: e.range().into(), kind: HopKind::Branch };
                let mut out = with_prefix(
                    self.expr(ctx, &ifexp.body, walk),
                    &[hop(&ifexp.body)],
                    &[cond(ctx.file, test.into(), GuardKind::IfTrue)],
                );
                out.extend(with_prefix(
                    self.expr(ctx, &ifexp.orelse, walk),
                    &[hop(&ifexp.orelse)],
                    &[cond(ctx.file, test.into(), GuardKind::IfFalse)],
                ));
                out
            }
            Expr::BoolOp(boolop) => {
                // `a or b` is either operand; `a and b` is the last one when it matters.
                let values: Vec<&Expr> = match boolop.op {
                    ast::BoolOp::Or => boolop.values.iter().collect(),
                    ast::BoolOp::And => boolop.values.last().into_iter().collect(),
                };
                let mut out = Vec::new();
                for value in values {
                    let hop = Hop { file: ctx.file, range: value.range().into(), kind: HopKind::Branch };
                    out.extend(with_prefix(self.expr(ctx, value, walk), &[hop], &[]));
                }
                out
            }
            Expr::Named(named) => self.expr(ctx, &named.value, walk),
            _ => vec![Found::unresolved(format!(
                "value of `{}` is computed",
                crate::syntax::snippet(&self.index.file(ctx.file).text, expr.range())
            ))],
        }
    }

    /// A bare name, by Python's scope rules: enclosing function scopes (skipping class bodies),
    /// then the class body for class-level code, then the module, then builtins.
    fn name(&self, ctx: &Ctx, name: &str, walk: &mut Walk) -> Vec<Found> {
        let mut function = ctx.function;
        while let Some(func) = function {
            let scope = self.local_scope(func);
            if scope.is_local(name) {
                return self.local_name(func, name, walk);
            }
            function = self.enclosing_function(func);
        }
        self.nonlocal_name(ctx, name, walk)
    }

    /// A name local to `func`: every binding of it in the body, each under its guards.
    /// Memoised per (function, name).
    fn local_name(&self, func: FuncId, name: &str, walk: &mut Walk) -> Vec<Found> {
        let key = (func, Name::new(name));
        if let Some(found) = self.local_names_memo.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return found.to_vec();
        }
        let cut_before = walk.cut;
        let scope = self.local_scope(func);
        let mut out = Vec::new();
        for binding in &scope.bindings[name] {
            let conds: Vec<Cond> = binding.guards.iter().map(|&guard| Cond { file: func.file, guard }).collect();
            let hop = |kind| Hop { file: func.file, range: binding.stmt, kind };
            let found = match &binding.kind {
                LocalKind::Param => self.param(func, name, walk),
                LocalKind::Value(value) => {
                    with_prefix(self.expr(&Ctx::function(func), value, walk), &[hop(HopKind::Alias)], &[])
                }
                LocalKind::Import { module } => vec![Found::new(self.module_def(module))],
                LocalKind::ImportFrom { module, name } => {
                    let found = self.import_from_pub(module, name, walk);
                    with_prefix(found, &[hop(HopKind::Import)], &[])
                }
                LocalKind::Function(f) => vec![Found::new(Def::Function(*f))],
                LocalKind::Class(c) => vec![Found::new(Def::Class(*c))],
                LocalKind::Other => {
                    vec![Found::new(Def::Opaque { file: func.file, range: binding.stmt, name: Name::new(name) })]
                }
            };
            out.extend(with_prefix(found, &[], &conds));
        }
        let out = finish(out);
        if walk.cut == cut_before {
            self.local_names_memo
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, std::sync::Arc::new(out.clone()));
        }
        out
    }

    /// A name not local to any enclosing function: class body (for class-level code), module,
    /// builtins.
    fn nonlocal_name(&self, ctx: &Ctx, name: &str, walk: &mut Walk) -> Vec<Found> {
        if let (None, Some(class)) = (ctx.function, ctx.class) {
            let facts = self.index.class(class);
            let bindings: Vec<_> = facts.body.iter().filter(|b| b.name.as_str() == name).collect();
            if !bindings.is_empty() {
                return bindings.into_iter().flat_map(|b| self.binding_def(class.file, Some(class), b, walk)).collect();
            }
        }
        let found = self.global_in(ctx.file, name, walk);
        if !found.is_empty() {
            return found.to_vec();
        }
        if super::BUILTINS.contains(&name) {
            return vec![Found::new(Def::Builtin(Name::new(name)))];
        }
        vec![Found::unresolved(format!("`{name}` is not defined in {}", self.index.file(ctx.file).module))]
    }

    /// The function whose body encloses `func`'s definition (through class bodies).
    fn enclosing_function(&self, func: FuncId) -> Option<FuncId> {
        let mut parent = self.index.function(func).parent;
        loop {
            match parent {
                Parent::Function(f) => return Some(f),
                Parent::Class(c) => parent = self.index.class(c).parent,
                Parent::Module => return None,
            }
        }
    }

    /// A parameter: `self`/`cls` of a method denote the class; others are unknown unless
    /// annotated with a class of the tree.
    fn param(&self, func: FuncId, name: &str, walk: &mut Walk) -> Vec<Found> {
        let facts = self.index.function(func);
        let is_first = facts.params.first().is_some_and(|p| p.name.as_str() == name);
        if let (true, Some(class)) = (is_first, facts.class()) {
            match facts.kind {
                FunctionKind::Method | FunctionKind::Property | FunctionKind::PropertyAccessor => {
                    return vec![Found::new(Def::Instance(class))];
                }
                FunctionKind::ClassMethod => {
                    let hop = Hop { file: func.file, range: facts.params[0].range, kind: HopKind::OwnClass };
                    return vec![Found::new(Def::Class(class)).behind(Some(hop), &[])];
                }
                _ => {}
            }
        }
        let param_def = Def::Param { func, name: Name::new(name) };
        let Some(annotation) = facts.param(name).and_then(|p| p.annotation.as_deref()) else {
            return vec![Found::new(param_def)];
        };
        let hop = Hop { file: func.file, range: annotation.range().into(), kind: HopKind::Annotation };
        let mut out = Vec::new();
        for class in self.annotation_classes(
            &Ctx { file: func.file, function: self.enclosing_function(func), class: None },
            annotation,
            walk,
        ) {
            out.push(Found::new(Def::Instance(class)).behind(Some(hop.clone()), &[]));
        }
        if out.is_empty() {
            out.push(Found::new(param_def));
        }
        out
    }

    /// Classes of the tree named by an annotation (`X`, `Optional[X]`, `X | None`, `Union[..]`).
    pub(crate) fn annotation_classes(&self, ctx: &Ctx, annotation: &Expr, walk: &mut Walk) -> Vec<ClassId> {
        match annotation {
            Expr::Subscript(sub) => {
                let head = crate::syntax::dotted_name(&sub.value).unwrap_or_default();
                let last = head.rsplit('.').next().unwrap_or_default();
                if matches!(last, "Optional" | "Union") {
                    let args: Vec<&Expr> = match sub.slice.as_ref() {
                        Expr::Tuple(t) => t.elts.iter().collect(),
                        other => vec![other],
                    };
                    return args.into_iter().flat_map(|a| self.annotation_classes(ctx, a, walk)).collect();
                }
                Vec::new()
            }
            Expr::BinOp(binop) if matches!(binop.op, ast::Operator::BitOr) => {
                let mut out = self.annotation_classes(ctx, &binop.left, walk);
                out.extend(self.annotation_classes(ctx, &binop.right, walk));
                out
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                self.expr(ctx, annotation, walk).into_iter().filter_map(|f| f.def.class()).collect()
            }
            // A forward reference: `"module.Class"`.
            Expr::StringLiteral(text) => match ruff_python_parser::parse_expression(text.value.to_str()) {
                Ok(parsed) if walk.depth < MAX_DEPTH => {
                    walk.depth += 1;
                    let out = self.annotation_classes(ctx, parsed.expr(), walk);
                    walk.depth -= 1;
                    out
                }
                _ => Vec::new(),
            },

            _ => Vec::new(),
        }
    }

    fn import_from_pub(&self, module: &str, name: &str, walk: &mut Walk) -> Vec<Found> {
        self.import_from(module, name, walk)
    }

    /// What calling `call.func` returns.
    fn call_result(&self, ctx: &Ctx, call: &ast::ExprCall, walk: &mut Walk) -> Vec<Found> {
        let args = &call.arguments;
        if let Expr::Name(func) = call.func.as_ref() {
            // Builtins with a known meaning, when not shadowed.
            let shadowed = !self.is_builtin_here(ctx, func.id.as_str(), walk);
            match func.id.as_str() {
                "super" if !shadowed => return self.super_call(ctx, args, walk),
                "type" if !shadowed && args.args.len() == 1 => {
                    return self
                        .expr(ctx, &args.args[0], walk)
                        .into_iter()
                        .map(|f| own_class(f, ctx.file, call.range().into()))
                        .collect();
                }
                "getattr" if !shadowed && args.args.len() >= 2 => {
                    let Some(attr) = args.args[1].as_string_literal_expr() else {
                        return vec![Found::unresolved(format!(
                            "dynamic getattr: `{}`",
                            crate::syntax::snippet(&self.index.file(ctx.file).text, call.range())
                        ))];
                    };
                    let mut out = Vec::new();
                    for base in self.expr(ctx, &args.args[0], walk) {
                        out.extend(with_prefix(
                            self.member(&base.def, attr.value.to_str(), walk),
                            &base.hops,
                            &base.conds,
                        ));
                    }
                    if let Some(default) = args.args.get(2) {
                        out.extend(self.expr(ctx, default, walk));
                    }
                    return out;
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for callee in self.expr(ctx, &call.func, walk) {
            let results = match &callee.def {
                Def::Class(class) => vec![Found::new(Def::Instance(*class))],
                Def::Function(func) | Def::BoundMethod { func, .. } => self.returns(*func, walk),
                Def::External(path) if path.ends_with("partial") => match args.args.first() {
                    Some(first) => {
                        let hop = Hop { file: ctx.file, range: call.range().into(), kind: HopKind::Partial };
                        with_prefix(self.expr(ctx, first, walk), &[hop], &[])
                    }
                    None => vec![Found::unresolved("functools.partial without a function")],
                },
                Def::External(path) if path.ends_with(".cast") && args.args.len() == 2 => {
                    self.expr(ctx, &args.args[1], walk)
                }
                Def::External(path) => vec![Found::new(Def::External(format!("{path}()")))],
                Def::Unresolved(_) => vec![callee.clone()],
                other => vec![Found::unresolved(format!("result of calling {}", self.describe(other)))],
            };
            out.extend(with_prefix(results, &callee.hops, &callee.conds));
        }
        out
    }

    /// `super()` (in a method) or `super(C, self)`.
    fn super_call(&self, ctx: &Ctx, args: &ast::Arguments, walk: &mut Walk) -> Vec<Found> {
        if let Some(first) = args.args.first() {
            return self
                .expr(ctx, first, walk)
                .into_iter()
                .map(|f| match f.def {
                    Def::Class(class) => Found { def: Def::Super { class, receiver: class }, ..f },
                    _ => Found::unresolved("super() with a first argument that is not a known class"),
                })
                .collect();
        }
        // Zero-argument super() refers to the class whose body defines the method.
        let mut function = ctx.function;
        while let Some(func) = function {
            if let Some(class) = self.index.function(func).class() {
                return vec![Found::new(Def::Super { class, receiver: class })];
            }
            function = self.enclosing_function(func);
        }
        vec![Found::unresolved("super() outside a method")]
    }

    fn is_builtin_here(&self, ctx: &Ctx, name: &str, walk: &mut Walk) -> bool {
        if let Some(func) = ctx.function {
            if self.local_scope(func).is_local(name) {
                return false;
            }
        }
        self.global_in(ctx.file, name, walk).is_empty()
    }

    /// Everything `func` may return: each `return` value with its guards. Memoised.
    fn returns(&self, func: FuncId, walk: &mut Walk) -> Vec<Found> {
        if let Some(found) = self.returns_memo.read().unwrap_or_else(|e| e.into_inner()).get(&func) {
            return found.to_vec();
        }
        if walk.factories.contains(&func) {
            walk.cut += 1;
            return vec![Found::unresolved(format!("recursive call of {}", self.index.function_path(func)))];
        }
        let cut_before = walk.cut;
        walk.factories.push(func);
        let scope = self.local_scope(func);
        let mut out = Vec::new();
        for ret in &scope.returns {
            let conds: Vec<Cond> = ret.guards.iter().map(|&guard| Cond { file: func.file, guard }).collect();
            let hop = Hop { file: func.file, range: ret.range, kind: HopKind::FactoryReturn };
            let found = match &ret.value {
                Some(value) => self.expr(&Ctx::function(func), value, walk),
                None => vec![Found::new(Def::Constant(crate::syntax::Constant::None))],
            };
            out.extend(with_prefix(found, &[hop], &conds));
        }
        if scope.returns.is_empty() {
            out.push(Found::new(Def::Constant(crate::syntax::Constant::None)));
        }
        walk.factories.pop();
        let out = finish(out);
        if walk.cut == cut_before {
            self.returns_memo.write().unwrap_or_else(|e| e.into_inner()).insert(func, std::sync::Arc::new(out.clone()));
        }
        out
    }

    /// `def.attr` for any definition, including instances (their attributes, properties and
    /// methods).
    pub(crate) fn member(&self, def: &Def, attr: &str, walk: &mut Walk) -> Vec<Found> {
        match def {
            Def::Instance(class) => self.instance_attribute(*class, attr, walk),
            Def::Class(class) => {
                // Through the class, methods are plain functions; properties are descriptors.
                self.class_member(*class, attr, walk)
            }
            Def::Super { class, receiver } => self.super_member(*class, *receiver, attr),
            Def::Unresolved(_) => vec![Found::new(def.clone())],
            other => self.attribute(other, attr, walk),
        }
    }

    /// `super().attr` in a method of `class`: the first class after `class` in the MRO of
    /// `receiver` that defines `attr`.
    fn super_member(&self, class: ClassId, receiver: ClassId, attr: &str) -> Vec<Found> {
        let mro = self.mro(receiver);
        let after = mro.classes.iter().position(|c| *c == class).map_or(0, |i| i + 1);
        for base in &mro.classes[after.min(mro.classes.len())..] {
            for binding in self.index.class(*base).body.iter().filter(|b| b.name.as_str() == attr) {
                if let crate::index::BindingKind::Function(func) = binding.kind {
                    return vec![Found::new(Def::BoundMethod { func, receiver })];
                }
            }
        }
        if let Some(external) = mro.external.first() {
            return vec![Found::new(Def::External(format!("{external}.{attr}")))];
        }
        vec![Found::unresolved(format!("super().{attr}: no base of {} defines it", self.index.class_path(class)))]
    }

    /// An attribute read through an instance of `class`: class-body definitions through the MRO
    /// (methods bind, properties return) and `self.attr = ...` writes in the MRO's methods.
    pub fn instance_attribute(&self, class: ClassId, attr: &str, walk: &mut Walk) -> Vec<Found> {
        let key = (class, Name::new(attr));
        if let Some(found) = self.attributes_memo.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return found.to_vec();
        }
        if walk.attributes.contains(&key) {
            walk.cut += 1;
            return vec![Found::unresolved(format!("attribute `{attr}` refers to itself"))];
        }
        let cut_before = walk.cut;
        walk.attributes.push(key.clone());
        let mro = self.mro(class);
        let mut out = Vec::new();
        'classes: for base in &mro.classes {
            for binding in self.index.class(*base).body.iter().filter(|b| b.name.as_str() == attr) {
                if let crate::index::BindingKind::Function(func) = &binding.kind {
                    let facts = self.index.function(*func);
                    let conds: Vec<Cond> =
                        binding.guards.iter().map(|&guard| Cond { file: base.file, guard }).collect();
                    let found = match facts.kind {
                        FunctionKind::Property => {
                            let returns = self.returns(*func, walk);
                            returns
                                .into_iter()
                                .map(|mut f| {
                                    if let Some(first) = f.hops.first_mut() {
                                        if first.kind == HopKind::FactoryReturn {
                                            first.kind = HopKind::PropertyReturn;
                                        }
                                    }
                                    f
                                })
                                .collect()
                        }
                        FunctionKind::StaticMethod => vec![Found::new(Def::Function(*func))],
                        FunctionKind::PropertyAccessor => continue,
                        _ => vec![Found::new(Def::BoundMethod { func: *func, receiver: class })],
                    };
                    out.extend(with_prefix(found, &[], &conds));
                } else {
                    out.extend(self.binding_def(base.file, Some(*base), binding, walk));
                }
            }
            if !out.is_empty() {
                break 'classes;
            }
        }
        for base in &mro.classes {
            let writes: Vec<&AttrWrite> =
                self.index.class(*base).attr_writes.iter().filter(|w| w.name.as_str() == attr).collect();
            for write in writes {
                out.extend(self.attr_write_value(write, walk));
            }
        }
        walk.attributes.pop();
        if out.is_empty() {
            out = match mro.external.first() {
                Some(external) => vec![Found::new(Def::External(format!("{external}.{attr}")))],
                None => vec![Found::unresolved(format!("no attribute `{attr}` on {}", self.index.class_path(class)))],
            };
        }
        let out = finish(out);
        if walk.cut == cut_before {
            self.attributes_memo
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, std::sync::Arc::new(out.clone()));
        }
        out
    }

    /// The value a `self.attr = value` write stores, resolved in its method.
    pub(crate) fn attr_write_value(&self, write: &AttrWrite, walk: &mut Walk) -> Vec<Found> {
        let hop = Hop { file: write.method.file, range: write.stmt, kind: HopKind::AttributeWrite };
        let guards = self.guards_at(write.method, write.stmt);
        let conds: Vec<Cond> = guards.iter().map(|&guard| Cond { file: write.method.file, guard }).collect();
        if write.augmented {
            return vec![
                Found::new(Def::Opaque { file: write.method.file, range: write.stmt, name: write.name.clone() })
                    .behind(Some(hop), &conds),
            ];
        }
        let module = self.index.file(write.method.file).ast();
        let Some(value) = stmt_with_range(&module.body, write.stmt).and_then(|stmt| assigned_value(stmt, write.target))
        else {
            return vec![
                Found::new(Def::Opaque { file: write.method.file, range: write.stmt, name: write.name.clone() })
                    .behind(Some(hop), &conds),
            ];
        };
        with_prefix(self.expr(&Ctx::function(write.method), value, walk), &[hop], &conds)
    }

    /// The guards around the statement at `stmt` inside `func`'s body.
    pub fn guards_at(&self, func: FuncId, stmt: Span) -> Vec<Guard> {
        let scope = self.local_scope(func);
        scope.guards_of(stmt)
    }
}

/// `type(x)` / `x.__class__`: the class of an instance.
fn own_class(found: Found, file: FileId, range: Span) -> Found {
    match found.def {
        Def::Instance(class) => {
            Found { def: Def::Class(class), ..found }.behind(Some(Hop { file, range, kind: HopKind::OwnClass }), &[])
        }
        Def::Unresolved(_) => found,
        _ => Found::unresolved("class of a value that is not a known instance"),
    }
}

/// The expression a statement assigns to `target` (which may sit inside a tuple target).
pub fn assigned_value(stmt: &Stmt, target: Span) -> Option<&Expr> {
    fn within<'e>(t: &'e Expr, value: &'e Expr, target: Span) -> Option<&'e Expr> {
        if Span::of(t) == target {
            return Some(value);
        }
        if let (Expr::Tuple(ts), Expr::Tuple(vs)) = (t, value) {
            if ts.elts.len() == vs.elts.len() {
                return ts.elts.iter().zip(vs.elts.iter()).find_map(|(t, v)| within(t, v, target));
            }
        }
        None
    }
    match stmt {
        Stmt::Assign(assign) => assign.targets.iter().find_map(|t| within(t, &assign.value, target)),
        Stmt::AnnAssign(assign) => assign.value.as_deref().and_then(|v| within(&assign.target, v, target)),
        _ => None,
    }
}
