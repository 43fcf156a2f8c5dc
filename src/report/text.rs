//! Text output for people: grouped, with the source line of every site, conditions and steps
//! under it, and an "unresolved" section at the end. Nothing is left out: long code is cut for
//! display only, with `…`, and the location says where the rest is.

use std::fmt::Write;

use crate::query::args::{ArgSource, ParamBinding};
use crate::query::common::{Condition, Step, Unresolved, short};
use crate::query::instances::InstancesReport;
use crate::query::stats::Stats;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn conditions(out: &mut String, indent: &str, label: &str, conds: &[Condition]) {
    if conds.is_empty() {
        return;
    }
    let joined: Vec<&str> = conds.iter().map(|c| c.text.as_str()).collect();
    let _ = writeln!(out, "{indent}{label}{}", short(&joined.join("  and  ")));
}

fn steps(out: &mut String, indent: &str, steps: &[Step]) {
    for step in steps {
        let kind = serde_json::to_value(step.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{indent}{:<15} {}  {}",
            kind.replace('_', " "),
            step.location,
            short(&step.code)
        );
    }
}

fn unresolved(out: &mut String, items: &[Unresolved]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nunresolved ({}):", items.len());
    for item in items {
        let _ = writeln!(
            out,
            "  {}  {}\n      {}",
            item.location,
            short(&item.code),
            item.reason
        );
    }
}

pub fn arguments(out: &mut String, indent: &str, args: &[ParamBinding]) {
    let width = args.iter().map(|a| a.param.len()).max().unwrap_or(0);
    for arg in args {
        for (i, value) in arg.values.iter().enumerate() {
            let name = if i == 0 { arg.param.as_str() } else { "" };
            let source = match value.source {
                ArgSource::Keyword => "keyword",
                ArgSource::Positional => "positional",
                ArgSource::Dict => "from **dict",
                ArgSource::Default => "default",
                ArgSource::Collected => "collected",
                ArgSource::Unknown => "unknown",
                ArgSource::Missing => "missing",
            };
            let code = if value.source == ArgSource::Missing {
                "(not given)".to_string()
            } else {
                short(&value.code)
            };
            let mut line = format!("{indent}{name:<width$} = {code}  [{source}");
            if matches!(value.source, ArgSource::Dict | ArgSource::Default) {
                let _ = write!(line, " {}", value.location);
            }
            line.push(']');
            if !value.conditions.is_empty() {
                let joined: Vec<&str> = value.conditions.iter().map(|c| c.text.as_str()).collect();
                let _ = write!(line, " when {}", joined.join(" and "));
            }
            if value.overridden {
                line.push_str(" (replaced by a later entry when that one applies)");
            }
            let _ = writeln!(out, "{line}");
        }
    }
}

pub fn instances(report: &InstancesReport) -> String {
    let mut out = String::new();
    let what = if report.classes.len() > 1 {
        format!(
            "{} and its {}",
            report.class.path,
            plural(report.classes.len() - 1, "subclass", "subclasses")
        )
    } else {
        report.class.path.clone()
    };
    let _ = writeln!(
        out,
        "{what}: constructed at {}",
        plural(report.sites.len(), "site", "sites")
    );
    let _ = writeln!(out, "  defined at {}", report.class.location);
    let _ = writeln!(out, "  names that denote it: {}", report.names.join(", "));
    for site in &report.sites {
        let _ = writeln!(out, "\n{}  in {}", site.location, site.enclosing);
        let _ = writeln!(out, "  | {}", short(&site.line));
        if report.classes.len() > 1 {
            let _ = writeln!(out, "  constructs {}", site.class.path);
        }
        for (i, way) in site.ways.iter().enumerate() {
            if site.ways.len() > 1 {
                let _ = writeln!(out, "  way {}:", i + 1);
            }
            steps(&mut out, "    via ", &way.via);
            conditions(&mut out, "    if  ", "", &way.conditions);
        }
        conditions(&mut out, "  ", "when: ", &site.conditions);
        match &site.init {
            Some(init) => {
                let _ = writeln!(
                    out,
                    "  arguments (bound to {} at {}):",
                    init.path, init.location
                );
            }
            None if !site.arguments.is_empty() => {
                let _ = writeln!(out, "  arguments (fields):");
            }
            None => {
                let _ = writeln!(out, "  arguments: __init__ is not defined in the tree");
            }
        }
        arguments(&mut out, "    ", &site.arguments);
    }
    unresolved(&mut out, &report.unresolved);
    out
}

pub fn stats(stats: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "files:      {} ({} unreadable)",
        stats.files, stats.unreadable_files
    );
    let _ = writeln!(out, "packages:   {}", stats.packages);
    let _ = writeln!(out, "classes:    {}", stats.classes);
    let _ = writeln!(out, "functions:  {}", stats.functions);
    let _ = writeln!(out, "bytes:      {}", stats.bytes);
    let _ = writeln!(out, "warnings:   {}", stats.diagnostics.len());
    for d in &stats.diagnostics {
        let _ = writeln!(out, "  {d}");
    }
    out
}
