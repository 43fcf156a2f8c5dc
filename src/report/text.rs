//! Text output for people: grouped, with the source line of every site, conditions and steps
//! under it, and an "unresolved" section at the end. Nothing is left out: long code is cut for
//! display only, with `…`, and the location says where the rest is.

use std::fmt::Write;

use crate::query::args::{ArgSource, ArgValue, ParamBinding};
use crate::query::bindings::BindingsReport;
use crate::query::common::{Condition, Step, Unresolved, Way, short};
use crate::query::instances::InstancesReport;
use crate::query::origin::Origin;
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
        let kind =
            serde_json::to_value(step.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let _ = writeln!(out, "{indent}{:<15} {}  {}", kind.replace('_', " "), step.location, short(&step.code));
    }
}

fn ways(out: &mut String, ways: &[Way]) {
    for (i, way) in ways.iter().enumerate() {
        if ways.len() > 1 {
            let _ = writeln!(out, "  way {}:", i + 1);
        }
        steps(out, "    via ", &way.via);
        if !way.conditions.is_empty() {
            // These conditions may come from other functions (a factory's branches): say where.
            let joined: Vec<String> = way
                .conditions
                .iter()
                .map(|c| format!("{} [{}:{}]", c.text, c.location.path, c.location.line))
                .collect();
            let _ = writeln!(out, "    if  {}", short(&joined.join("  and  ")));
        }
    }
}

fn unresolved(out: &mut String, items: &[Unresolved]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nunresolved ({}):", items.len());
    for item in items {
        let _ = writeln!(out, "  {}  {}\n      {}", item.location, short(&item.code), item.reason);
    }
}

fn source_name(source: ArgSource) -> &'static str {
    match source {
        ArgSource::Keyword => "keyword",
        ArgSource::Positional => "positional",
        ArgSource::Dict => "from **dict",
        ArgSource::Default => "default",
        ArgSource::Collected => "collected",
        ArgSource::Unknown => "unknown",
        ArgSource::Missing => "missing",
    }
}

/// `code  [source location] when ...` for one argument value.
fn arg_value(value: &ArgValue) -> String {
    let code = if value.source == ArgSource::Missing { "(not given)".to_string() } else { short(&value.code) };
    let mut line = format!("{code}  [{}", source_name(value.source));
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
    line
}

pub fn arguments(out: &mut String, indent: &str, args: &[ParamBinding]) {
    let width = args.iter().map(|a| a.param.len()).max().unwrap_or(0);
    for arg in args {
        for (i, value) in arg.values.iter().enumerate() {
            let name = if i == 0 { arg.param.as_str() } else { "" };
            let _ = writeln!(out, "{indent}{name:<width$} = {}", arg_value(value));
        }
    }
}

