//! `scaletrace bindings CALLABLE PARAM` (or `--any PARAM`): every value bound to a parameter at
//! every call site — keyword, positional, `**dict` entry or default — with its constant value or
//! where it comes from, one hop back.

use rayon::prelude::*;
use ruff_python_ast::Expr;
use ruff_text_size::Ranged;
use rustc_hash::FxHashSet;
use serde::Serialize;

use super::args::{ArgValue, bind, render};
use super::common::*;
use super::instances::constructor_params;
use super::origin::{Origin, origins};
use super::target::{Target, TargetError};
use super::walk::{Place, Visit, contains_word, enclosing_name, files_mentioning, walk_module};
use crate::index::{ClassId, FileId, FuncId, FunctionKind, Param};
use crate::resolve::{Ctx, Def, Found, Resolver};
use crate::syntax::snippet;

#[derive(Clone, Debug, Serialize)]
pub struct BindingsReport {
    pub param: String,
    /// The callables whose parameter is listed (one, or every one with `--any`).
    pub callables: Vec<String>,
    pub sites: Vec<BindingSite>,
    pub unresolved: Vec<Unresolved>,
    pub files_searched: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct BindingSite {
    pub location: Location,
    pub enclosing: String,
    pub line: String,
    /// The function whose parameter is bound (a class's `__init__`, a method, a function), or
    /// the class for NamedTuple/dataclass fields.
    pub callee: String,
    /// How the callee expression leads to it, one entry per way (with the conditions that
    /// choose it: a factory's `return`, a conditional alias).
    pub ways: Vec<Way>,
    /// Conditions around the call.
    pub conditions: Vec<Condition>,
    pub values: Vec<BoundValue>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoundValue {
    #[serde(flatten)]
    pub arg: ArgValue,
    /// Where a non-constant value comes from, one hop back.
    pub origins: Vec<Origin>,
}

/// What the user asked about.
pub enum Callables {
    One(Target),
    Any,
}

/// A callable whose parameter `param` is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Callee {
    Function(FuncId),
    /// A NamedTuple or dataclass constructed through its generated `__init__`.
    Record(ClassId),
}

pub fn bindings(resolver: &Resolver, callables: Callables, param: &str) -> Result<BindingsReport, TargetError> {
    let index = resolver.index;
    let mut targets: FxHashSet<Callee> = FxHashSet::default();
    let mut words: Vec<String> = vec![param.to_string()];
    match callables {
        Callables::One(Target::Function(func)) => {
            let facts = index.function(func);
            if facts.param(param).is_none() {
                return Err(no_such_param(param, &index.function_path(func), &facts.params));
            }
            targets.insert(Callee::Function(func));
            words.push(facts.name.to_string());
            if let Some(class) = facts.class() {
                if facts.name.as_str() == "__init__" {
                    words.push(index.class(class).name.to_string());
                    words.extend(resolver.all_subclasses(class).iter().map(|c| index.class(*c).name.to_string()));
                }
                if matches!(facts.name.as_str(), "forward" | "__call__") {
                    words.push("self".into());
                }
            }
        }
        Callables::One(Target::Class(class)) => {
            let Some((init, params, _)) = constructor_params(resolver, class) else {
                return Err(TargetError::WrongKind {
                    spec: index.class_path(class),
                    what: "a class whose __init__ is not in the tree".into(),
                    wanted: "a class with a known constructor",
                });
            };
            if !params.iter().any(|p| p.name.as_str() == param) {
                return Err(no_such_param(param, &index.class_path(class), &params));
            }
            targets.insert(init.map_or(Callee::Record(class), Callee::Function));
            words.push(index.class(class).name.to_string());
            words.extend(resolver.all_subclasses(class).iter().map(|c| index.class(*c).name.to_string()));
        }
        Callables::One(Target::Module(file)) => {
            return Err(TargetError::WrongKind {
                spec: index.file(file).module.clone(),
                what: "a module".into(),
                wanted: "a callable",
            });
        }
        Callables::Any => {
            for func in index.all_functions() {
                if index.function(func).call_params().iter().any(|p| p.name.as_str() == param) {
                    targets.insert(Callee::Function(func));
                }
            }
            for class in index.all_classes() {
                if let Some((None, params, _)) = constructor_params(resolver, class) {
                    if params.iter().any(|p| p.name.as_str() == param) {
                        targets.insert(Callee::Record(class));
                    }
                }
            }
        }
    }
    // Constructors are reached through class names, aliases and factories too.
    let constructed: FxHashSet<ClassId> = index
        .all_classes()
        .filter(|c| match constructor_params(resolver, *c) {
            Some((Some(init), _, _)) => targets.contains(&Callee::Function(init)),
            Some((None, _, _)) => targets.contains(&Callee::Record(*c)),
            None => false,
        })
        .collect();
    if !constructed.is_empty() {
        words.extend(super::instances::denoting_names(resolver, &constructed));
    }
    for callee in &targets {
        if let Callee::Function(func) = callee {
            words.push(index.function(*func).name.to_string());
        }
    }
    words.sort();
    words.dedup();
    let mut files = files_mentioning(index, &words);

    files.sort();
    let results: Vec<(Vec<BindingSite>, Vec<Unresolved>)> = files
        .par_iter()
        .map(|&file| {
            let module = index.file(file).ast();
            let mut finder =
                Finder { resolver, targets: &targets, param, words: &words, sites: Vec::new(), unresolved: Vec::new() };
            walk_module(index, file, &module, &mut finder);
            (finder.sites, finder.unresolved)
        })
        .collect();
    let mut sites = Vec::new();
    let mut unresolved = Vec::new();
    for (s, u) in results {
        sites.extend(s);
        unresolved.extend(u);
    }
    sites.sort_by(|a: &BindingSite, b: &BindingSite| (&a.location, &a.callee).cmp(&(&b.location, &b.callee)));
    // A callee reached several ways (a factory returning it twice, a name imported twice in
    // one function) is one site with several ways.
    let mut merged: Vec<BindingSite> = Vec::new();
    for site in sites {
        match merged.last_mut() {
            Some(last) if last.location == site.location && last.callee == site.callee => {
                last.ways.extend(site.ways);
                last.ways.sort();
                last.ways.dedup();
            }
            _ => merged.push(site),
        }
    }
    let sites = merged;
    unresolved.sort();
    unresolved.dedup();
    let mut callables: Vec<String> = targets.iter().map(|c| callee_path(resolver, *c)).collect();
    callables.sort();
    Ok(BindingsReport { param: param.to_string(), callables, sites, unresolved, files_searched: files.len() })
}

fn no_such_param(param: &str, callable: &str, params: &[Param]) -> TargetError {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    TargetError::WrongKind {
        spec: callable.to_string(),
        what: format!("a callable without a parameter `{param}` (its parameters: {})", names.join(", ")),
        wanted: "one with it",
    }
}

fn callee_path(resolver: &Resolver, callee: Callee) -> String {
    match callee {
        Callee::Function(f) => resolver.index.function_path(f),
        Callee::Record(c) => resolver.index.class_path(c),
    }
}

struct Finder<'r, 'a> {
    resolver: &'r Resolver<'a>,
    targets: &'r FxHashSet<Callee>,
    param: &'r str,
    words: &'r [String],
    sites: Vec<BindingSite>,
    unresolved: Vec<Unresolved>,
}

impl Visit for Finder<'_, '_> {
    fn expr(&mut self, place: &Place, expr: &Expr) {
        let Expr::Call(call) = expr else { return };
        let index = self.resolver.index;
        let file = place.ctx.file;
        let callee_text = snippet(&index.file(file).text, call.func.range());
        let has_keyword =
            call.arguments.keywords.iter().any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == self.param));
        let mentions = self.words.iter().any(|w| contains_word(callee_text.as_bytes(), w.as_bytes()));
        let own_class = matches!(call.func.as_ref(), Expr::Name(n) if n.id.as_str() == "cls")
            || callee_text.starts_with("super(")
            || callee_text.starts_with("type(");
        let splats = call.arguments.keywords.iter().any(|k| k.arg.is_none());
        if !mentions && !has_keyword && !own_class && !splats {
            return;
        }
        let found = self.resolver.resolve(&place.ctx, &call.func);
        let mut matched = false;
        for alternative in &found {
            for (callee, params, defaults_file) in self.callees(&alternative.def) {
                if !self.targets.contains(&callee) {
                    continue;
                }
                let bound =
                    bind(self.resolver, &place.ctx, call.range().start(), &call.arguments, &params, defaults_file);
                let Some((_, raws)) = bound.into_iter().find(|(i, _)| params[*i].name.as_str() == self.param) else {
                    continue;
                };
                if raws.is_empty() {
                    continue;
                }
                matched = true;
                let values = raws
                    .iter()
                    .map(|raw| {
                        let arg = render(self.resolver, raw);
                        let origin_ctx = if raw.file == file { place.ctx } else { Ctx::module(raw.file) };
                        let origins = match (&raw.expr, arg.value.is_some()) {
                            (Some(expr), false) => origins(self.resolver, &origin_ctx, expr),
                            _ => Vec::new(),
                        };
                        BoundValue { arg, origins }
                    })
                    .collect();
                let location = Location::new(index, file, call.range());
                self.sites.push(BindingSite {
                    line: index.file(file).line_text(location.line).trim().to_string(),
                    location,
                    enclosing: enclosing_name(index, &place.ctx),
                    callee: callee_path(self.resolver, callee),
                    ways: ways_of(index, std::iter::once(alternative), place.conds),
                    conditions: conditions(index, place.conds),
                    values,
                });
            }
        }
        let is_dict_update = matches!(call.func.as_ref(), Expr::Attribute(a) if a.attr.as_str() == "update" && matches!(a.value.as_ref(), Expr::Name(_)));
        if !matched && has_keyword && !is_dict_update {
            // A keyword of that name goes to a callee that could not be resolved.
            let reasons: Vec<&Found> = found
                .iter()
                .filter(|f| matches!(f.def, Def::Unresolved(_) | Def::Param { .. } | Def::Opaque { .. }))
                .collect();
            for f in reasons {
                self.unresolved.push(Unresolved::new(
                    index,
                    file,
                    call.func.range(),
                    format!(
                        "`{}=` passed to a callee that was not resolved: {}",
                        self.param,
                        self.resolver.describe(&f.def)
                    ),
                ));
            }
        }
    }
}

