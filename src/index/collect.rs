//! The per-file pass: one walk over a module's syntax tree that records its facts.
//!
//! It runs in parallel over files and sees one file only: imports are recorded as absolute
//! module names, never followed.

use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::facts::*;
use super::ids::{ClassId, FileId, FuncId};
use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::syntax::{MAX_NESTING, child_suites, depth_within, dotted_name, fallthrough_guards};

/// Where the walk is: which scope receives bindings.
#[derive(Clone, Copy)]
enum Scope {
    Module,
    Class(u32),
    /// A function body; `self_name` is the first parameter when the function is a method.
    Function {
        id: u32,
        method_of: Option<u32>,
    },
}

pub struct Collector<'a> {
    file: FileId,
    module: &'a str,
    is_package: bool,
    display: &'a str,
    source: &'a str,
    pub facts: FileFacts,
    pub diagnostics: Vec<Diagnostic>,
    too_deep_reported: bool,
}

impl<'a> Collector<'a> {
    pub fn new(file: FileId, module: &'a str, is_package: bool, display: &'a str, source: &'a str) -> Self {
        Self {
            file,
            module,
            is_package,
            display,
            source,
            facts: FileFacts::default(),
            diagnostics: Vec::new(),
            too_deep_reported: false,
        }
    }

    pub fn collect(mut self, suite: &[Stmt]) -> (FileFacts, Vec<Diagnostic>) {
        self.walk_suite(suite, Scope::Module, &mut Vec::new(), 0);
        (self.facts, self.diagnostics)
    }

    fn line_of(&self, range: TextRange) -> u32 {
        let offset = range.start().to_usize().min(self.source.len());
        1 + self.source.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() as u32
    }

