//! Benchmark (not a test): index a whole tree cold and compare with only parsing the same
//! files with ruff_python_parser, in the same run, on the same thread pool.
//!
//!     cargo bench --bench index [-- ROOT]
//!
//! Without ROOT it indexes SGLang 0.5.23 (fetched by scripts/fetch-sglang.sh). Goals for the
//! index: at most 1.5x the parse-only time, peak memory at most 1 GB.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use scaletrace::{Workspace, WorkspaceOptions};

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn root() -> Option<PathBuf> {
    if let Some(arg) = std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        return Some(PathBuf::from(arg));
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/fetch-sglang.sh");
    let out = Command::new("bash").arg(script).output().ok()?;
    out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn main() {
    let Some(root) = root() else {
        eprintln!("no tree to index: pass a ROOT, or let scripts/fetch-sglang.sh download SGLang");
        return;
    };
    rayon::ThreadPoolBuilder::new().stack_size(scaletrace::STACK_SIZE).build_global().expect("thread pool");
    let threads = rayon::current_num_threads();

    let start = Instant::now();
    let workspace = Workspace::load(&WorkspaceOptions { roots: vec![root.clone()], ..WorkspaceOptions::default() });
    let index_time = start.elapsed();
    let index_peak = peak_rss_mb();
    let files = workspace.index.files.len();
    let bytes: usize = workspace.index.files.iter().map(|f| f.text.len()).sum();

    // Parse only: the same sources, already in memory, parsed and dropped.
    let sources: Vec<std::sync::Arc<str>> = workspace.index.files.iter().map(|f| f.text.clone()).collect();
    let start = Instant::now();
    let errors: usize = sources
        .par_iter()
        .map(|text| {
            ruff_python_parser::parse_unchecked_source(text, ruff_python_ast::PySourceType::Python).errors().len()
        })
        .sum();
    let parse_time = start.elapsed();

    println!("tree:        {} ({files} files, {:.1} MB, {errors} syntax errors)", root.display(), bytes as f64 / 1e6);
    println!("threads:     {threads}");
    println!("index (cold: discover, read, parse, collect facts): {:>8.1} ms", index_time.as_secs_f64() * 1e3);
    println!("parse only (ruff_python_parser, sources in memory): {:>8.1} ms", parse_time.as_secs_f64() * 1e3);
    println!(
        "ratio index / parse-only:                            {:>8.2}x (goal <= 1.5x)",
        index_time.as_secs_f64() / parse_time.as_secs_f64()
    );
    match index_peak {
        Some(mb) => println!("peak memory after indexing:                         {mb:>8.0} MB (goal <= 1024 MB)"),
        None => println!("peak memory: not available on this platform"),
    }
}
