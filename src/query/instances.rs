//! `scaletrace instances CLASS`: every site that constructs a class — by name, alias, module
//! attribute, conditional class expression, factory, `cls(...)` or `type(self)(...)` — with
//! its arguments bound to `__init__`'s parameters and the conditions around it.

use std::sync::Mutex;

use rayon::prelude::*;
use ruff_python_ast::{Expr, ExprCall};
use ruff_text_size::Ranged;
use rustc_hash::FxHashSet;
use serde::Serialize;

use super::args::{ParamBinding, bind, render};
use super::common::*;
use super::walk::{Place, Visit, enclosing_name, files_mentioning, walk_module};
use crate::index::{BindingKind, ClassId, FileId, FuncId, Param, ParamKind};
use crate::resolve::{Ctx, Def, Found, Resolver};
use crate::syntax::{Span, snippet};

#[derive(Clone, Debug, Serialize)]
pub struct InstancesReport {
    pub class: ClassRef,
    /// The classes whose construction is listed: the class, and its subclasses with
    /// `--subclasses`.
    pub classes: Vec<ClassRef>,
    pub sites: Vec<InstanceSite>,
    pub unresolved: Vec<Unresolved>,
    /// Names that can denote the class (its name, aliases, factories), as found.
    pub names: Vec<String>,
    pub files_searched: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct InstanceSite {
    pub location: Location,
    /// `Class.method` (or `<module>`) holding the call.
    pub enclosing: String,
    /// The source line of the call.
    pub line: String,
    pub class: ClassRef,
    /// How the callee denotes the class, one entry per way (a factory may return it from
    /// several `return`s).
    pub ways: Vec<Way>,
    /// Conditions around the call in its function.
    pub conditions: Vec<Condition>,
    /// The `__init__` the arguments bind to, when it is in the tree.
    pub init: Option<FunctionRef>,
    pub arguments: Vec<ParamBinding>,
}

/// Bound on the rounds of alias and factory discovery.
const MAX_ROUNDS: usize = 8;

pub fn instances(resolver: &Resolver, class: ClassId, with_subclasses: bool) -> InstancesReport {
    let index = resolver.index;
    let mut targets = vec![class];
    if with_subclasses {
        targets.extend(resolver.all_subclasses(class));
    }
    let target_set: FxHashSet<ClassId> = targets.iter().copied().collect();
    let names = denoting_names(resolver, &target_set);
    let mut files = files_mentioning(index, &names);
    files.extend(targets.iter().map(|c| c.file));
    files.sort();
    files.dedup();

    let results: Vec<(Vec<InstanceSite>, Vec<Unresolved>)> = files
        .par_iter()
        .map(|&file| {
            let module = index.file(file).ast();
            let mut finder =
                SiteFinder { resolver, targets: &target_set, names: &names, sites: Vec::new(), unresolved: Vec::new() };
            walk_module(index, file, &module, &mut finder);
            (finder.sites, finder.unresolved)
        })
        .collect();
    let mut sites: Vec<InstanceSite> = Vec::new();
    let mut unresolved: Vec<Unresolved> = Vec::new();
    for (s, u) in results {
        sites.extend(s);
        unresolved.extend(u);
    }
    sites.sort_by(|a, b| (&a.location, &a.class).cmp(&(&b.location, &b.class)));
    unresolved.sort();
    unresolved.dedup();
    InstancesReport {
        class: ClassRef::new(index, class),
        classes: targets.iter().map(|c| ClassRef::new(index, *c)).collect(),
        sites,
        unresolved,
        names,
        files_searched: files.len(),
    }
}

/// Names that may denote one of `targets`: their own names, then (to a fixpoint) names bound to
/// an expression that resolves to one (aliases) and functions that return one (factories).
pub fn denoting_names(resolver: &Resolver, targets: &FxHashSet<ClassId>) -> Vec<String> {
    let index = resolver.index;
    let mut names: Vec<String> = targets.iter().map(|c| index.class(*c).name.to_string()).collect();
    names.sort();
    names.dedup();
    let denotes_target = |found: &[Found]| found.iter().any(|f| matches!(f.def, Def::Class(c) if targets.contains(&c)));
    for _ in 0..MAX_ROUNDS {
        let files = files_mentioning(index, &names);
        let found: Mutex<Vec<String>> = Mutex::new(Vec::new());
        files.par_iter().for_each(|&file| {
            let facts = &index.file(file).facts;
            let text = index.file(file).text.as_bytes();
            let mentions = |span: Span| {
                names
                    .iter()
                    .any(|n| super::walk::contains_word(&text[span.start as usize..span.end as usize], n.as_bytes()))
            };
            let mut new = Vec::new();
            let module_values = facts.bindings.iter().map(|b| (b, Ctx::module(file)));
            let class_values = facts.classes.iter().enumerate().flat_map(|(i, c)| {
                let ctx = Ctx { file, function: None, class: Some(ClassId { file, local: i as u32 }) };
                c.body.iter().map(move |b| (b, ctx))
            });
            for (binding, ctx) in module_values.chain(class_values) {
                if let BindingKind::Value { value: Some(value) } = &binding.kind {
                    if mentions(Span::of(&**value)) && denotes_target(&resolver.resolve(&ctx, value)) {
                        new.push(binding.name.to_string());
                    }
                }
            }
            for local in 0..facts.functions.len() as u32 {
                let func = FuncId { file, local };
                if !mentions(facts.functions[local as usize].range) {
                    continue;
                }
                let scope = resolver.local_scope(func);
                let ctx = Ctx::function(func);
                for (name, bindings) in &scope.bindings {
                    for binding in bindings {
                        if let crate::resolve::LocalKind::Value(value) = &binding.kind {
                            if mentions(Span::of(&**value)) && denotes_target(&resolver.resolve(&ctx, value)) {
                                new.push(name.to_string());
                            }
                        }
                    }
                }
                let returns_target = scope
                    .returns
                    .iter()
                    .filter_map(|r| r.value.as_ref())
                    .filter(|v| mentions(Span::of(&***v)))
                    .any(|v| denotes_target(&resolver.resolve(&ctx, v)));

                if returns_target {
                    new.push(facts.functions[local as usize].name.to_string());
                }
            }
            found.lock().unwrap_or_else(|e| e.into_inner()).extend(new);
        });
        let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        found.retain(|n| !names.contains(n));
        if found.is_empty() {
            break;
        }
        names.extend(found);
        names.sort();
        names.dedup();
    }
    names
}

struct SiteFinder<'r, 'a> {
    resolver: &'r Resolver<'a>,
    targets: &'r FxHashSet<ClassId>,
    names: &'r [String],
    sites: Vec<InstanceSite>,
    unresolved: Vec<Unresolved>,
}

/// Callees that can denote a class without naming it.
fn names_own_class(callee: &Expr) -> bool {
    match callee {
        Expr::Name(name) => name.id.as_str() == "cls",
        Expr::Call(call) => matches!(call.func.as_ref(), Expr::Name(n) if n.id.as_str() == "type"),
        Expr::Attribute(attr) => attr.attr.as_str() == "__class__",
        _ => false,
    }
}

impl Visit for SiteFinder<'_, '_> {
    fn expr(&mut self, place: &Place, expr: &Expr) {
        let Expr::Call(call) = expr else { return };
        let index = self.resolver.index;
        let file = place.ctx.file;
        let callee_text = snippet(&index.file(file).text, call.func.range());
        let mentions = self.names.iter().any(|n| super::walk::contains_word(callee_text.as_bytes(), n.as_bytes()));
        if !mentions && !names_own_class(&call.func) {
            return;
        }
        let found = self.resolver.resolve(&place.ctx, &call.func);
        let mut by_class: Vec<(ClassId, Vec<&Found>)> = Vec::new();
        for f in &found {
            if let Def::Class(c) = f.def {
                if self.targets.contains(&c) {
                    match by_class.iter_mut().find(|(k, _)| *k == c) {
                        Some((_, ways)) => ways.push(f),
                        None => by_class.push((c, vec![f])),
                    }
                }
            }
        }
        if by_class.is_empty() {
            if mentions {
                for f in &found {
                    if let Def::Unresolved(reason) = &f.def {
                        self.unresolved.push(Unresolved::new(index, file, call.func.range(), reason.clone()));
                    }
                }
            }
            return;
        }
        for (class, ways) in by_class {
            self.sites.push(self.site(place, call, class, &ways));
        }
    }
}

impl SiteFinder<'_, '_> {
    fn site(&self, place: &Place, call: &ExprCall, class: ClassId, ways: &[&Found]) -> InstanceSite {
        let resolver = self.resolver;
        let index = resolver.index;
        let file = place.ctx.file;
        let location = Location::new(index, file, call.range());
        let ways = ways_of(index, ways.iter().copied(), place.conds);

        let (init, arguments) = bind_constructor(resolver, &place.ctx, call, class);
        InstanceSite {
            line: index.file(file).line_text(location.line).trim().to_string(),
            location,
            enclosing: enclosing_name(index, &place.ctx),
            class: ClassRef::new(index, class),
            ways,
            conditions: conditions(index, place.conds),
            init: init.map(|f| FunctionRef::new(index, f)),
            arguments,
        }
    }
}

/// The parameters a call of `class` binds: its `__init__` through the MRO, or the fields of a
/// NamedTuple / dataclass.
pub fn constructor_params(resolver: &Resolver, class: ClassId) -> Option<(Option<FuncId>, Vec<Param>, FileId)> {
    let index = resolver.index;
    let mro = resolver.mro(class);
    for base in &mro.classes {
        let facts = index.class(*base);
        for binding in facts.body.iter().filter(|b| b.name.as_str() == "__init__") {
            if let BindingKind::Function(func) = binding.kind {
                let params = index.function(func).call_params().to_vec();
                return Some((Some(func), params, func.file));
            }
        }
    }
    // NamedTuple, dataclass and `msgspec.Struct` fields, in definition order from the root base
    // down.
    let is_record = mro.is_named_tuple()
        || mro.external.iter().any(|e| is_msgspec_struct(e))
        || mro.classes.iter().any(|c| {
            index.class(*c).decorators.iter().any(|d| {
                crate::syntax::dotted_name(match d {
                    Expr::Call(call) => &call.func,
                    other => other,
                })
                .is_some_and(|n| n.ends_with("dataclass"))
            })
        });
    if !is_record {
        return None;
    }
    let mut params: Vec<Param> = Vec::new();
    for base in mro.classes.iter().rev() {
        let facts = index.class(*base);
        for binding in &facts.body {
            let (default, annotation) = match &binding.kind {
                BindingKind::Annotated { annotation } => (None, Some(annotation.clone())),
                BindingKind::Value { value } if is_annotated(resolver, *base, binding.range) => (value.clone(), None),
                _ => continue,
            };
            params.retain(|p| p.name != binding.name);
            params.push(Param {
                name: binding.name.clone(),
                kind: ParamKind::PositionalOrKeyword,
                default,
                annotation,
                range: binding.range,
            });
        }
    }
    Some((None, params, class.file))
}

/// Whether the class-body statement at `span` is an annotated assignment (`x: int = 0`).
fn is_annotated(resolver: &Resolver, class: ClassId, span: Span) -> bool {
    let text = resolver.index.file(class.file).text.as_bytes();
    let stmt = &text[span.start as usize..span.end as usize];
    let colon = stmt.iter().position(|&b| b == b':');
    let equals = stmt.iter().position(|&b| b == b'=');
    matches!((colon, equals), (Some(c), Some(e)) if c < e)
}

pub fn bind_constructor(
    resolver: &Resolver,
    ctx: &Ctx,
    call: &ExprCall,
    class: ClassId,
) -> (Option<FuncId>, Vec<ParamBinding>) {
    let Some((init, params, defaults_file)) = constructor_params(resolver, class) else {
        return (None, Vec::new());
    };
    let bound = bind(resolver, ctx, call.range().start(), &call.arguments, &params, defaults_file);
    let arguments = bound
        .into_iter()
        .map(|(i, raws)| ParamBinding {
            param: params[i].name.to_string(),
            kind: params[i].kind,
            values: raws.iter().map(|r| render(resolver, r)).collect(),
        })
        .collect();
    (init, arguments)
}

/// Whether an outside base is `msgspec.Struct` (a record: fields from its annotations).
pub fn is_msgspec_struct(base: &str) -> bool {
    matches!(base, "msgspec.Struct" | "msgspec.structs.Struct")
}
