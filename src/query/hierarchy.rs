//! `scaletrace hierarchy CLASS`: the class's definition, its bases resolved to their files, the
//! C3 MRO, known subclasses, which class of the MRO provides each method, and where each
//! instance attribute is set (with what it holds when that is known).

use serde::Serialize;

use super::common::*;
use crate::index::{BindingKind, ClassId, FunctionKind};
use crate::resolve::mro::MroEntry;
use crate::resolve::{Cond, Def, Resolver, Walk};

#[derive(Clone, Debug, Serialize)]
pub struct HierarchyReport {
    pub class: ClassRef,
    pub bases: Vec<BaseOut>,
    /// The C3 linearization, the class first (`object` left out).
    pub mro: Vec<MroItem>,
    /// Why the MRO is partial (cycle, conflict, unresolved base), when it is.
    pub mro_problems: Vec<String>,
    /// Subclasses in the tree, transitively; `base` is the class each one derives from.
    pub subclasses: Vec<Subclass>,
    pub methods: Vec<MethodOut>,
    pub attributes: Vec<AttributeOut>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BaseOut {
    pub code: String,
    pub resolved: Vec<Denotes>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MroItem {
    pub path: String,
    /// None for classes outside the tree.
    pub location: Option<Location>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Subclass {
    pub class: ClassRef,
    pub base: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct MethodOut {
    pub name: String,
    pub kind: FunctionKind,
    /// The definition an instance of the class uses: the first in the MRO.
    pub provided_by: FunctionRef,
    /// Definitions further along the MRO that it overrides.
    pub overrides: Vec<FunctionRef>,
    /// Definitions in subclasses that override it.
    pub overridden_in: Vec<FunctionRef>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AttributeOut {
    pub name: String,
    pub assignments: Vec<AttributeWriteOut>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AttributeWriteOut {
    /// `Class.method` that assigns it, or `Class` for a class-level assignment.
    pub by: String,
    pub location: Location,
    pub code: String,
    pub conditions: Vec<Condition>,
    /// Classes, modules and functions the value denotes, where resolution knows (the class of
    /// an object built there, a factory's possible results).
    pub holds: Vec<Denotes>,
}

pub fn hierarchy(resolver: &Resolver, class: ClassId, member: Option<&str>) -> HierarchyReport {
    let index = resolver.index;
    let mro = resolver.mro(class);
    let bases = resolver
        .bases(class)
        .into_iter()
        .map(|b| BaseOut { code: b.text, resolved: b.found.iter().map(|f| denotes(resolver, f)).collect() })
        .collect();
    let mro_items = mro
        .entries
        .iter()
        .map(|e| match e {
            MroEntry::Class(c) => MroItem {
                path: index.class_path(*c),
                location: Some(Location::new(index, c.file, index.class(*c).name_range)),
            },
            MroEntry::External(p) => MroItem { path: p.clone(), location: None },
            MroEntry::Unresolved(t) => MroItem { path: format!("{t} (unresolved)"), location: None },
        })
        .collect();

    let mut subclasses = Vec::new();
    let mut queue = vec![class];
    let mut seen = vec![class];
    while let Some(next) = queue.pop() {
        for &sub in resolver.direct_subclasses(next) {
            if !seen.contains(&sub) {
                seen.push(sub);
                queue.push(sub);
                subclasses.push(Subclass { class: ClassRef::new(index, sub), base: index.class_path(next) });
            }
        }
    }
    subclasses.sort_by(|a, b| a.class.path.cmp(&b.class.path));
    let all_subclasses: Vec<ClassId> = seen[1..].to_vec();

    // Methods: every name defined by a function in an MRO class, provided by the first.
    let mut methods: Vec<MethodOut> = Vec::new();
    for base in &mro.classes {
        for binding in &index.class(*base).body {
            let BindingKind::Function(func) = binding.kind else { continue };
            let facts = index.function(func);
            if facts.kind == FunctionKind::PropertyAccessor || member.is_some_and(|m| m != facts.name.as_str()) {
                continue;
            }
            match methods.iter_mut().find(|m| m.name == facts.name.as_str()) {
                Some(existing) => {
                    if existing.provided_by.path != index.function_path(func) {
                        existing.overrides.push(FunctionRef::new(index, func));
                    }
                }
                None => methods.push(MethodOut {
                    name: facts.name.to_string(),
                    kind: facts.kind,
                    provided_by: FunctionRef::new(index, func),
                    overrides: Vec::new(),
                    overridden_in: Vec::new(),
                }),
            }
        }
    }
    for method in &mut methods {
        for sub in &all_subclasses {
            for binding in index.class(*sub).body.iter().filter(|b| b.name.as_str() == method.name) {
                if let BindingKind::Function(func) = binding.kind {
                    method.overridden_in.push(FunctionRef::new(index, func));
                }
            }
        }
        method.overridden_in.sort();
        method.overridden_in.dedup();
    }
    methods.sort_by(|a, b| a.name.cmp(&b.name));

    let mut attributes: Vec<AttributeOut> = Vec::new();
    for base in &mro.classes {
        let facts = index.class(*base);
        let class_path = index.class_path(*base);
        for write in &facts.attr_writes {
            if member.is_some_and(|m| m != write.name.as_str()) {
                continue;
            }
            let guards = resolver.guards_at(write.method, write.stmt);
            let conds: Vec<Cond> = guards.iter().map(|&guard| Cond { file: base.file, guard }).collect();
            let holds = resolver
                .attr_write_value(write, &mut Walk::default())
                .iter()
                .filter(|f| {
                    matches!(
                        f.def,
                        Def::Instance(_)
                            | Def::Class(_)
                            | Def::Module(_)
                            | Def::Function(_)
                            | Def::BoundMethod { .. }
                            | Def::Constant(_)
                            | Def::External(_)
                    )
                })
                .map(|f| denotes(resolver, f))
                .collect();
            let out = AttributeWriteOut {
                by: format!("{class_path}.{}", index.function(write.method).name),
                location: Location::new(index, base.file, write.stmt),
                code: code(index, base.file, write.stmt),
                conditions: conditions(index, &conds),
                holds,
            };
            match attributes.iter_mut().find(|a| a.name == write.name.as_str()) {
                Some(existing) => existing.assignments.push(out),
                None => attributes.push(AttributeOut { name: write.name.to_string(), assignments: vec![out] }),
            }
        }
    }
    attributes.sort_by(|a, b| a.name.cmp(&b.name));

    HierarchyReport {
        class: ClassRef::new(index, class),
        bases,
        mro: mro_items,
        mro_problems: mro.problems.clone(),
        subclasses,
        methods,
        attributes,
    }
}
