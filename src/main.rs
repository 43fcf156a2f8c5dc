//! The `scaletrace` binary: parses the command line, loads the tree, runs one query, renders the
//! answer, and decides the exit code. The only place that knows about formats and exit codes.

mod cli;
mod exit_codes;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use scaletrace::query::target;
use scaletrace::report;
use scaletrace::{Workspace, WorkspaceOptions};

use crate::cli::{Cli, Command, Format};
use crate::exit_codes::Exit;

/// Deep but legal Python (long `elif` chains, nested calls) recurses; give every thread room.
const STACK_SIZE: usize = 256 * 1024 * 1024;

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
