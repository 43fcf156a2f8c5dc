//! Broken input gives warnings and a result, never a panic or a stack overflow.

use std::fmt::Write;

use crate::{fixture, run};

#[test]
fn syntax_errors_non_utf8_empty_files_and_cycles() {
    let root = fixture("broken");
    let stats = run(&root, &["stats"]);
    assert_eq!(stats.code, 0);
    insta::assert_snapshot!(stats.snapshot());
    // A class defined after the syntax error is still found and its construction listed.
    let after_error = run(&root, &["-q", "instances", "AlsoGood"]);
    assert_eq!(after_error.code, 0);
    assert!(after_error.stdout.contains("pkg/syntax_error.py:14:5"), "{}", after_error.stdout);
}

#[test]
fn import_cycles_end() {
    // cycle_a and cycle_b import `Thing` (and `*`) from each other; nobody defines it.
    let out = run(&fixture("broken"), &["-q", "refs", "pkg.cycle_a.make"]);
    assert_eq!(out.code, 0);
    let out = run(&fixture("broken"), &["-q", "bindings", "--any", "x"]);
    assert_eq!(out.code, 0);
}

#[test]
fn inheritance_cycles_end_with_a_problem() {
    let out = run(&fixture("broken"), &["-q", "hierarchy", "pkg.inherit_cycle.A"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("problem: inheritance cycle"), "{}", out.stdout);
    let out = run(&fixture("broken"), &["-q", "instances", "pkg.inherit_cycle.B", "--subclasses"]);
    assert_eq!(out.code, 0);
}

fn temp_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

#[test]
fn deeply_nested_expressions_do_not_overflow() {
    let depth = 5000;
    let mut source = String::from("class Deep:\n    pass\n\n");
    // 5,000 nested parentheses around a call, 5,000 nested unary minus, a 5,000-deep list.
    let _ = writeln!(source, "a = {}Deep(){}", "(".repeat(depth), ")".repeat(depth));
    let _ = writeln!(source, "b = {}1", "-".repeat(depth));
    let _ = writeln!(source, "c = {}Deep(){}", "[".repeat(depth), "]".repeat(depth));
    let _ = writeln!(source, "d = Deep(x={}1)", "not ".repeat(depth));
    let dir = temp_tree(&[("deep.py", &source)]);
    let out = run(dir.path(), &["instances", "Deep"]);
    assert_eq!(out.code, 0, "{}", out.snapshot());
    assert!(out.stdout.contains("deep.py:4:"), "{}", out.stdout);
    assert!(out.stderr.contains("nesting deeper than"), "the bound is reported:\n{}", out.stderr);
}

#[test]
fn a_ten_megabyte_file_is_analyzed_and_a_larger_limit_is_enforced() {
    let mut source = String::from("class Big:\n    def __init__(self, n=0):\n        self.n = n\n\n");
    let mut i = 0;
    while source.len() < 10 * 1024 * 1024 {
        let _ = writeln!(source, "def f{i}(x):\n    return Big(n={i})\n");
        i += 1;
    }
    let dir = temp_tree(&[("big.py", &source)]);
    let out = run(dir.path(), &["bindings", "Big", "n", "--format", "json"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.json()["sites"].as_array().unwrap().len(), i);
    let limited = run(dir.path(), &["--max-file-size", "1000000", "stats"]);
    assert_eq!(limited.code, 0);
    assert!(limited.stderr.contains("over the 1000000-byte limit"), "{}", limited.stderr);
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_not_followed_forever() {
    let dir = temp_tree(&[("pkg/__init__.py", ""), ("pkg/mod.py", "class M:\n    pass\n\nM()\n")]);
    std::os::unix::fs::symlink(dir.path().join("pkg"), dir.path().join("pkg/again")).unwrap();
    let out = run(dir.path(), &["instances", "M"]);
    assert_eq!(out.code, 0, "{}", out.snapshot());
    assert!(out.stderr.contains("symlink loop"), "{}", out.stderr);
    assert!(out.stdout.contains("constructed at 1 site"), "{}", out.stdout);
}

#[test]
fn an_empty_root_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["stats"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no Python files"), "{}", out.stderr);
}

#[test]
fn a_missing_root_is_reported() {
    let out = run(std::path::Path::new("/nonexistent/scaletrace-root"), &["stats"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot read root"), "{}", out.stderr);
}
