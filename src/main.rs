//! The `scaletrace` binary: parses the command line, loads the tree, runs one query, renders the
//! answer, and decides the exit code. The only place that knows about formats and exit codes.

mod cli;
mod exit_codes;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use scaletrace::query::target;
use scaletrace::{STACK_SIZE, report};
use scaletrace::{Workspace, WorkspaceOptions};

use crate::cli::{Cli, Command, Format};
use crate::exit_codes::Exit;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let threads = cli.global.threads.unwrap_or(0);
    if let Err(err) = rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(STACK_SIZE).build_global() {
        eprintln!("scaletrace: cannot start worker threads: {err}");
        return Exit::Internal.into();
    }
    let worker = std::thread::Builder::new().stack_size(STACK_SIZE).name("scaletrace".into()).spawn(move || run(cli));
    let exit = match worker.map(|handle| handle.join()) {
        Ok(Ok(exit)) => exit,
        _ => {
            eprintln!("scaletrace: internal error (a bug); please report it with the command line that caused it");
            Exit::Internal
        }
    };
    exit.into()
}

fn run(cli: Cli) -> Exit {
    let options = WorkspaceOptions { roots: cli.global.roots.clone(), max_file_size: cli.global.max_file_size };
    let workspace = Workspace::load(&options);
    if !cli.global.quiet {
        for diagnostic in &workspace.diagnostics {
            eprintln!("warning: {diagnostic}");
        }
    }
    if workspace.index.files.is_empty() {
        eprintln!(
            "scaletrace: no Python files under {}",
            options.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
        );
        return Exit::Usage;
    }
    let resolver = workspace.resolver();
    let format = cli.global.format;
    let (rendered, exit) = match &cli.command {
        Command::Instances { class, subclasses } => match target::find_class(&resolver, class) {
            Ok(class) => {
                let answer = scaletrace::query::instances::instances(&resolver, class, *subclasses);
                (render(format, &answer, report::text::instances), Exit::Success)
            }
            Err(err) => return usage(&err),
        },
        Command::Bindings { callable, param, any } => {
            let (callables, param) = match (callable, param, any) {
                (Some(spec), Some(param), None) => match target::find(&resolver, spec) {
                    Ok(target) => (scaletrace::query::bindings::Callables::One(target), param),
                    Err(err) => return usage(&err),
                },
                (None, None, Some(param)) => (scaletrace::query::bindings::Callables::Any, param),
                _ => return usage(&"give CALLABLE and PARAM, or --any PARAM"),
            };
            match scaletrace::query::bindings::bindings(&resolver, callables, param) {
                Ok(answer) => (render(format, &answer, report::text::bindings), Exit::Success),
                Err(err) => return usage(&err),
            }
        }
        Command::Hierarchy { class, member } => match target::find_class(&resolver, class) {
            Ok(class) => {
                let answer = scaletrace::query::hierarchy::hierarchy(&resolver, class, member.as_deref());
                (render(format, &answer, report::text::hierarchy), Exit::Success)
            }
            Err(err) => return usage(&err),
        },
        Command::Refs { name } => match target::find(&resolver, name) {
            Ok(target) => {
                let answer = scaletrace::query::refs::refs(&resolver, target);
                (render(format, &answer, report::text::refs), Exit::Success)
            }
            Err(err) => return usage(&err),
        },
        Command::Returns { function } => match target::find(&resolver, function) {
            Ok(target::Target::Function(func)) => {
                let answer = scaletrace::query::returns::returns(&resolver, func);
                (render(format, &answer, report::text::returns), Exit::Success)
            }
            Ok(other) => return usage(&format!("`{}` is not a function", other.path(&resolver.index))),
            Err(err) => return usage(&err),
        },
        Command::Trace(args) => match trace_options(&resolver, args) {
            Ok(options) => match scaletrace::eval::run(&resolver, options) {
                Ok(answer) => {
                    let exit = match answer.verdict {
                        scaletrace::eval::report::Verdict::Once => Exit::Success,
                        scaletrace::eval::report::Verdict::Unknown => Exit::Unknown,
                        _ => Exit::Finding,
                    };
                    (render(format, &answer, report::text::trace), exit)
                }
                Err(err) => return usage(&err),
            },
            Err(err) => return usage(&err),
        },
        Command::Stats => {
            let answer = scaletrace::query::stats::stats(&workspace);
            (render(format, &answer, report::text::stats), Exit::Success)
        }
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(err) = stdout.write_all(rendered.as_bytes()).and_then(|()| stdout.flush()) {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return exit;
        }
        eprintln!("scaletrace: cannot write output: {err}");
        return Exit::Internal;
    }
    exit
}

fn render<T: serde::Serialize>(format: Format, answer: &T, text: impl Fn(&T) -> String) -> String {
    match format {
        Format::Text => text(answer),
        Format::Json => report::json::to_string(answer),
    }
}

fn usage(err: &dyn std::fmt::Display) -> Exit {
    eprintln!("scaletrace: {err}");
    Exit::Usage
}