impl Finder<'_, '_> {
    /// The callables a callee alternative calls, with the parameters its arguments bind to.
    fn callees(&self, def: &Def) -> Vec<(Callee, Vec<Param>, FileId)> {
        let index = self.resolver.index;
        match def {
            Def::Class(class) => match constructor_params(self.resolver, *class) {
                Some((Some(init), params, file)) => vec![(Callee::Function(init), params, file)],
                Some((None, params, file)) => vec![(Callee::Record(*class), params, file)],
                None => Vec::new(),
            },
            Def::BoundMethod { func, .. } => {
                vec![(Callee::Function(*func), index.function(*func).call_params().to_vec(), func.file)]
            }
            Def::Function(func) => {
                let facts = index.function(*func);
                // Through the class, a method takes `self` explicitly.
                let params = if facts.kind == FunctionKind::ClassMethod {
                    facts.call_params().to_vec()
                } else {
                    facts.params.clone()
                };
                vec![(Callee::Function(*func), params, func.file)]
            }
            Def::Instance(class) => {
                // Calling an instance runs `__call__`, which for torch modules runs `forward`.
                let mro = self.resolver.mro(*class);
                for name in ["__call__", "forward"] {
                    for base in &mro.classes {
                        for binding in index.class(*base).body.iter().filter(|b| b.name.as_str() == name) {
                            if let crate::index::BindingKind::Function(func) = binding.kind {
                                return vec![(
                                    Callee::Function(func),
                                    index.function(func).call_params().to_vec(),
                                    func.file,
                                )];
                            }
                        }
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}
