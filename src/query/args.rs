//! Binding a call's arguments to a callee's parameters, as Python does: positionals in order,
//! keywords by name, `**dict` through the entries of a dict built in the calling function,
//! defaults for the rest.

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;
use serde::Serialize;

use super::common::{Condition, Location, code, conditions};
use crate::index::{FileId, Param, ParamKind};
use crate::resolve::{Cond, Ctx, Resolver};
use crate::syntax::{Constant, Span, constant, snippet};

/// How an argument reached its parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgSource {
    Keyword,
    Positional,
    /// An entry of a dict unpacked with `**`.
    Dict,
    /// The parameter's default value.
    Default,
    /// Collected by `*args` / `**kwargs`.
    Collected,
    /// Possibly given by a `*args`/`**kwargs` splat whose content is unknown.
    Unknown,
    /// Not given and no default: the call fails unless a splat provides it.
    Missing,
}

/// One value a parameter may receive at a call site.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ArgValue {
    pub source: ArgSource,
    /// The argument expression (or default), on one line.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Constant>,
    /// Where the expression is written.
    pub location: Location,
    /// For dict entries: conditions on the statement that set the entry.
    pub conditions: Vec<Condition>,
    /// For dict entries: a later entry for the same key replaces this one when its conditions hold.
    pub overridden: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ParamBinding {
    pub param: String,
    pub kind: crate::index::ParamKind,
    pub values: Vec<ArgValue>,
}

/// An argument value with the syntax it came from, before rendering.
pub struct RawArg<'e> {
    pub source: ArgSource,
    pub expr: Option<std::borrow::Cow<'e, Expr>>,
    pub file: FileId,
    pub span: Span,
    pub conds: Vec<Cond>,
    pub overridden: bool,
}

/// Binds `arguments` (of a call in `ctx`) to `params` (already without `self`).
/// `default_file` is where the callee (and its defaults) is defined.
pub fn bind<'e>(
    resolver: &Resolver,
    ctx: &Ctx,
    call_start: ruff_text_size::TextSize,
    arguments: &'e ast::Arguments,
    params: &'e [Param],
    default_file: FileId,
) -> Vec<(usize, Vec<RawArg<'e>>)> {
    let mut bound: Vec<Vec<RawArg<'e>>> = params.iter().map(|_| Vec::new()).collect();
    let positional = crate::index::positional_slots(params);
    let var_positional = params.iter().position(|p| p.kind == ParamKind::VarPositional);
    let var_keyword = params.iter().position(|p| p.kind == ParamKind::VarKeyword);
    let mut unknown_splat: Option<Span> = None;
    let here = |expr: &'e Expr, source| RawArg {
        source,
        expr: Some(std::borrow::Cow::Borrowed(expr)),
        file: ctx.file,
        span: Span::of(expr),
        conds: Vec::new(),
        overridden: false,
    };

    let mut next_positional = 0;
    for arg in arguments.args.iter() {
        if let Expr::Starred(star) = arg {
            // `*args`: which positionals it fills is unknown from here.
            unknown_splat = Some(Span::of(&*star.value));
            next_positional = usize::MAX;
            continue;
        }
        match positional.get(next_positional) {
            Some(&i) if next_positional != usize::MAX => {
                bound[i].push(here(arg, ArgSource::Positional));
                next_positional += 1;
            }
            _ => {
                if let Some(i) = var_positional {
                    bound[i].push(here(arg, ArgSource::Collected));
                }
            }
        }
    }
    for keyword in arguments.keywords.iter() {
        match &keyword.arg {
            Some(name) => {
                let target = crate::index::keyword_slot(params, name.as_str());
                match target.or(var_keyword) {
                    Some(i) => bound[i].push(here(
                        &keyword.value,
                        if target.is_some() { ArgSource::Keyword } else { ArgSource::Collected },
                    )),
                    None => {}
                }
            }
            None => {
                let entries = match (&keyword.value, ctx.function) {
                    (Expr::Name(dict), Some(func)) => {
                        resolver.local_scope(func).dict_entries(dict.id.as_str(), call_start)
                    }
                    _ => None,
                };
                let Some(entries) = entries else {
                    unknown_splat = Some(Span::of(&keyword.value));
                    continue;
                };
                let func = ctx.function.expect("dict entries come from a function scope");
                for (n, entry) in entries.iter().enumerate() {
                    let target = crate::index::keyword_slot(params, &entry.key);
                    let Some(i) = target.or(var_keyword) else {
                        continue;
                    };
                    // A later entry for the same key replaces this one (when its guards hold).
                    let overridden = entries[n + 1..].iter().any(|later| later.key == entry.key);
                    let conds = entry.guards.iter().map(|&guard| Cond { file: func.file, guard }).collect();
                    bound[i].push(RawArg {
                        source: if target.is_some() { ArgSource::Dict } else { ArgSource::Collected },
                        expr: Some(std::borrow::Cow::Owned((*entry.value).clone())),
                        file: func.file,
                        span: Span::of(&*entry.value),
                        conds,
                        overridden,
                    });
                }
            }
        }
    }
    for (i, param) in params.iter().enumerate() {
        if !bound[i].is_empty() || matches!(param.kind, ParamKind::VarPositional | ParamKind::VarKeyword) {
            continue;
        }
        if let Some(splat) = unknown_splat {
            bound[i].push(RawArg {
                source: ArgSource::Unknown,
                expr: None,
                file: ctx.file,
                span: splat,
                conds: Vec::new(),
                overridden: false,
            });
        }
        match &param.default {
            Some(default) => bound[i].push(RawArg {
                source: ArgSource::Default,
                expr: Some(std::borrow::Cow::Borrowed(&**default)),
                file: default_file,
                span: Span::of(&**default),
                conds: Vec::new(),
                overridden: false,
            }),
            None if unknown_splat.is_none() => bound[i].push(RawArg {
                source: ArgSource::Missing,
                expr: None,
                file: ctx.file,
                span: Span::of(&arguments.range()),
                conds: Vec::new(),
                overridden: false,
            }),
            None => {}
        }
    }
    bound.into_iter().enumerate().collect()
}

/// Renders one raw argument.
pub fn render(resolver: &Resolver, raw: &RawArg) -> ArgValue {
    let index = resolver.index;
    let text = &index.file(raw.file).text;
    let (code_text, value) = match raw.source {
        ArgSource::Missing => (String::new(), None),
        ArgSource::Unknown => (format!("maybe from *{}", snippet(text, raw.span).trim_start_matches('*')), None),
        _ => (code(index, raw.file, raw.span), raw.expr.as_deref().and_then(constant)),
    };
    ArgValue {
        source: raw.source,
        code: code_text,
        value,
        location: Location::new(index, raw.file, raw.span),
        conditions: conditions(index, &raw.conds),
        overridden: raw.overridden,
    }
}