/// Turns the trace arguments into options: the entry resolved, assumptions parsed, kernel
/// model files read.
fn trace_options(
    resolver: &scaletrace::resolve::Resolver,
    args: &cli::TraceArgs,
) -> Result<scaletrace::eval::TraceOptions, String> {
    use scaletrace::eval::{Assume, AssumedValue};
    use scaletrace::syntax::Constant;
    let index = resolver.index;
    let (entry, methods) = match target::find(resolver, &args.entry).map_err(|e| e.to_string())? {
        target::Target::Class(class) => (class, args.methods.clone()),
        target::Target::Function(func) => match index.function(func).class() {
            Some(class) if args.methods.is_empty() => (class, vec![index.function(func).name.to_string()]),
            Some(_) => return Err("give either --entry CLASS.METHOD or --methods, not both".into()),
            None => return Err(format!("`{}` is a function; the entry is a class or a method", args.entry)),
        },
        target::Target::Module(_) => {
            return Err(format!("`{}` is a module; the entry is a class or a method", args.entry));
        }
    };
    let mut assumes = Vec::new();
    for spec in &args.assumes {
        let Some((name, value)) = split_assume(spec) else {
            return Err(format!("--assume `{spec}`: expected NAME=VALUE"));
        };
        let value = value.trim();
        let parsed = match value {
            "true" | "True" => AssumedValue::Const(Constant::Bool(true)),
            "false" | "False" => AssumedValue::Const(Constant::Bool(false)),
            // Python's `None`; `none` is a word like any other (the all-to-all backend "none").
            "None" => AssumedValue::Const(Constant::None),
            _ => {
                if let Ok(i) = value.parse::<i64>() {
                    AssumedValue::Const(Constant::Int(i))
                } else if let Ok(x) = value.parse::<f64>() {
                    AssumedValue::Const(Constant::Float(x))
                } else if let Some(s) = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                {
                    AssumedValue::Const(Constant::Str(s.to_string()))
                } else {
                    match target::find_class(resolver, value) {
                        Ok(class) => AssumedValue::Class(class),
                        // A class name that is not unique is not taken for a string.
                        Err(e @ target::TargetError::Ambiguous { .. }) => {
                            let name = name.trim();
                            return Err(format!(
                                "--assume `{spec}`: {e}\nor quote the value to mean the string: --assume '{name}=\"{value}\"'"
                            ));
                        }
                        Err(_) => AssumedValue::Const(Constant::Str(value.to_string())),
                    }
                }
            }
        };
        assumes.push(Assume {
            name: name.trim().to_string(),
            value: parsed,
            used: std::cell::Cell::new(false),
            from_platform: None,
        });
    }
    // After the user's own: an `--assume` of the same name wins (the first match is taken).
    if let Some(name) = &args.platform {
        let platform = scaletrace::eval::Platform::parse(name).ok_or_else(|| {
            format!("--platform `{name}`: not a platform this knows (cuda, rocm, npu, cpu, xpu, musa, mps, tpu, hpu)")
        })?;
        assumes.extend(platform.assumptions());
    }
    let origin = match &args.origin {
        None => None,
        Some(spec) => {
            let (path, line) = spec.rsplit_once(':').ok_or_else(|| format!("--origin `{spec}`: expected FILE:LINE"))?;
            let line: u32 = line.parse().map_err(|_| format!("--origin `{spec}`: LINE is not a number"))?;
            let file = index
                .files
                .iter_enumerated()
                .find(|(_, f)| f.display == path || f.display.ends_with(&format!("/{path}")))
                .map(|(id, _)| id)
                .ok_or_else(|| format!("--origin `{spec}`: no such file in the tree"))?;
            Some((file, line))
        }
    };
    if args.max_alternatives < 2 {
        return Err(format!("--max-alternatives {}: a value keeps at least 2", args.max_alternatives));
    }
    let mut kernel_files = Vec::new();
    for path in &args.kernels {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--kernels {}: {e}", path.display()))?;
        kernel_files.push((path.display().to_string(), text));
    }
    Ok(scaletrace::eval::TraceOptions {
        value: args.value.clone(),
        entry,
        methods,
        assumes,
        origin,
        kernel_files,
        max_steps: args.max_steps,
        max_nodes: scaletrace::eval::MAX_NODES,
        max_alternatives: args.max_alternatives,
        max_cases: args.max_cases,
    })
}

/// `NAME=VALUE` split at its `=`: the last one outside quotes that is not part of a comparison
/// (`==`, `!=`, `<=`, `>=`), so an atom's text can be the name (`'i < n=true'`, `'a == b=true'`)
/// and a quoted value can hold one (`NAME="a=b"`).
fn split_assume(spec: &str) -> Option<(&str, &str)> {
    let bytes = spec.as_bytes();
    let mut quote: Option<u8> = None;
    let mut at = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'=' => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 1).copied();
                if !matches!(before, Some(b'=' | b'!' | b'<' | b'>')) && after != Some(b'=') {
                    at = Some(i);
                }
            }
            None => {}
        }
    }
    at.map(|i| (&spec[..i], &spec[i + 1..]))
}
