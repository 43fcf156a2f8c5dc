//! A function's local scope, built from its syntax on first use: the names it binds (with the
//! guards around each binding), its `return`s, and the dicts it builds for `**kwargs`.
//!
//! Flow-insensitive on purpose: a local bound twice denotes either value. Dicts are the
//! exception: their entries are read in statement order up to the call that unpacks them.

use std::sync::Arc;

use crate::syntax::Span;
use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextSize};
use rustc_hash::{FxHashMap, FxHashSet};

use super::Resolver;
use crate::index::{ClassId, FuncId, Guard, GuardKind, Parent};
use crate::syntax::{MAX_NESTING, child_suites, fallthrough_guards};

#[derive(Clone, Debug)]
pub enum LocalKind {
    Param,
    Value(Arc<Expr>),
    Import {
        module: String,
    },
    ImportFrom {
        module: String,
        name: String,
    },
    Function(FuncId),
    Class(ClassId),
    /// Loop targets, `with ... as`, augmented assignment, unpacking of unknown shape.
    Other,
}

#[derive(Clone, Debug)]
pub struct LocalBinding {
    pub kind: LocalKind,
    pub stmt: Span,
    pub guards: Vec<Guard>,
}

#[derive(Clone, Debug)]
pub struct Return {
    pub value: Option<Arc<Expr>>,
    pub range: Span,
    pub guards: Vec<Guard>,
}

/// One key of a dict built up in a function body, as one statement sets it.
#[derive(Clone, Debug)]
pub struct DictEntry {
    pub key: String,
    pub value: Arc<Expr>,
    /// The statement that sets it (`d = dict(...)`, `d.update(...)`, `d[k] = v`).
    pub stmt: Span,
    pub guards: Vec<Guard>,
    /// True for `update`/item assignment: it overrides an earlier entry for the same key.
    pub is_update: bool,
}

#[derive(Debug, Default)]
pub struct LocalScope {
    pub bindings: FxHashMap<Name, Vec<LocalBinding>>,
    pub returns: Vec<Return>,
    /// Names declared `global`/`nonlocal`: not local even though assigned.
    pub not_local: FxHashSet<Name>,
    /// Names declared `global`: assigning them rebinds the module's variable.
    pub declared_global: FxHashSet<Name>,
    /// Statements of the body in source order, flattened (nested suites included), each with
    /// its guards: what the dict tracker walks.
    statements: Vec<(Span, Vec<Guard>)>,
    /// The function's syntax tree, kept for dict tracking.
    module: Option<Arc<ast::ModModule>>,
    def: Span,
}

impl Resolver<'_> {
    /// The local scope of `func`, built on first use.
    pub fn local_scope(&self, func: FuncId) -> Arc<LocalScope> {
        if let Some(scope) = self.locals.read().unwrap_or_else(|e| e.into_inner()).get(&func) {
            return scope.clone();
        }
        let scope = Arc::new(self.build_local_scope(func));
        self.locals.write().unwrap_or_else(|e| e.into_inner()).insert(func, scope.clone());
        scope
    }

    fn build_local_scope(&self, func: FuncId) -> LocalScope {
        let facts = self.index.function(func);
        let file = self.index.file(func.file);
        let mut scope = LocalScope { def: facts.range, ..LocalScope::default() };
        for param in &facts.params {
            scope.bindings.entry(param.name.clone()).or_default().push(LocalBinding {
                kind: LocalKind::Param,
                stmt: param.range,
                guards: Vec::new(),
            });
        }
        let module = file.ast();
        let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, facts.range) else {
            return scope;
        };
        // Nested definitions are indexed in source order: those of this function follow it,
        // inside its range.
        let inside = |range: Span| range.start > facts.range.start && range.end <= facts.range.end;
        let mut nested: FxHashMap<Span, NestedDef> = FxHashMap::default();
        let functions = &file.facts.functions;
        for (i, f) in functions.iter().enumerate().skip(func.local as usize + 1) {
            if f.range.start >= facts.range.end {
                break;
            }
            if inside(f.range) && f.parent == Parent::Function(func) {
                nested.insert(f.range, NestedDef::Function(FuncId { file: func.file, local: i as u32 }));
            }
        }
        let classes = &file.facts.classes;
        let first_class = classes.partition_point(|c| c.range.start <= facts.range.start);
        for (i, c) in classes.iter().enumerate().skip(first_class) {
            if c.range.start >= facts.range.end {
                break;
            }
            if c.parent == Parent::Function(func) {
                nested.insert(c.range, NestedDef::Class(ClassId { file: func.file, local: i as u32 }));
            }
        }

        let mut builder =
            ScopeBuilder { scope: &mut scope, nested: &nested, module_name: &file.module, is_package: file.is_package };
        builder.suite(&def.body, &mut Vec::new(), 0);
        scope.module = Some(module.clone());
        scope
    }
}