    fn too_deep(&mut self, range: TextRange) {
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            let line = self.line_of(range);
            self.diagnostics.push(Diagnostic::new(
                DiagnosticKind::TooDeep,
                Some(self.display.to_string()),
                Some(line),
                format!("nesting deeper than {MAX_NESTING} levels; the part below is not analyzed"),
            ));
        }
    }

    /// Clones an expression for the facts, unless it nests too deeply to handle safely.
    fn keep(&mut self, expr: &Expr) -> Option<Box<Expr>> {
        if depth_within(expr, MAX_NESTING) {
            Some(Box::new(expr.clone()))
        } else {
            self.too_deep(expr.range());
            None
        }
    }

    fn walk_suite(&mut self, suite: &[Stmt], scope: Scope, guards: &mut Vec<Guard>, depth: usize) {
        if depth > MAX_NESTING {
            if let Some(first) = suite.first() {
                self.too_deep(first.range());
            }
            return;
        }
        let outer = guards.len();
        for stmt in suite {
            self.walk_stmt(stmt, scope, guards, depth);
            // `if c: return` guards the rest of the suite with `not c`.
            guards.extend(fallthrough_guards(stmt));
        }
        guards.truncate(outer);
    }

    fn bind(&mut self, scope: Scope, binding: Binding) {
        match scope {
            Scope::Module => self.facts.bindings.push(binding),
            Scope::Class(class) => self.facts.classes[class as usize].body.push(binding),
            Scope::Function { .. } => {}
        }
    }

    fn parent(&self, scope: Scope) -> Parent {
        match scope {
            Scope::Module => Parent::Module,
            Scope::Class(local) => Parent::Class(ClassId { file: self.file, local }),
            Scope::Function { id, .. } => Parent::Function(FuncId { file: self.file, local: id }),
        }
    }

    fn qualname(&self, scope: Scope, name: &str) -> String {
        match scope {
            Scope::Module => name.to_string(),
            Scope::Class(local) => {
                format!("{}.{name}", self.facts.classes[local as usize].qualname)
            }
            Scope::Function { id, .. } => format!("{}.<locals>.{name}", self.facts.functions[id as usize].qualname),
        }
    }

    fn walk_stmt(&mut self, stmt: &Stmt, scope: Scope, guards: &mut Vec<Guard>, depth: usize) {
        match stmt {
            Stmt::FunctionDef(def) => self.function(def, scope, guards, depth),
            Stmt::ClassDef(def) => self.class(def, scope, guards, depth),
            Stmt::Import(import) => {
                for alias in &import.names {
                    let (name, module) = match &alias.asname {
                        Some(asname) => (asname.id.clone(), alias.name.to_string()),
                        None => {
                            let first = alias.name.split('.').next().unwrap_or_default();
                            (Name::new(first), first.to_string())
                        }
                    };
                    self.bind(
                        scope,
                        Binding {
                            name,
                            kind: BindingKind::Import { module },
                            range: import.range.into(),
                            guards: guards.clone(),
                        },
                    );
                }
            }
            Stmt::ImportFrom(import) => {
                let Some(module) = crate::syntax::absolute_import(self.module, self.is_package, import) else {
                    return;
                };
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        if matches!(scope, Scope::Module) {
                            self.facts
                                .star_imports
                                .push(StarImport { module: module.clone(), range: import.range.into() });
                        }
                        continue;
                    }
                    let name = alias.asname.as_ref().unwrap_or(&alias.name).id.clone();
                    let kind = BindingKind::ImportFrom { module: module.clone(), name: alias.name.to_string() };
                    self.bind(scope, Binding { name, kind, range: import.range.into(), guards: guards.clone() });
                }
            }
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    self.assign_target(target, Some(&assign.value), stmt.range(), scope, guards, false);
                }
                if matches!(scope, Scope::Module) {
                    self.dunder_all(&assign.targets, &assign.value, false);
                }
            }
            Stmt::AnnAssign(assign) => match &assign.value {
                Some(value) => self.assign_target(&assign.target, Some(value), stmt.range(), scope, guards, false),
                None => {
                    if let Expr::Name(name) = assign.target.as_ref() {
                        if let Some(annotation) = self.keep(&assign.annotation) {
                            self.bind(
                                scope,
                                Binding {
                                    name: name.id.clone(),
                                    kind: BindingKind::Annotated { annotation },
                                    range: stmt.range().into(),
                                    guards: guards.clone(),
                                },
                            );
                        }
                    }
                }
            },
            Stmt::AugAssign(assign) => {
                self.assign_target(&assign.target, None, stmt.range(), scope, guards, true);
                if matches!(scope, Scope::Module) {
                    self.dunder_all(std::slice::from_ref(assign.target.as_ref()), &assign.value, true);
                }
            }
            Stmt::Expr(node) => {
                self.setattr_call(&node.value);
                self.container_update(&node.value, scope);
                if matches!(scope, Scope::Module) {
                    if let Some(callee) = called_name(&node.value) {
                        self.facts.module_calls.push(ModuleCall { callee, range: stmt.range().into() });
                    }
                }
            }
            Stmt::Global(node) if matches!(scope, Scope::Function { .. }) => {
                self.facts.rebound_globals.extend(node.names.iter().map(|n| n.id.clone()));
            }
            Stmt::For(node) => self.assign_target(&node.target, None, stmt.range(), scope, guards, false),
            Stmt::With(node) => {
                for item in &node.items {
                    if let Some(vars) = &item.optional_vars {
                        self.assign_target(vars, None, stmt.range(), scope, guards, false);
                    }
                }
            }
            _ => {}
        }
        for child in child_suites(stmt) {
            let outer = guards.len();
            guards.extend(child.guards);
            self.walk_suite(child.body, scope, guards, depth + 1);
            guards.truncate(outer);
        }
    }

    /// Records what assigning `value` to `target` binds: names in this scope, and `self.x`
    /// attributes when inside a method.
    fn assign_target(
        &mut self,
        target: &Expr,
        value: Option<&Expr>,
        stmt: TextRange,
        scope: Scope,
        guards: &[Guard],
        augmented: bool,
    ) {
        let mut leaves = Vec::new();
        crate::syntax::unpack_targets(target, value, &mut leaves);
        for (leaf, value) in leaves {
            self.assign_leaf(leaf, value, stmt, scope, guards, augmented);
        }
    }

    fn assign_leaf(
        &mut self,
        target: &Expr,
        value: Option<&Expr>,
        stmt: TextRange,
        scope: Scope,
        guards: &[Guard],
        augmented: bool,
    ) {
        match target {
            Expr::Name(name) => {
                let kind = match value {
                    Some(value) if !augmented => BindingKind::Value { value: self.keep_small(scope, value) },
                    _ => BindingKind::Other,
                };
                self.bind(scope, Binding { name: name.id.clone(), kind, range: stmt.into(), guards: guards.to_vec() });
            }
            Expr::Attribute(attr) => {
                let own = match (scope, attr.value.as_ref()) {
                    (Scope::Function { id, method_of: Some(class) }, Expr::Name(base))
                        if self.facts.functions[id as usize].params.first().is_some_and(|p| p.name == base.id) =>
                    {
                        Some((id, class))
                    }
                    _ => None,
                };
                let Some((id, class)) = own else {
                    self.facts.foreign_attr_writes.push(attr.attr.id.clone());
                    if let (Scope::Module, Expr::Name(object), Some(value), false) =
                        (scope, attr.value.as_ref(), value, augmented)
                    {
                        let value = self.keep(value);
                        self.facts.module_attr_assigns.push(ModuleAttrAssign {
                            object: object.id.clone(),
                            attr: attr.attr.id.clone(),
                            value,
                            range: stmt.into(),
                        });
                    }
                    return;
                };
                self.facts.classes[class as usize].attr_writes.push(AttrWrite {
                    name: attr.attr.id.clone(),
                    method: FuncId { file: self.file, local: id },
                    stmt: stmt.into(),
                    target: attr.range.into(),
                    value: value.map(Span::of),
                    augmented,
                });
            }
            Expr::Subscript(subscript) => {
                if let (Scope::Function { id, .. }, Expr::Name(container)) = (scope, subscript.value.as_ref()) {
                    self.facts.container_writes.push((container.id.clone(), id));
                }
            }
            _ => {}
        }
    }

    /// `NAME.update(...)` (or another method that changes a dict in place) as a statement of a
    /// function: see `FileFacts::container_writes`.
    fn container_update(&mut self, expr: &Expr, scope: Scope) {
        let (Scope::Function { id, .. }, Expr::Call(call)) = (scope, expr) else { return };
        let Expr::Attribute(method) = call.func.as_ref() else { return };
        let Expr::Name(container) = method.value.as_ref() else { return };
        if matches!(method.attr.id.as_str(), "update" | "setdefault" | "pop" | "clear" | "__setitem__") {
            self.facts.container_writes.push((container.id.clone(), id));
        }
    }

    /// `setattr(obj, "name", value)` as a statement: `name` may be set on anything.
    fn setattr_call(&mut self, expr: &Expr) {
        let Expr::Call(call) = expr else { return };
        let Expr::Name(func) = call.func.as_ref() else { return };
        if func.id.as_str() != "setattr" {
            return;
        }
        if let Some(name) = call.arguments.args.get(1).and_then(|a| a.as_string_literal_expr()) {
            self.facts.foreign_attr_writes.push(Name::new(name.value.to_str()));
        }
    }

    /// Module- and class-level values are kept as syntax; values in function bodies are read
    /// from the AST cache when needed.
    fn keep_small(&mut self, scope: Scope, value: &Expr) -> Option<Box<Expr>> {
        match scope {
            Scope::Function { .. } => None,
            _ => self.keep(value),
        }
    }

    fn dunder_all(&mut self, targets: &[Expr], value: &Expr, extend: bool) {
        if !targets.iter().any(|t| matches!(t, Expr::Name(n) if n.id.as_str() == "__all__")) {
            return;
        }
        let elts = match value {
            Expr::List(list) => &list.elts,
            Expr::Tuple(tuple) => &tuple.elts,
            _ => return,
        };
        let names: Vec<Name> =
            elts.iter().filter_map(|e| e.as_string_literal_expr()).map(|s| Name::new(s.value.to_str())).collect();
        match (&mut self.facts.dunder_all, extend) {
            (Some(all), true) => all.extend(names),
            (all, _) => *all = Some(names),
        }
    }

    fn function(&mut self, def: &ast::StmtFunctionDef, scope: Scope, guards: &[Guard], depth: usize) {
        let local = self.facts.functions.len() as u32;
        let method_of = match scope {
            Scope::Class(class) => Some(class),
            _ => None,
        };
        let decorators: Vec<Expr> =
            def.decorator_list.iter().filter_map(|d| self.keep(&d.expression).map(|e| *e)).collect();
        let kind = function_kind(&decorators, method_of.is_some());
        let mut params = Vec::new();
        let p = &def.parameters;
        for (list, kind) in [
            (&p.posonlyargs, ParamKind::PositionalOnly),
            (&p.args, ParamKind::PositionalOrKeyword),
            (&p.kwonlyargs, ParamKind::KeywordOnly),
        ] {
            for param in list.iter() {
                params.push(Param {
                    name: param.parameter.name.id.clone(),
                    kind,
                    default: param.default.as_deref().and_then(|d| self.keep(d)),
                    annotation: param.parameter.annotation.as_deref().and_then(|a| self.keep(a)),
                    range: param.range.into(),
                });
            }
            if kind == ParamKind::PositionalOrKeyword {
                if let Some(vararg) = &p.vararg {
                    params.push(Param {
                        name: vararg.name.id.clone(),
                        kind: ParamKind::VarPositional,
                        default: None,
                        annotation: None,
                        range: vararg.range.into(),
                    });
                }
            }
        }
        // keyword-only parameters follow `*args`; reorder so the list reads like the signature.
        if let Some(kwarg) = &p.kwarg {
            params.push(Param {
                name: kwarg.name.id.clone(),
                kind: ParamKind::VarKeyword,
                default: None,
                annotation: None,
                range: kwarg.range.into(),
            });
        }
        let returns = def.returns.as_deref().and_then(|r| self.keep(r));
        self.facts.functions.push(FunctionFacts {
            name: def.name.id.clone(),
            qualname: self.qualname(scope, def.name.as_str()),
            file: self.file,
            range: def.range.into(),
            name_range: def.name.range.into(),
            parent: self.parent(scope),
            kind,
            params,
            decorators,
            returns,
            guards: guards.to_vec(),
        });
        let id = FuncId { file: self.file, local };
        self.bind(
            scope,
            Binding {
                name: def.name.id.clone(),
                kind: BindingKind::Function(id),
                range: def.range.into(),
                guards: guards.to_vec(),
            },
        );
        // Nested `self.x = ...` only counts for the method itself, not for closures in it.
        let inner =
            Scope::Function { id: local, method_of: if kind == FunctionKind::StaticMethod { None } else { method_of } };
        self.walk_suite(&def.body, inner, &mut Vec::new(), depth + 1);
    }

    fn class(&mut self, def: &ast::StmtClassDef, scope: Scope, guards: &[Guard], depth: usize) {
        let local = self.facts.classes.len() as u32;
        let mut bases = Vec::new();
        let mut keywords = Vec::new();
        if let Some(arguments) = &def.arguments {
            for base in arguments.args.iter() {
                if let Some(base) = self.keep(base) {
                    bases.push(*base);
                }
            }
            for keyword in arguments.keywords.iter() {
                if let (Some(arg), Some(value)) = (&keyword.arg, self.keep(&keyword.value)) {
                    keywords.push((arg.id.clone(), *value));
                }
            }
        }
        let decorators = def.decorator_list.iter().filter_map(|d| self.keep(&d.expression).map(|e| *e)).collect();
        self.facts.classes.push(ClassFacts {
            name: def.name.id.clone(),
            qualname: self.qualname(scope, def.name.as_str()),
            file: self.file,
            range: def.range.into(),
            name_range: def.name.range.into(),
            parent: self.parent(scope),
            bases,
            keywords,
            decorators,
            body: Vec::new(),
            attr_writes: Vec::new(),
            guards: guards.to_vec(),
        });
        let id = ClassId { file: self.file, local };
        self.bind(
            scope,
            Binding {
                name: def.name.id.clone(),
                kind: BindingKind::Class(id),
                range: def.range.into(),
                guards: guards.to_vec(),
            },
        );
        self.walk_suite(&def.body, Scope::Class(local), &mut Vec::new(), depth + 1);
    }
}

