//! The four structural queries on the resolution and hierarchy fixtures, one snapshot per
//! question, text and JSON.

use crate::{fixture, run};

fn resolution(args: &[&str]) -> crate::Run {
    run(&fixture("resolution"), args)
}

#[test]
fn instances_through_every_kind_of_reference() {
    // Direct names, `import a.b as c`, relative imports, `__init__` re-exports, star imports,
    // module attributes, aliases, conditional class expressions, factories, cls(), type(self)().
    let out = resolution(&["instances", "Router", "--subclasses"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn instances_json_is_stable() {
    let out = resolution(&["instances", "app.layers.routing.Router", "--format", "json"]);
    assert_eq!(out.code, 0);
    let json = out.json();
    assert_eq!(json["class"]["path"], "app.layers.routing.Router");
    insta::assert_json_snapshot!(json);
}

#[test]
fn instances_of_a_class_in_a_namespace_package() {
    let out = resolution(&["instances", "nspkg.inner.tools.Tool"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("app/models/moe.py:28:21"), "{}", out.stdout);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn factory_that_returns_a_class_of_a_star_reexported_module() {
    // `get_experts_class` reaches app.models.moe through `from .experts import *` in
    // app/layers/__init__.py, which `__all__` allows.
    let out = resolution(&["instances", "EpExperts"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("return EpExperts"), "{}", out.stdout);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn bindings_follow_kwargs_dicts_and_updates() {
    let out = resolution(&["bindings", "Router", "fold_scale"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn bindings_any_lists_every_callable_with_the_parameter() {
    let out = resolution(&["bindings", "--any", "scale_on_output", "--format", "json"]);
    assert_eq!(out.code, 0);
    insta::assert_json_snapshot!(out.json());
}

#[test]
fn bindings_of_a_missing_parameter_is_a_usage_error() {
    let out = resolution(&["bindings", "Router", "nope"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("its parameters: top_k, num_experts, scale, fold_scale, name"), "{}", out.stderr);
}

#[test]
fn refs_resolve_instead_of_matching_text() {
    // `Router_lookalike` binds a local `Router`: a text match that is not the class.
    let out = resolution(&["refs", "app.layers.routing.Router"]);
    assert_eq!(out.code, 0);
    assert!(!out.stdout.contains("moe.py:36"), "the local lambda is not the class:\n{}", out.stdout);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn ambiguous_and_unknown_names_exit_2_with_candidates() {
    let ambiguous = resolution(&["returns", "__init__"]);
    assert_eq!(ambiguous.code, 2);
    assert!(ambiguous.stderr.contains("is ambiguous"), "{}", ambiguous.stderr);
    // Asked for a class, a name only functions have is no class, not a choice among them.
    let no_class = resolution(&["hierarchy", "__init__"]);
    assert_eq!(no_class.code, 2);
    assert!(no_class.stderr.contains("no class named `__init__`"), "{}", no_class.stderr);
    let unknown = resolution(&["instances", "Routr"]);
    assert_eq!(unknown.code, 2);
    insta::assert_snapshot!(unknown.snapshot());
}

#[test]
fn hierarchy_with_diamond_mro_and_attribute_origins() {
    let out = run(&fixture("hierarchy"), &["hierarchy", "Diamond"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn hierarchy_reports_an_mro_conflict() {
    let out = run(&fixture("hierarchy"), &["hierarchy", "pkg.diamond.Conflict", "--format", "json"]);
    assert_eq!(out.code, 0);
    let json = out.json();
    assert!(json["mro_problems"][0].as_str().unwrap().contains("no consistent method resolution order"));
    insta::assert_json_snapshot!(json);
}

#[test]
fn super_calls_resolve_through_the_mro() {
    let out = run(&fixture("hierarchy"), &["refs", "pkg.base.Left.scale"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("pkg/diamond.py:20:24"), "super().scale() in Leaf calls Left.scale:\n{}", out.stdout);
}

#[test]
fn several_roots_are_searched_in_order() {
    let roots = [fixture("resolution"), fixture("hierarchy")];
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scaletrace"))
        .args(["--root", roots[0].to_str().unwrap(), "--root", roots[1].to_str().unwrap(), "stats", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["files"], 15);
}

#[test]
fn a_package_directory_as_root_keeps_full_module_names() {
    let out = run(&fixture("resolution").join("app"), &["instances", "app.layers.routing.Router"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("app.layers.routing.Router: constructed at 8 sites"), "{}", out.stdout);
}