/// The targets of assignment expressions (`x := value`) in one statement's own expressions
/// (nested statements are visited on their own).
struct WalrusTargets {
    top: bool,
    names: Vec<(Name, Arc<Expr>)>,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for WalrusTargets {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if std::mem::take(&mut self.top) {
            ruff_python_ast::visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Named(named) = expr {
            if let Expr::Name(name) = named.target.as_ref() {
                self.names.push((name.id.clone(), Arc::new(named.value.as_ref().clone())));
            }
        }
        if !matches!(expr, Expr::Lambda(_)) {
            ruff_python_ast::visitor::walk_expr(self, expr);
        }
    }
}

enum NestedDef {
    Function(FuncId),
    Class(ClassId),
}

struct ScopeBuilder<'s> {
    scope: &'s mut LocalScope,
    nested: &'s FxHashMap<Span, NestedDef>,
    module_name: &'s str,
    is_package: bool,
}

impl ScopeBuilder<'_> {
    fn bind(&mut self, name: &Name, kind: LocalKind, stmt: Span, guards: &[Guard]) {
        self.scope.bindings.entry(name.clone()).or_default().push(LocalBinding { kind, stmt, guards: guards.to_vec() });
    }

    fn suite(&mut self, suite: &[Stmt], guards: &mut Vec<Guard>, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        let outer = guards.len();
        for stmt in suite {
            self.stmt(stmt, guards, depth);
            guards.extend(fallthrough_guards(stmt));
        }
        guards.truncate(outer);
    }

    fn stmt(&mut self, stmt: &Stmt, guards: &mut Vec<Guard>, depth: usize) {
        self.scope.statements.push((stmt.range().into(), guards.clone()));
        // `if (x := f()) is not None:` binds `x` in the function.
        let mut walrus = WalrusTargets { top: true, names: Vec::new() };
        ruff_python_ast::visitor::Visitor::visit_stmt(&mut walrus, stmt);
        for (name, value) in walrus.names {
            self.bind(&name, LocalKind::Value(value), stmt.range().into(), guards);
        }
        match stmt {
            Stmt::FunctionDef(def) => match self.nested.get(&Span::of(def)) {
                Some(NestedDef::Function(id)) => {
                    self.bind(&def.name.id, LocalKind::Function(*id), def.range.into(), guards)
                }
                _ => self.bind(&def.name.id, LocalKind::Other, def.range.into(), guards),
            },
            Stmt::ClassDef(def) => match self.nested.get(&Span::of(def)) {
                Some(NestedDef::Class(id)) => self.bind(&def.name.id, LocalKind::Class(*id), def.range.into(), guards),
                _ => self.bind(&def.name.id, LocalKind::Other, def.range.into(), guards),
            },
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    self.target(target, Some(&assign.value), stmt.range().into(), guards);
                }
            }
            Stmt::AnnAssign(assign) => {
                self.target(&assign.target, assign.value.as_deref(), stmt.range().into(), guards)
            }
            Stmt::AugAssign(assign) => self.target(&assign.target, None, stmt.range().into(), guards),
            Stmt::For(node) => self.target(&node.target, None, stmt.range().into(), guards),
            Stmt::With(node) => {
                for item in &node.items {
                    if let Some(vars) = &item.optional_vars {
                        self.target(vars, None, stmt.range().into(), guards);
                    }
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    match &alias.asname {
                        Some(asname) => self.bind(
                            &asname.id,
                            LocalKind::Import { module: alias.name.to_string() },
                            stmt.range().into(),
                            guards,
                        ),
                        None => {
                            let first = alias.name.split('.').next().unwrap_or_default().to_string();
                            self.bind(
                                &Name::new(&first),
                                LocalKind::Import { module: first.clone() },
                                stmt.range().into(),
                                guards,
                            );
                        }
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                if let Some(module) = crate::syntax::absolute_import(self.module_name, self.is_package, import) {
                    for alias in &import.names {
                        let name = alias.asname.as_ref().unwrap_or(&alias.name);
                        let kind = LocalKind::ImportFrom { module: module.clone(), name: alias.name.to_string() };
                        self.bind(&name.id, kind, stmt.range().into(), guards);
                    }
                }
            }
            Stmt::Global(node) => {
                self.scope.not_local.extend(node.names.iter().map(|n| n.id.clone()));
                self.scope.declared_global.extend(node.names.iter().map(|n| n.id.clone()));
            }
            Stmt::Nonlocal(node) => self.scope.not_local.extend(node.names.iter().map(|n| n.id.clone())),
            Stmt::Return(ret) => self.scope.returns.push(Return {
                value: ret.value.as_deref().map(|v| Arc::new(v.clone())),
                range: ret.range.into(),
                guards: guards.clone(),
            }),
            Stmt::Try(node) => {
                for handler in &node.handlers {
                    let ast::ExceptHandler::ExceptHandler(handler) = handler;
                    if let Some(name) = &handler.name {
                        self.bind(&name.id, LocalKind::Other, handler.range.into(), guards);
                    }
                }
            }
            _ => {}
        }
        for child in child_suites(stmt) {
            let outer = guards.len();
            guards.extend(child.guards);
            self.suite(child.body, guards, depth + 1);
            guards.truncate(outer);
        }
    }

    fn target(&mut self, target: &Expr, value: Option<&Expr>, stmt: Span, guards: &[Guard]) {
        let mut leaves = Vec::new();
        crate::syntax::unpack_targets(target, value, &mut leaves);
        for (leaf, value) in leaves {
            if let Expr::Name(name) = leaf {
                let kind = value.map_or(LocalKind::Other, |v| LocalKind::Value(Arc::new(v.clone())));
                self.bind(&name.id, kind, stmt, guards);
            }
        }
    }
}