fn function_kind(decorators: &[Expr], in_class: bool) -> FunctionKind {
    for decorator in decorators {
        let Some(name) = dotted_name(decorator) else {
            continue;
        };
        let last = name.rsplit('.').next().unwrap_or_default();
        match last {
            "staticmethod" => return FunctionKind::StaticMethod,
            "classmethod" => return FunctionKind::ClassMethod,
            "property" | "cached_property" | "abstractproperty" => return FunctionKind::Property,
            "setter" | "deleter" | "getter" if name.contains('.') => {
                return FunctionKind::PropertyAccessor;
            }
            _ => {}
        }
    }
    if in_class { FunctionKind::Method } else { FunctionKind::Function }
}

/// The last segment of the name `expr` calls, directly or through the function a call of it
/// returns (`register` in `register("key")(func)`, `Pool.register("key", func)`).
fn called_name(expr: &Expr) -> Option<ruff_python_ast::name::Name> {
    // (A loop, not recursion: `f()()()...` may nest as deep as the file likes.)
    let Expr::Call(call) = expr else { return None };
    let mut call = call;
    loop {
        match call.func.as_ref() {
            Expr::Name(n) => return Some(n.id.clone()),
            Expr::Attribute(a) => return Some(a.attr.id.clone()),
            Expr::Call(inner) => call = inner,
            _ => return None,
        }
    }
}
