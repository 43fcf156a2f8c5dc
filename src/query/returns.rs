//! `scaletrace returns FUNCTION`: what a function (typically a factory) can return — each
//! `return` with the conditions that lead to it and the classes, functions or values it
//! denotes.

use serde::Serialize;

use super::common::*;
use crate::index::FuncId;
use crate::resolve::{Cond, Ctx, Resolver};

#[derive(Clone, Debug, Serialize)]
pub struct ReturnsReport {
    pub function: FunctionRef,
    pub returns: Vec<ReturnOut>,
    /// True when control can reach the end of the body (an implicit `return None`).
    pub falls_through: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReturnOut {
    pub location: Location,
    pub code: String,
    /// Conditions in the function under which this `return` runs.
    pub conditions: Vec<Condition>,
    /// What the returned expression denotes, each with the conditions of its own path.
    pub denotes: Vec<Denotes>,
}

pub fn returns(resolver: &Resolver, func: FuncId) -> ReturnsReport {
    let index = resolver.index;
    let scope = resolver.local_scope(func);
    let ctx = Ctx::function(func);
    let returns = scope
        .returns
        .iter()
        .map(|ret| {
            let conds: Vec<Cond> = ret.guards.iter().map(|&guard| Cond { file: func.file, guard }).collect();
            let denotes = match &ret.value {
                Some(value) => resolver.resolve(&ctx, value).iter().map(|f| denotes(resolver, f)).collect(),
                None => Vec::new(),
            };
            ReturnOut {
                location: Location::new(index, func.file, ret.range),
                code: code(index, func.file, ret.range),
                conditions: conditions(index, &conds),
                denotes,
            }
        })
        .collect();
    let module = index.file(func.file).ast();
    let falls_through = match crate::syntax::stmt_with_range(&module.body, index.function(func).range) {
        Some(ruff_python_ast::Stmt::FunctionDef(def)) => !crate::syntax::terminates(&def.body),
        _ => false,
    };
    ReturnsReport { function: FunctionRef::new(index, func), returns, falls_through }
}