impl LocalScope {
    pub fn is_local(&self, name: &str) -> bool {
        !self.not_local.contains(name) && self.bindings.contains_key(name)
    }

    /// The entries of the dict held by local `name` as the statement at `before` sees it, or
    /// `None` when the dict is not built from literals in this function.
    pub fn dict_entries(&self, name: &str, before: TextSize) -> Option<Vec<DictEntry>> {
        let module = self.module.as_ref()?;
        let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, self.def) else {
            return None;
        };
        let _ = def;
        let mut entries: Option<Vec<DictEntry>> = None;
        for (range, guards) in &self.statements {
            if range.start() >= before {
                break;
            }
            let Some(stmt) = crate::syntax::stmt_with_range(&module.body, *range) else {
                continue;
            };
            match stmt {
                Stmt::Assign(assign) if assign.targets.iter().any(|t| is_name(t, name)) => {
                    let mut fresh = Vec::new();
                    if !dict_literal(&assign.value, *range, guards, false, &mut fresh) {
                        return None;
                    }
                    entries = Some(fresh);
                }
                Stmt::Expr(expr) => {
                    let Expr::Call(call) = expr.value.as_ref() else {
                        continue;
                    };
                    let Expr::Attribute(attr) = call.func.as_ref() else {
                        continue;
                    };
                    if !is_name(&attr.value, name) || attr.attr.as_str() != "update" {
                        continue;
                    }
                    let list = entries.as_mut()?;
                    for arg in call.arguments.args.iter() {
                        if !dict_literal(arg, *range, guards, true, list) {
                            return None;
                        }
                    }
                    for keyword in call.arguments.keywords.iter() {
                        let Some(key) = &keyword.arg else { return None };
                        list.push(DictEntry {
                            key: key.to_string(),
                            value: Arc::new(keyword.value.clone()),
                            stmt: *range,
                            guards: guards.clone(),
                            is_update: true,
                        });
                    }
                }
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        if let Expr::Subscript(sub) = target {
                            if is_name(&sub.value, name) {
                                let list = entries.as_mut()?;
                                let key = sub.slice.as_string_literal_expr()?.value.to_str().to_string();
                                list.push(DictEntry {
                                    key,
                                    value: Arc::new((*assign.value).clone()),
                                    stmt: *range,
                                    guards: guards.clone(),
                                    is_update: true,
                                });
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        entries
    }
}

fn is_name(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == name)
}

/// Adds the entries of `dict(k=v)`, `{"k": v}` or a conditional of those; false when the
/// expression is not such a literal.
fn dict_literal(expr: &Expr, stmt: Span, guards: &[Guard], is_update: bool, out: &mut Vec<DictEntry>) -> bool {
    match expr {
        Expr::Dict(dict) => {
            for item in &dict.items {
                let Some(key) = item.key.as_ref().and_then(|k| k.as_string_literal_expr()) else {
                    return false;
                };
                out.push(DictEntry {
                    key: key.value.to_str().to_string(),
                    value: Arc::new(item.value.clone()),
                    stmt,
                    guards: guards.to_vec(),
                    is_update,
                });
            }
            true
        }
        Expr::Call(call)
            if matches!(call.func.as_ref(), Expr::Name(n) if n.id.as_str() == "dict")
                && call.arguments.args.is_empty() =>
        {
            for keyword in call.arguments.keywords.iter() {
                let Some(key) = &keyword.arg else {
                    return false;
                };
                out.push(DictEntry {
                    key: key.to_string(),
                    value: Arc::new(keyword.value.clone()),
                    stmt,
                    guards: guards.to_vec(),
                    is_update,
                });
            }
            true
        }
        Expr::If(ifexp) => {
            let mut yes = guards.to_vec();
            yes.push(Guard { range: ifexp.test.range().into(), kind: GuardKind::IfTrue });
            let mut no = guards.to_vec();
            no.push(Guard { range: ifexp.test.range().into(), kind: GuardKind::IfFalse });
            dict_literal(&ifexp.body, stmt, &yes, is_update, out)
                && dict_literal(&ifexp.orelse, stmt, &no, is_update, out)
        }
        _ => false,
    }
}

impl LocalScope {
    /// The guards around the statement with range `stmt` in this function's body.
    pub fn guards_of(&self, stmt: Span) -> Vec<Guard> {
        self.statements.iter().find(|(range, _)| *range == stmt).map(|(_, guards)| guards.clone()).unwrap_or_default()
    }

    /// The guards around the innermost statement of the body that contains `offset`.
    pub fn guards_around(&self, offset: TextSize) -> Vec<Guard> {
        self.statements
            .iter()
            .rev()
            .find(|(range, _)| range.range().contains(offset))
            .map(|(_, guards)| guards.clone())
            .unwrap_or_default()
    }
}
