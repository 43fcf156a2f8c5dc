//! Module-level names: bindings, imports, re-exports through `__init__`, star imports,
//! submodules, and attributes of modules and classes.

use std::sync::Arc;

use ruff_python_ast::name::Name;

use super::{Cond, Def, Found, Hop, HopKind, Resolver};
use crate::index::{Binding, BindingKind, ClassId, FileId};

impl Resolver<'_> {
    /// Every definition the module-level name `name` of `file` may denote. Follows imports,
    /// re-exports and star imports; conditional bindings all count, each with its guards.
    pub fn global(&self, file: FileId, name: &str) -> Arc<Vec<Found>> {
        self.global_in(file, name, &mut super::exprs::Walk::default())
    }

    pub(super) fn global_in(&self, file: FileId, name: &str, walk: &mut super::exprs::Walk) -> Arc<Vec<Found>> {
        let key = (file, Name::new(name));
        if let Some(found) = self.globals.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return found.clone();
        }
        if walk.names.contains(&key) || walk.names.len() > super::MAX_DEPTH {
            walk.cut += 1;
            // An import cycle (`a` imports `x` from `b`, which imports it from `a`).
            return Arc::new(vec![Found::unresolved(format!("import cycle while looking up `{name}`"))]);
        }
        let cut_before = walk.cut;
        walk.names.push(key.clone());
        let found = Arc::new(self.compute_global(file, name, walk));
        walk.names.pop();
        if walk.cut == cut_before {
            self.globals.write().unwrap_or_else(|e| e.into_inner()).insert(key, found.clone());
        }
        found
    }

    fn compute_global(&self, file: FileId, name: &str, walk: &mut super::exprs::Walk) -> Vec<Found> {
        let facts = &self.index.file(file).facts;
        let mut out = Vec::new();
        for binding in facts.bindings.iter().filter(|b| b.name.as_str() == name) {
            out.extend(self.binding_def(file, None, binding, walk));
        }
        if out.is_empty() {
            for star in &facts.star_imports {
                let Some(source) = self.index.module(&star.module) else {
                    continue;
                };
                if !self.exports(source, name) {
                    continue;
                }
                let hop = Hop { file, range: star.range, kind: HopKind::StarImport };
                let found = self.global_in(source, name, walk);
                out.extend(
                    found
                        .iter()
                        .filter(|f| !matches!(f.def, Def::Unresolved(_)))
                        .cloned()
                        .map(|f| f.behind(Some(hop.clone()), &[])),
                );
            }
        }
        if out.is_empty() {
            let module = &self.index.file(file).module;
            if self.index.file(file).is_package {
                let sub = format!("{module}.{name}");
                if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                    out.push(Found::new(self.module_def(&sub)));
                }
            }
        }
        out
    }

    /// Whether `from module import *` brings `name`: `__all__` when the module spells it out,
    /// otherwise every name without a leading underscore.
    fn exports(&self, module: FileId, name: &str) -> bool {
        match &self.index.file(module).facts.dunder_all {
            Some(all) => all.iter().any(|n| n.as_str() == name),
            None => !name.starts_with('_'),
        }
    }

    /// What one binding statement binds its name to. `class` is set for class-body bindings.
    pub(super) fn binding_def(
        &self,
        file: FileId,
        class: Option<ClassId>,
        binding: &Binding,
        walk: &mut super::exprs::Walk,
    ) -> Vec<Found> {
        let conds: Vec<Cond> = binding.guards.iter().map(|&guard| Cond { file, guard }).collect();
        let hop = |kind| Some(Hop { file, range: binding.range, kind });
        let found = match &binding.kind {
            BindingKind::Class(c) => vec![Found::new(Def::Class(*c))],
            BindingKind::Function(f) => vec![Found::new(Def::Function(*f))],
            BindingKind::Import { module } => {
                vec![Found::new(self.module_def(module)).behind(hop(HopKind::Import), &[])]
            }
            BindingKind::ImportFrom { module, name } => {
                self.import_from(module, name, walk).into_iter().map(|f| f.behind(hop(HopKind::Import), &[])).collect()
            }
            BindingKind::Value { value: Some(value) } => {
                let ctx = super::Ctx { file, function: None, class };
                self.resolve_value(&ctx, value, walk)
                    .into_iter()
                    .map(|f| f.behind(hop(if class.is_some() { HopKind::ClassAttribute } else { HopKind::Alias }), &[]))
                    .collect()
            }
            BindingKind::Value { value: None } | BindingKind::Annotated { .. } | BindingKind::Other => {
                vec![Found::new(Def::Opaque { file, range: binding.range, name: binding.name.clone() })]
            }
        };
        found.into_iter().map(|f| f.behind(None, &conds)).collect()
    }

    /// `from module import name`.
    pub(super) fn import_from(&self, module: &str, name: &str, walk: &mut super::exprs::Walk) -> Vec<Found> {
        if let Some(file) = self.index.module(module) {
            let found = self.global_in(file, name, walk);
            if !found.is_empty() {
                return found.to_vec();
            }
            // `from pkg import sub` where `sub` is a submodule not otherwise bound in pkg.
            let sub = format!("{module}.{name}");
            if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                return vec![Found::new(self.module_def(&sub))];
            }
            return vec![Found::unresolved(format!("`{name}` is not defined in module {module}"))];
        }
        if self.index.is_package(module) {
            let sub = format!("{module}.{name}");
            if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                return vec![Found::new(self.module_def(&sub))];
            }
            return vec![Found::unresolved(format!("no module {sub} in the tree"))];
        }
        vec![Found::new(Def::External(format!("{module}.{name}")))]
    }

    /// `module.attr` for a module of the tree.
    pub(super) fn module_member(&self, file: FileId, attr: &str, walk: &mut super::exprs::Walk) -> Vec<Found> {
        let found = self.global_in(file, attr, walk);
        if !found.is_empty() {
            return found.to_vec();
        }
        let sub = format!("{}.{attr}", self.index.file(file).module);
        if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
            return vec![Found::new(self.module_def(&sub))];
        }
        vec![Found::unresolved(format!("module {} has no attribute `{attr}`", self.index.file(file).module))]
    }

    /// Resolves a dotted path (`pkg.mod.Class.method`) from the top: the longest prefix that is
    /// a module, then attributes.
    pub fn resolve_path(&self, dotted: &str) -> Vec<Found> {
        let parts: Vec<&str> = dotted.split('.').collect();
        for split in (1..=parts.len()).rev() {
            let module = parts[..split].join(".");
            let Some(file) = self.index.module(&module) else {
                continue;
            };
            let mut current = vec![Found::new(Def::Module(file))];
            for attr in &parts[split..] {
                let mut next = Vec::new();
                for found in current {
                    next.extend(
                        self.attribute(&found.def, attr, &mut super::exprs::Walk::default())
                            .into_iter()
                            .map(|f| f.behind(None, &found.conds)),
                    );
                }
                current = next;
            }
            return current;
        }
        vec![Found::unresolved(format!("no module of the tree is a prefix of `{dotted}`"))]
    }

    /// `def.attr`, for definitions whose attributes are known without evaluating code.
    pub(super) fn attribute(&self, def: &Def, attr: &str, walk: &mut super::exprs::Walk) -> Vec<Found> {
        match def {
            Def::Module(file) => self.module_member(*file, attr, walk),
            Def::Namespace(package) => {
                let sub = format!("{package}.{attr}");
                if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                    vec![Found::new(self.module_def(&sub))]
                } else {
                    vec![Found::unresolved(format!("no module {sub} in the tree"))]
                }
            }
            Def::Class(class) => self.class_member(*class, attr, walk),
            Def::External(path) => vec![Found::new(Def::External(format!("{path}.{attr}")))],
            other => vec![Found::unresolved(format!("attribute `{attr}` of {}", self.describe(other)))],
        }
    }

    /// A class attribute (method, nested class, class-level value) through the MRO.
    pub(super) fn class_member(&self, class: ClassId, attr: &str, walk: &mut super::exprs::Walk) -> Vec<Found> {
        let mro = self.mro(class);
        for base in &mro.classes {
            let facts = self.index.class(*base);
            let bindings: Vec<&Binding> = facts.body.iter().filter(|b| b.name.as_str() == attr).collect();
            if !bindings.is_empty() {
                return bindings.into_iter().flat_map(|b| self.binding_def(base.file, Some(*base), b, walk)).collect();
            }
        }
        if let Some(external) = mro.external.first() {
            return vec![Found::new(Def::External(format!("{external}.{attr}")))];
        }
        vec![Found::unresolved(format!("class {} has no attribute `{attr}`", self.index.class_path(class)))]
    }
}