fn origin(out: &mut String, indent: &str, origin: &Origin) {
    let kind = serde_json::to_value(origin.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
        .replace('_', " ");
    let location = origin.location.as_ref().map(|l| format!("  {l}")).unwrap_or_default();
    let by_name = if origin.by_name_only { "  (matched by name: the receiver's class is not known)" } else { "" };
    let _ = writeln!(out, "{indent}from {kind}{location}{by_name}");
    let _ = writeln!(out, "{indent}  {}", short(&origin.code));
    if !origin.conditions.is_empty() {
        let joined: Vec<&str> = origin.conditions.iter().map(|c| c.text.as_str()).collect();
        let _ = writeln!(out, "{indent}  when {}", short(&joined.join(" and ")));
    }
    for inner in &origin.inner {
        self::origin(out, &format!("{indent}    "), inner);
    }
}

pub fn bindings(report: &BindingsReport) -> String {
    let mut out = String::new();
    let sites = plural(report.sites.len(), "call site", "call sites");
    match report.callables.as_slice() {
        [one] => {
            let _ = writeln!(out, "{}: bound at {sites} of {one}", report.param);
        }
        many => {
            let _ = writeln!(
                out,
                "{}: bound at {sites}, over {} that take it",
                report.param,
                plural(many.len(), "callable", "callables")
            );
        }
    }
    for site in &report.sites {
        let _ = writeln!(out, "\n{}  in {}", site.location, site.enclosing);
        let _ = writeln!(out, "  | {}", short(&site.line));
        let _ = writeln!(out, "  calls {}", site.callee);
        ways(&mut out, &site.ways);
        conditions(&mut out, "  ", "when: ", &site.conditions);
        for value in &site.values {
            let _ = writeln!(out, "  {} = {}", report.param, arg_value(&value.arg));
            for o in &value.origins {
                origin(&mut out, "      ", o);
            }
        }
    }
    unresolved(&mut out, &report.unresolved);
    out
}

pub fn instances(report: &InstancesReport) -> String {
    let mut out = String::new();
    let what = if report.classes.len() > 1 {
        format!("{} and its {}", report.class.path, plural(report.classes.len() - 1, "subclass", "subclasses"))
    } else {
        report.class.path.clone()
    };
    let _ = writeln!(out, "{what}: constructed at {}", plural(report.sites.len(), "site", "sites"));
    let _ = writeln!(out, "  defined at {}", report.class.location);
    let _ = writeln!(out, "  names that denote it: {}", report.names.join(", "));
    for site in &report.sites {
        let _ = writeln!(out, "\n{}  in {}", site.location, site.enclosing);
        let _ = writeln!(out, "  | {}", short(&site.line));
        if report.classes.len() > 1 {
            let _ = writeln!(out, "  constructs {}", site.class.path);
        }
        ways(&mut out, &site.ways);
        conditions(&mut out, "  ", "when: ", &site.conditions);
        match &site.init {
            Some(init) => {
                let _ = writeln!(out, "  arguments (bound to {} at {}):", init.path, init.location);
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
    let _ = writeln!(out, "files:      {} ({} unreadable)", stats.files, stats.unreadable_files);
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

pub fn hierarchy(report: &crate::query::hierarchy::HierarchyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  ({})", report.class.path, report.class.location);
    let _ = writeln!(out, "\nbases:");
    if report.bases.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for base in &report.bases {
        let _ = writeln!(out, "  {}", short(&base.code));
        for d in &base.resolved {
            let location = d.location.as_ref().map(|l| format!("  {l}")).unwrap_or_default();
            let _ = writeln!(out, "    = {}{location}", d.description);
        }
    }
    let _ = writeln!(out, "\nmro:");
    for (i, item) in report.mro.iter().enumerate() {
        let location =
            item.location.as_ref().map(|l| format!("  {l}")).unwrap_or_else(|| "  (outside the tree)".into());
        let _ = writeln!(out, "  {:>2}. {}{location}", i + 1, item.path);
    }
    for problem in &report.mro_problems {
        let _ = writeln!(out, "  problem: {problem}");
    }
    let _ = writeln!(out, "\nsubclasses ({}):", report.subclasses.len());
    for sub in &report.subclasses {
        let _ = writeln!(out, "  {}  {}  (derives from {})", sub.class.path, sub.class.location, sub.base);
    }
    let _ = writeln!(out, "\nmethods ({}):", report.methods.len());
    let width = report.methods.iter().map(|m| m.name.len()).max().unwrap_or(0);
    for method in &report.methods {
        let kind = match method.kind {
            crate::index::FunctionKind::Property => " (property)",
            crate::index::FunctionKind::ClassMethod => " (classmethod)",
            crate::index::FunctionKind::StaticMethod => " (staticmethod)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {}{kind}  {}",
            method.name, method.provided_by.path, method.provided_by.location
        );
        for o in &method.overrides {
            let _ = writeln!(out, "  {:<width$}    overrides {}  {}", "", o.path, o.location);
        }
        for o in &method.overridden_in {
            let _ = writeln!(out, "  {:<width$}    overridden in {}  {}", "", o.path, o.location);
        }
    }
    let _ = writeln!(out, "\ninstance attributes ({}):", report.attributes.len());
    for attr in &report.attributes {
        let _ = writeln!(out, "  {}", attr.name);
        for write in &attr.assignments {
            let _ = writeln!(out, "    {}  {}", write.by, write.location);
            let _ = writeln!(out, "      {}", short(&write.code));
            if !write.conditions.is_empty() {
                let joined: Vec<&str> = write.conditions.iter().map(|c| c.text.as_str()).collect();
                let _ = writeln!(out, "      when {}", short(&joined.join(" and ")));
            }
            for held in &write.holds {
                let location = held.location.as_ref().map(|l| format!("  {l}")).unwrap_or_default();
                let when = if held.conditions.is_empty() {
                    String::new()
                } else {
                    format!(
                        "  when {}",
                        short(&held.conditions.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" and "))
                    )
                };
                let assumed = if held.via.iter().any(|s| s.kind == crate::resolve::HopKind::Annotation) {
                    "  (from a parameter's annotation, not from a caller)"
                } else {
                    ""
                };
                let _ = writeln!(out, "      holds {}{location}{when}{assumed}", held.description);
            }
        }
    }
    out
}

pub fn refs(report: &crate::query::refs::RefsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", report.target, plural(report.references.len(), "reference", "references"));
    for r in &report.references {
        let kind = serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let enclosing = if r.enclosing.is_empty() { String::new() } else { format!("  in {}", r.enclosing) };
        let _ = writeln!(out, "  {:<10} {}{enclosing}\n             | {}", kind, r.location, short(&r.line));
    }
    if report.other_matches > 0 {
        let verb = if report.other_matches == 1 { "resolves" } else { "resolve" };
        let _ = writeln!(
            out,
            "\n{} of the same name {verb} to other definitions (not listed)",
            plural(report.other_matches, "occurrence", "occurrences")
        );
    }
    unresolved(&mut out, &report.unresolved);
    out
}

pub fn returns(report: &crate::query::returns::ReturnsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  ({})", report.function.path, report.function.location);
    let _ = writeln!(out, "returns at {}:", plural(report.returns.len(), "place", "places"));
    for ret in &report.returns {
        let _ = writeln!(out, "\n  {}  {}", ret.location, short(&ret.code));
        conditions(&mut out, "    ", "when: ", &ret.conditions);
        for d in &ret.denotes {
            let location = d.location.as_ref().map(|l| format!("  {l}")).unwrap_or_default();
            let _ = writeln!(out, "    = {}{location}", d.description);
            steps(&mut out, "        via ", &d.via);

            if !d.conditions.is_empty() && d.conditions.len() > ret.conditions.len() {
                let extra: Vec<&str> = d.conditions[ret.conditions.len()..].iter().map(|c| c.text.as_str()).collect();
                let _ = writeln!(out, "        if  {}", short(&extra.join("  and  ")));
            }
        }
    }
    if report.falls_through {
        let _ = writeln!(out, "\n  (end of body)  returns None when no `return` runs");
    }
    out
}

/// One literal of a condition, as the conditions print it.
fn literal(lit: &crate::eval::report::Literal) -> String {
    if lit.value { lit.atom.clone() } else { crate::resolve::negate(&lit.atom) }
}

/// A verdict as the output prints it (`ONCE`, `TWICE`, ...).
fn verdict_name(verdict: crate::eval::report::Verdict) -> String {
    serde_json::to_value(verdict).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub fn trace(report: &crate::eval::TraceReport) -> String {
    let mut out = String::new();
    if let Some(split) = &report.split_on {
        trace_cases(&mut out, report, split);
        return out;
    }
    if report.blocks.is_empty() {
        trace_output(&mut out, report, true);
        return out;
    }
    // A whole model: the question is about the blocks that hold the value.
    let _ = writeln!(
        out,
        "{} in {}.{}: {}",
        report.value,
        report.entry,
        report.methods.join(", "),
        verdict_name(report.verdict)
    );
    let _ = writeln!(out, "  on the output of each block that holds it:");
    for block in &report.blocks {
        let _ = writeln!(out, "    {}.forward: {}", block.entry, verdict_name(block.verdict));
    }
    if report.blocks.iter().any(|b| b.alone) {
        let _ = writeln!(
            out,
            "  (a bound stopped the entry's own evaluation before it answered: each block was answered on its\n   own, built as the entry builds it, its forward run on unscaled data; what the entry does\n   around it is not seen, and raises while building the modules inside it are not counted)"
        );
    }
    for block in &report.blocks {
        let _ = writeln!(
            out,
            "
== block {} ==",
            block.entry
        );
        trace_output(&mut out, block, false);
    }
    let _ = writeln!(
        out,
        "
== the entry's own output =="
    );
    trace_output(&mut out, report, true);
    out
}

/// An answer split into cases because a bound stopped the evaluation of every configuration
/// at once: which cases, their verdicts, each case in full, then the bounds that made the split.
fn trace_cases(out: &mut String, report: &crate::eval::TraceReport, split: &crate::eval::report::SplitOut) {
    let name = verdict_name;
    let _ = writeln!(
        out,
        "{} on the output of {}.{}: {}",
        report.value,
        report.entry,
        report.methods.join(", "),
        name(report.verdict)
    );
    let what = if split.values.is_empty() { "the test" } else { "the value" };
    let _ = writeln!(
        out,
        "  a bound {} the evaluation of every configuration at once (bounds hit at the end): answered in\n  {} cases of {}, {what} it branched on most, each evaluated on its own as with that --assume:",
        match split.for_cut {
            true => "cut values holding scaled data in",
            false => "stopped",
        },
        report.cases.len(),
        split.name
    );
    let width = report.cases.iter().map(|c| c.condition.chars().count()).max().unwrap_or(0).min(60);
    for case in &report.cases {
        let assume = case.assume_as.as_ref().map(|a| format!("--assume {a}")).unwrap_or_default();
        let verdict = match crate::eval::split::raises_everywhere(&case.report) {
            true => "(every configuration raises)".to_string(),
            false => name(case.report.verdict),
        };
        let _ = writeln!(out, "    {:<width$}  {verdict:<8} {assume}", case.condition);
    }
    for case in &report.cases {
        let _ = writeln!(out, "\n=== case {} ===", case.condition);
        out.push_str(&trace(&case.report));
    }
    let _ = writeln!(out, "\n=== every configuration at once ===");
    bounds_and_stats(out, report);
}

/// One output's answer; `global` adds what concerns the whole evaluation (atoms, assumptions,
/// unresolved code, bounds, statistics), said once.
fn trace_output(out: &mut String, report: &crate::eval::TraceReport, global: bool) {
    use crate::eval::report::{SiteOut, Verdict};
    let verdict = verdict_name(report.verdict);
    let _ =
        writeln!(out, "{} on the output of {}.{}: {verdict}", report.value, report.entry, report.methods.join(", "));
    match (&report.unused_parameter_of, report.never_read) {
        (Some(method), _) => {
            let _ = writeln!(
                out,
                "  {} is a parameter of {method}, which never reads it: nothing applies it on this path",
                report.value
            );
        }
        (None, true) => {
            let _ = writeln!(
                out,
                "  {} is never read on this path (no `.{}`, `getattr(..., \"{}\")` or parameter of that name): \
                 check the name and the entry",
                report.value, report.value, report.value
            );
        }
        (None, false) => {}
    }
    let name = verdict_name;
    let exponent = |e: Option<i32>, all: &[i32]| match e {
        Some(e) => e.to_string(),
        None => all.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(","),
    };
    let bad = report.rows.iter().filter(|r| !matches!(r.outcome.verdict, Verdict::Once)).count();
    if bad > 0 {
        let _ = writeln!(out, "  {} of {} groups of configurations are not ONCE", bad, report.rows.len());
    }
    // Rows found by an evaluation a bound stopped or widened are not an answer: say so before
    // a reader takes a row's "when" for the configurations that reach it.
    if report.provisional && report.rows.iter().any(|r| r.outcome.verdict != Verdict::Unknown) {
        let _ = writeln!(
            out,
            "  every row is provisional: a bound stopped or widened the evaluation (see bounds hit); a row shows what was found, under conditions that may be wider than the configurations that reach it"
        );
    }
    // The headline may rest on rows an application may be missing from: say so up front.
    let cut = report.rows.iter().filter(|r| r.cut_at_bound).count();
    if cut > 0 {
        let _ = writeln!(
            out,
            "  {cut} of {} groups are not final: values holding scaled data were cut at the alternatives bound there",
            report.rows.len()
        );
    }
    // Per outcome first: how often the value is applied, whatever path the code takes.
    if !report.verdicts.is_empty() {
        let members: Vec<String> = report
            .verdicts
            .iter()
            .map(|g| g.rows.iter().map(|r| (r + 1).to_string()).collect::<Vec<_>>().join(","))
            .collect();
        let width = members.iter().map(String::len).max().unwrap_or(0).max("rows".len());
        let _ = writeln!(out, "\nverdicts:");
        let _ = writeln!(out, "  {:<8} {:<9} {:<width$} when", "verdict", "exponent", "rows");
        for (group, rows) in report.verdicts.iter().zip(&members) {
            let (outcome, shown) = (&group.outcome, &group.configurations);
            let exp = exponent(outcome.exponent, &outcome.exponents);
            let _ = writeln!(out, "  {:<8} {exp:<9} {rows:<width$} {}", name(outcome.verdict), shown.when);
            if !shown.example.is_empty() {
                let example: Vec<String> = shown.example.iter().map(literal).collect();
                let _ = writeln!(out, "  {:<w$} e.g. {}", "", example.join(" and "), w = 8 + 1 + 9 + 1 + width);
            }
        }
    }
    // The rows, when some outcome is reached along several code paths (otherwise the verdicts
    // are the rows).
    if report.rows.len() != report.verdicts.len() || report.rows.is_empty() {
        let _ = writeln!(out, "\nconfigurations:");
        let _ = writeln!(out, "  {:<4} {:<8} {:<9} when", "row", "verdict", "exponent");
        for (i, row) in report.rows.iter().enumerate() {
            let exp = exponent(row.outcome.exponent, &row.outcome.exponents);
            let _ =
                writeln!(out, "  {:<4} {:<8} {exp:<9} {}", i + 1, name(row.outcome.verdict), row.configurations.when);
        }
    }
    if report.rows.is_empty() {
        let why = if report.stopped {
            "the evaluation stopped at a bound (below) before any configuration reached the end of the method"
        } else {
            "no configuration reaches the end of the method; as evaluated, every one raises or is excluded"
        };
        let _ = writeln!(out, "  (none: {why})");
    }
    if !report.raises.is_empty() {
        let what = if report.rows.is_empty() {
            "where it raises"
        } else {
            "where configurations raise, left out of the table"
        };
        let _ = writeln!(out, "\n{what} (share of configurations that raise there):");
        for raise in &report.raises {
            let source = match &raise.exception {
                Some(exception) => format!("{exception}: {}", raise.source),
                None => raise.source.clone(),
            };
            let _ = writeln!(out, "  {:>5.1}%  {}  {}", raise.share * 100.0, raise.location, short(&source));
        }
    }
    let mut shown: Vec<&SiteOut> = Vec::new();
    // Beside its blocks, a whole model's own output is a summary: the sites are the blocks'.
    let rows_in_detail = if report.blocks.is_empty() { report.rows.as_slice() } else { &[] };
    for (i, row) in rows_in_detail.iter().enumerate() {
        let v = serde_json::to_value(row.outcome.verdict)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let _ = writeln!(out, "\nrow {}: {v} when {}", i + 1, row.configurations.when);
        if !row.configurations.example.is_empty() {
            let _ = writeln!(out, "  one of these configurations:");
            for lit in &row.configurations.example {
                let _ = writeln!(out, "    {}", literal(lit));
            }
        }
        if let Some(reason) = &row.reason {
            let _ = writeln!(out, "  why unknown: {reason}");
        }
        if row.cut_at_bound {
            let _ = writeln!(
                out,
                "  not final: in some of these configurations values holding scaled data were cut at the alternatives bound (see bounds hit); an application may be missing"
            );
        }
        if !row.blocked_by.is_empty() {
            let _ = writeln!(out, "  blocked by:");
            for note in &row.blocked_by {
                let location = note.location.as_ref().map(|l| l.to_string()).unwrap_or_default();
                let _ = writeln!(out, "    {location}  {}", note.what);
            }
        }
        if row.parts.is_empty() {
            let _ = writeln!(out, "  no application of {} reaches the output here", report.value);
            for note in &row.normalized_at {
                let location = note.location.as_ref().map(|l| l.to_string()).unwrap_or_default();
                let _ =
                    writeln!(out, "  the value was applied, then its scale taken off at {location} ({})", note.what);
            }
            for note in &row.unwritten_at {
                let location = note.location.as_ref().map(|l| l.to_string()).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  the value was applied at {location} to a buffer nothing had written on this path (`torch.empty`): the output holds whatever memory held, not the code's data"
                );
            }
        }
        for part in &row.parts {
            let incomplete = if part.incomplete { " (incomplete)" } else { "" };
            let one_of = if part.alternative_sites { ", by one of these as the configuration decides" } else { "" };
            let whose = match (part.shared, part.exponent) {
                (true, e) if e > 0 => " (a shared expert's output: the factor must not scale it)",
                (true, _) => " (a shared expert's output)",
                _ => "",
            };
            let _ = writeln!(out, "  part of the output with exponent {}{whose}{incomplete}{one_of}:", part.exponent);
            for site in &part.sites {
                let sign = if site.exponent > 0 { format!("+{}", site.exponent) } else { site.exponent.to_string() };
                let kind = serde_json::to_value(site.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
                    .replace('_', " ");
                let _ = writeln!(out, "    {sign} {kind:<12} {}  | {}", site.location, short(&site.code));
                if shown.contains(&site) {
                    continue;
                }
                shown.push(site);
                if let Some(callee) = &site.callee {
                    let _ = writeln!(out, "         callee {callee}");
                }
                if let Some(note) = &site.note {
                    let _ = writeln!(out, "         {}", short(note));
                }
                let _ = writeln!(out, "         runs when {}", short(&site.when));
                for hop in &site.evidence {
                    let kind = serde_json::to_value(hop.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    let _ = writeln!(out, "         {kind:<9} {}  | {}", hop.location, short(&hop.code));
                }
            }
        }
        if row.unscaled_rest {
            let divided = row.parts.iter().map(|p| -p.exponent).max().unwrap_or(1);
            let times = if divided == 1 { "once".to_string() } else { format!("{divided} times") };
            let _ = writeln!(
                out,
                "  the rest of the output holds no application: relative to the part above, it carries {v} {times}. Right where the stream this output is added to is divided by {v} as well (vLLM's FP16 overflow guard keeps its residual stream so); where it is not, the part above is divided and the rest never scaled",
                v = report.value
            );
        }
    }
    if !report.vacuous.is_empty() {
        let _ = writeln!(out, "\nleft out of the table (the count cannot matter there):");
        for v in &report.vacuous {
            let _ = writeln!(out, "  {}   {}", v.condition, v.why);
        }
    }
    if !report.untouched_outputs.is_empty() {
        let _ = writeln!(
            out,
            "\nparts of the output never scaled in any configuration (left out of the verdict): {}",
            report.untouched_outputs.join(", ")
        );
    }
    if !global {
        return;
    }
    if !report.widest_splits.is_empty() {
        let _ = writeln!(out, "\nthe evaluation branched most on these atoms (fixing some with --assume narrows it):");
        for split in &report.widest_splits {
            // A value compared with several constants: the value and the first few of them.
            let values = match split.values.len() {
                0 => String::new(),
                n => {
                    let shown: Vec<&str> = split.values.iter().take(4).map(String::as_str).collect();
                    let more = if n > 4 { format!(", ... ({n} values)") } else { String::new() };
                    format!(" == {}{more}", shown.join(" | "))
                }
            };
            let _ = writeln!(
                out,
                "  {:>5} branches  {}{}   --assume {}",
                split.branches,
                short(&split.name),
                values,
                split.assume_as
            );
        }
    }
    // The atoms of every answer printed (the blocks' and the entry's).
    let mut atoms: Vec<&crate::eval::report::AtomOut> =
        report.atoms.iter().chain(report.blocks.iter().flat_map(|b| b.atoms.iter())).collect();
    atoms.sort_by(|a, b| a.name.cmp(&b.name));
    atoms.dedup_by(|a, b| a.name == b.name);
    if !atoms.is_empty() {
        let _ = writeln!(out, "\natoms (fix one with --assume):");
        for atom in &atoms {
            match &atom.defined_as {
                Some(test) => {
                    let _ = writeln!(out, "  {}   --assume {}   ({})", short(&atom.name), atom.assume_as, short(test));
                }
                None => {
                    let _ = writeln!(out, "  {}   --assume {}", short(&atom.name), atom.assume_as);
                }
            }
        }
        // Platform predicates are fixed all at once.
        if atoms.iter().any(|a| crate::eval::Platform::tests_platform(&a.name)) {
            let _ = writeln!(out, "  (the platform predicates among them: all at once with --platform NAME)");
        }
    }
    if !report.assumptions.is_empty() {
        let _ = writeln!(out, "\nassumed:");
        for a in &report.assumptions {
            let used = if a.used { "" } else { "   (matched nothing)" };
            let from = a.platform.map(|p| format!("   (--platform {p})")).unwrap_or_default();
            let _ = writeln!(out, "  {} = {}{used}{from}", a.name, a.value);
        }
    }
    if !report.unused.is_empty() {
        let _ = writeln!(out, "\nhanded to a parameter that is never read (nothing is applied through these calls):");
        for note in &report.unused {
            let location = note.location.as_ref().map(|l| format!("{l}  ")).unwrap_or_default();
            let _ = writeln!(out, "  {location}{}", note.what);
        }
    }
    if !report.unresolved.is_empty() {
        let _ = writeln!(out, "\nunresolved ({}):", report.unresolved.len());
        for note in &report.unresolved {
            let location = note.location.as_ref().map(|l| format!("{l}  ")).unwrap_or_default();
            let _ = writeln!(out, "  {location}{}", note.what);
        }
    }
    bounds_and_stats(out, report);
}

/// The bounds an evaluation hit, and its size.
fn bounds_and_stats(out: &mut String, report: &crate::eval::TraceReport) {
    if !report.bounds.is_empty() {
        let _ = writeln!(out, "\nbounds hit ({}):", report.bounds.len());
        for note in &report.bounds {
            let location = note.location.as_ref().map(|l| format!("{l}  ")).unwrap_or_default();
            let _ = writeln!(out, "  {location}{}", note.what);
        }
    }
    let _ = writeln!(
        out,
        "\n({} steps, {} objects, {} atoms, {} sites)",
        report.stats.steps, report.stats.objects, report.stats.atoms, report.stats.sites
    );
}
