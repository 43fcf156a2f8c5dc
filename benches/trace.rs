//! Benchmark (not a test): the DeepSeek V4 trace on SGLang 0.5.23, cold, next to the time of
//! parsing the whole tree with ruff_python_parser in the same run.
//!
//!     cargo bench --bench trace [-- ROOT [ENTRY]]
//!
//! Goal: under 1 s and under 2x the parse-only time. The verdict is printed too, since a fast
//! trace that stopped at a bound is not the goal.
//!
//! Printed after it, for comparison only: the walkthrough's question (section 3), V4's MoE
//! block `DeepseekV2MoE` on CUDA with its thirteen assumptions, as a user asks it.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use scaletrace::eval::{Assume, AssumedValue, Platform, TraceOptions, run};
use scaletrace::query::target;
use scaletrace::syntax::Constant;
use scaletrace::{Workspace, WorkspaceOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let root = match args.first() {
        Some(root) => PathBuf::from(root),
        None => {
            let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/fetch-sglang.sh");
            match Command::new("bash").arg(script).output() {
                Ok(out) if out.status.success() => PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
                _ => {
                    eprintln!("no tree: pass a ROOT, or let scripts/fetch-sglang.sh download SGLang");
                    return;
                }
            }
        }
    };
    let entry = args.get(1).cloned().unwrap_or_else(|| "sglang.srt.models.deepseek_v4.DeepseekV4ForCausalLM".into());
    rayon::ThreadPoolBuilder::new().stack_size(scaletrace::STACK_SIZE).build_global().expect("thread pool");

    let start = Instant::now();
    let workspace = Workspace::load(&WorkspaceOptions { roots: vec![root.clone()], ..WorkspaceOptions::default() });
    let index_time = start.elapsed();
    let resolver = workspace.resolver();
    let class = match target::find_class(&resolver, &entry) {
        Ok(class) => class,
        Err(err) => {
            eprintln!("{err}");
            return;
        }
    };
    let options = TraceOptions {
        value: "routed_scaling_factor".into(),
        entry: class,
        methods: Vec::new(),
        assumes: Vec::new(),
        origin: None,
        kernel_files: Vec::new(),
        max_steps: scaletrace::eval::MAX_STEPS,
        max_nodes: scaletrace::eval::MAX_NODES,
        max_alternatives: scaletrace::eval::MAX_ALTERNATIVES,
        max_cases: scaletrace::eval::split::MAX_CASES,
    };
    let template = options.clone();
    let (trace_time, outcome) = timed_trace(&resolver, options);
    // The walkthrough's question: `--platform cuda` and its other assumptions.
    let block = target::find_class(&resolver, "sglang.srt.models.deepseek_v2.DeepseekV2MoE").ok().map(|block| {
        let constant = |name: &str, value: Constant| Assume {
            name: name.into(),
            value: AssumedValue::Const(value),
            used: std::cell::Cell::new(false),
            from_platform: None,
        };
        let mut assumes = vec![
            constant("is_deepseek_v4", Constant::Bool(true)),
            constant("quant_config", Constant::None),
            constant("get_moe_a2a_backend()", Constant::Str("none".into())),
            constant("_oot_dispatch_key()", Constant::None),
            constant("get_fused_op_backend()", Constant::None),
            constant("get_exec().moe.enable_paged_experts", Constant::Bool(false)),
        ];
        assumes.extend(Platform::parse("cuda").expect("a platform").assumptions());
        timed_trace(&resolver, TraceOptions { entry: block, assumes, ..template })
    });

    let sources: Vec<std::sync::Arc<str>> = workspace.index.files.iter().map(|f| f.text.clone()).collect();
    let start = Instant::now();
    let _: usize = sources
        .par_iter()
        .map(|t| ruff_python_parser::parse_unchecked_source(t, ruff_python_ast::PySourceType::Python).errors().len())
        .sum();
    let parse_time = start.elapsed();

    println!("tree:        {} ({} files)", root.display(), workspace.index.files.len());
    println!("entry:       {entry}");
    println!("index (cold):                 {:>9.1} ms", index_time.as_secs_f64() * 1e3);
    println!("trace (after the index):      {:>9.1} ms", trace_time.as_secs_f64() * 1e3);
    println!("parse only (whole tree):      {:>9.1} ms", parse_time.as_secs_f64() * 1e3);
    println!(
        "ratio trace / parse-only:     {:>9.2}x (goal: under 1 s and under 2x)",
        trace_time.as_secs_f64() / parse_time.as_secs_f64()
    );
    print_outcome(outcome);
    if let Some((block_time, block_outcome)) = block {
        println!();
        println!("for comparison, the walkthrough's question (DeepseekV2MoE, --platform cuda, 6 more assumptions):");
        println!("trace (after the index):      {:>9.1} ms", block_time.as_secs_f64() * 1e3);
        println!("ratio trace / parse-only:     {:>9.2}x", block_time.as_secs_f64() / parse_time.as_secs_f64());
        print_outcome(block_outcome);
    }
}

type Outcome = Result<(scaletrace::eval::report::Verdict, usize, usize), String>;

/// A trace as the command runs it (answered case by case where a bound stops it), timed. The
/// evaluator recurses deeply on real code: it runs on a thread with room.
fn timed_trace(resolver: &scaletrace::resolve::Resolver, options: TraceOptions) -> (std::time::Duration, Outcome) {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .stack_size(scaletrace::STACK_SIZE)
            .spawn_scoped(scope, || {
                let start = Instant::now();
                let report = run(resolver, options);
                (start.elapsed(), report.map(|r| (r.verdict, r.bounds.len(), r.unresolved.len())))
            })
            .expect("thread");
        handle.join().expect("trace")
    })
}

fn print_outcome(outcome: Outcome) {
    match outcome {
        Ok((verdict, bounds, unresolved)) => {
            println!("verdict:     {verdict:?} ({bounds} bounds hit, {unresolved} unresolved)")
        }
        Err(err) => println!("trace failed: {err}"),
    }
}
