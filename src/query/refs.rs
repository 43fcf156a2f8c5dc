//! `scaletrace refs NAME`: the places that refer to a definition — imports, reads, writes,
//! calls, base-class lists — found by resolving each candidate occurrence, not by text. Text
//! matches that resolve to something else are counted, not listed; occurrences that could not be
//! resolved are listed as unresolved.

use std::sync::Mutex;

use rayon::prelude::*;
use ruff_python_ast::{Expr, ExprContext, Stmt};
use rustc_hash::FxHashSet;
use serde::Serialize;

use super::common::*;
use super::target::Target;
use super::walk::{Place, Visit, enclosing_name, files_mentioning, walk_module};
use crate::index::FileId;
use crate::resolve::{Def, Found, Resolver};
use crate::syntax::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    Definition,
    Import,
    Call,
    Read,
    Write,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Reference {
    pub location: Location,
    pub kind: RefKind,
    pub enclosing: String,
    pub line: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct RefsReport {
    pub target: String,
    pub references: Vec<Reference>,
    /// Occurrences of the name that resolve to something else.
    pub other_matches: usize,
    pub unresolved: Vec<Unresolved>,
    pub files_searched: usize,
}

pub fn refs(resolver: &Resolver, target: Target) -> RefsReport {
    let index = resolver.index;
    let (def, name, def_site) = match target {
        Target::Class(c) => (Def::Class(c), index.class(c).name.to_string(), Some((c.file, index.class(c).name_range))),
        Target::Function(f) => {
            (Def::Function(f), index.function(f).name.to_string(), Some((f.file, index.function(f).name_range)))
        }
        Target::Module(m) => {
            (Def::Module(m), index.file(m).module.rsplit('.').next().unwrap_or_default().to_string(), None)
        }
    };
    let mut words = vec![name.clone()];
    // `import x as y` / `from m import x as y` make `y` a name for it too.
    let files = files_mentioning(index, &words);
    let aliases: Mutex<Vec<String>> = Mutex::new(Vec::new());
    files.par_iter().for_each(|&file| {
        let module = index.file(file).ast();
        let mut found = Vec::new();
        collect_import_aliases(&module.body, &name, &mut found);
        aliases.lock().unwrap_or_else(|e| e.into_inner()).extend(found);
    });
    words.extend(aliases.into_inner().unwrap_or_else(|e| e.into_inner()));
    words.sort();
    words.dedup();
    let files = files_mentioning(index, &words);
    let results: Vec<(Vec<Reference>, usize, Vec<Unresolved>)> = files
        .par_iter()
        .map(|&file| {
            let module = index.file(file).ast();
            let mut finder = RefFinder {
                resolver,
                def: &def,
                words: &words,
                callees: FxHashSet::default(),
                refs: Vec::new(),
                other: 0,
                unresolved: Vec::new(),
                file,
            };
            walk_module(index, file, &module, &mut finder);
            (finder.refs, finder.other, finder.unresolved)
        })
        .collect();
    let mut references = Vec::new();
    let mut other_matches = 0;
    let mut unresolved = Vec::new();
    for (r, o, u) in results {
        references.extend(r);
        other_matches += o;
        unresolved.extend(u);
    }
    if let Some((file, span)) = def_site {
        let location = Location::new(index, file, span);
        let line = index.file(file).line_text(location.line).trim().to_string();
        references.push(Reference { location, kind: RefKind::Definition, enclosing: String::new(), line });
    }
    references.sort();
    references.dedup_by(|a, b| a.location == b.location);
    unresolved.sort();
    unresolved.dedup();
    RefsReport { target: target.path(index), references, other_matches, unresolved, files_searched: files.len() }
}

fn collect_import_aliases(suite: &[Stmt], name: &str, out: &mut Vec<String>) {
    for stmt in suite {
        match stmt {
            Stmt::ImportFrom(import) => {
                for alias in &import.names {
                    if alias.name.as_str() == name {
                        if let Some(asname) = &alias.asname {
                            out.push(asname.to_string());
                        }
                    }
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    if alias.name.rsplit('.').next() == Some(name) {
                        if let Some(asname) = &alias.asname {
                            out.push(asname.to_string());
                        }
                    }
                }
            }
            Stmt::FunctionDef(def) => collect_import_aliases(&def.body, name, out),
            Stmt::ClassDef(def) => collect_import_aliases(&def.body, name, out),
            other => {
                for child in crate::syntax::child_suites(other) {
                    collect_import_aliases(child.body, name, out);
                }
            }
        }
    }
}

struct RefFinder<'r, 'a> {
    resolver: &'r Resolver<'a>,
    def: &'r Def,
    words: &'r [String],
    /// Ranges of call targets seen so far (calls are visited before their callee).
    callees: FxHashSet<Span>,
    refs: Vec<Reference>,
    other: usize,
    unresolved: Vec<Unresolved>,
    file: FileId,
}

impl RefFinder<'_, '_> {
    fn matches(&self, found: &[Found]) -> bool {
        found.iter().any(|f| match (&f.def, self.def) {
            (Def::BoundMethod { func, .. }, Def::Function(target)) => func == target,
            (a, b) => a == b,
        })
    }

    fn record(&mut self, place: &Place, span: Span, kind: RefKind, found: &[Found], code_span: Span) {
        let index = self.resolver.index;
        if self.matches(found) {
            let location = Location::new(index, self.file, span);
            let line = index.file(self.file).line_text(location.line).trim().to_string();
            self.refs.push(Reference { location, kind, enclosing: enclosing_name(index, &place.ctx), line });
        } else if found.iter().all(|f| matches!(f.def, Def::Unresolved(_))) {
            let reasons: Vec<String> = found
                .iter()
                .filter_map(|f| if let Def::Unresolved(r) = &f.def { Some(r.clone()) } else { None })
                .collect();
            self.unresolved.push(Unresolved::new(index, self.file, code_span, reasons.join("; ")));
        } else {
            self.other += 1;
        }
    }
}

impl RefFinder<'_, '_> {
    /// Whether `name` is a local of an enclosing function bound by something other than an
    /// import (imports are resolved: they may bring the definition in).
    fn bound_locally(&self, place: &Place, name: &str) -> bool {
        let Some(func) = place.ctx.function else { return false };
        let scope = self.resolver.local_scope(func);
        scope.is_local(name)
            && scope.bindings[name].iter().all(|b| {
                !matches!(
                    b.kind,
                    crate::resolve::LocalKind::Import { .. } | crate::resolve::LocalKind::ImportFrom { .. }
                )
            })
    }
}

impl Visit for RefFinder<'_, '_> {
    fn stmt(&mut self, place: &Place, stmt: &Stmt) {
        let Stmt::ImportFrom(import) = stmt else { return };
        for alias in &import.names {
            if !self.words.iter().any(|w| w == alias.name.as_str()) {
                continue;
            }
            // Resolve the imported name as the importing scope sees it.
            let bound = alias.asname.as_ref().unwrap_or(&alias.name);
            let name_expr = Expr::Name(ruff_python_ast::ExprName {
                range: bound.range,
                node_index: Default::default(),
                id: bound.id.clone(),
                ctx: ExprContext::Load,
            });
            let found = self.resolver.resolve(&place.ctx, &name_expr);
            self.record(place, Span::of(&alias.name), RefKind::Import, &found, Span::of(alias));
        }
    }

    fn expr(&mut self, place: &Place, expr: &Expr) {
        match expr {
            Expr::Call(call) => {
                self.callees.insert(Span::of(&*call.func));
            }
            Expr::Name(name) if self.words.iter().any(|w| w == name.id.as_str()) => {
                let kind = match name.ctx {
                    ExprContext::Store | ExprContext::Del => RefKind::Write,
                    _ if self.callees.contains(&Span::of(name)) => RefKind::Call,
                    _ => RefKind::Read,
                };
                if kind == RefKind::Write {
                    // A store rebinds the name in its scope; it refers to the definition only
                    // when it is the defining module's own global.
                    let found = self.resolver.resolve(&place.ctx, expr);
                    if place.ctx.function.is_none() && self.matches(&found) {
                        self.record(place, Span::of(name), kind, &found, Span::of(name));
                    }
                    return;
                }
                if self.bound_locally(place, name.id.as_str()) {
                    // A local variable of the same name: another definition by Python's rules.
                    self.other += 1;
                    return;
                }
                let found = self.resolver.resolve(&place.ctx, expr);
                self.record(place, Span::of(name), kind, &found, Span::of(name));
            }
            Expr::Attribute(attr) if self.words.iter().any(|w| w == attr.attr.as_str()) => {
                let kind = match attr.ctx {
                    ExprContext::Store | ExprContext::Del => RefKind::Write,
                    _ if self.callees.contains(&Span::of(attr)) => RefKind::Call,
                    _ => RefKind::Read,
                };
                let found = self.resolver.resolve(&place.ctx, expr);
                self.record(place, Span::of(&attr.attr), kind, &found, Span::of(attr));
            }
            _ => {}
        }
    }
}
