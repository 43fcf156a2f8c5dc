//! `trace` on fixture trees: each pattern in a correct and a buggy variant, with the verdict
//! the code calls for (read by hand) and snapshots of what the user sees.

use crate::{fixture, run};

/// Runs a trace and returns (exit code, verdict, the run).
fn trace(tree: &str, args: &[&str]) -> (i32, String, crate::Run) {
    let mut all = vec!["trace", "routed_scaling_factor"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = run(&fixture(tree), &all);
    let verdict = out.json()["verdict"].as_str().unwrap_or_default().to_string();
    (out.code, verdict, out)
}

/// The rows as (verdict, exponent, when) triples.
fn rows(out: &crate::Run) -> Vec<(String, i64, String)> {
    out.json()["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["verdict"].as_str().unwrap().to_string(),
                r["exponent"].as_i64().unwrap_or(i64::MIN),
                r["when"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The conditions left out of the table as vacuous (JSON `vacuous`), in order.
fn vacuous_conditions(out: &crate::Run) -> Vec<String> {
    let json = out.json();
    json["vacuous"].as_array().into_iter().flatten().map(|v| v["condition"].as_str().unwrap().to_string()).collect()
}

/// The only block of a trace: its entry and its rows as (verdict, when) pairs.
fn only_block(out: &crate::Run) -> (String, Vec<(String, String)>) {
    let json = out.json();
    let blocks = json["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{}", out.stdout);
    let rows = blocks[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["verdict"].as_str().unwrap().to_string(), r["when"].as_str().unwrap().to_string()))
        .collect();
    (blocks[0]["entry"].as_str().unwrap().to_string(), rows)
}

#[test]
fn flag_set_in_one_class_and_read_in_another_is_once() {
    let (code, verdict, out) = trace("trace/flags", &["--entry", "CorrectMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // The flag crossed a kwargs dict update and a property: still one atom for both branches.
    assert_eq!(out.json()["atoms"].as_array().unwrap().len(), 1);
}

#[test]
fn forgetting_the_flag_doubles_exactly_where_it_is_set() {
    let (code, verdict, out) = trace("trace/flags", &["--entry", "DoubleMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"));
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (config.backend == \"fused\")".into()),
            ("TWICE".into(), 2, "config.backend == \"fused\"".into())
        ]
    );
}

#[test]
fn an_early_return_before_the_scaling_is_never() {
    let (code, verdict, out) = trace("trace/flags", &["--entry", "NeverMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"));
    assert!(
        rows(&out).contains(&("NEVER".into(), 0, "not (config.backend == \"fused\") and use_fast_path".into())),
        "{:?}",
        rows(&out)
    );
}

#[test]
fn assuming_the_flag_away_leaves_once() {
    let (code, verdict, _) = trace("trace/flags", &["--entry", "NeverMoE", "--assume", "use_fast_path=false"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"));
    let (code, verdict, _) = trace("trace/flags", &["--entry", "DoubleMoE", "--assume", "config.backend=triton"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"));
}

#[test]
fn a_factory_chosen_class_whose_kernel_applies_the_factor_doubles() {
    let (code, verdict, out) = trace("trace/shapes", &["--entry", "FactoryMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"));
    assert_eq!(rows(&out)[1], ("TWICE".into(), 2, "config.backend == \"flash\"".into()));
    let site = &out.json()["rows"][1]["parts"][0]["sites"][0];
    assert_eq!(site["kind"], "delegated");
    assert_eq!(site["callee"], "vendor_kernels.fused_moe");
}

#[test]
fn alpha_in_the_shared_add_is_one_application() {
    let (code, verdict, out) = trace("trace/shapes", &["--entry", "AlphaMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"));
    assert_eq!(out.json()["rows"][0]["parts"][0]["sites"][0]["kind"], "alpha");
}

#[test]
fn a_division_compensated_later_is_once_and_inverse_where_it_is_not() {
    let (code, verdict, out) = trace("trace/shapes", &["--entry", "FusedSharedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"));
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (config.device == \"npu\")".into()),
            ("INVERSE".into(), -1, "config.device == \"npu\"".into())
        ]
    );
}

#[test]
fn a_kernel_model_decides_whether_passing_the_factor_applies_it() {
    // Without a model the kernel counts as applying it: a double application is never hidden.
    let (_, verdict, _) = trace("trace/shapes", &["--entry", "GateKernelMoE"]);
    assert_eq!(verdict, "TWICE");
    let kernels = fixture("trace/shapes/kernels.toml");
    let (code, verdict, out) =
        trace("trace/shapes", &["--entry", "GateKernelMoE", "--kernels", kernels.to_str().unwrap()]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // The test on an argument nothing resolves is an atom named by that argument (it was
    // named by the whole call, which reads as if the kernel's result were the flag).
    let (_, _, out) =
        trace("trace/shapes", &["--entry", "UnsetFlagGateKernelMoE", "--kernels", kernels.to_str().unwrap()]);
    let atoms: Vec<String> =
        out.json()["atoms"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(atoms, ["config.fold_in_gate", "vendor_kernels.load_settings().fold"]);
}

#[test]
fn inherited_forward_dispatch_unknown_receivers_and_hash_layers_make_a_table() {
    let out = run(&fixture("trace/dispatch"), &["trace", "routed_scaling_factor", "--entry", "net.model.Model"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn the_table_as_json() {
    let (_, verdict, out) = trace("trace/dispatch", &["--entry", "net.model.Model"]);
    assert_eq!(verdict, "MIXED");
    insta::assert_json_snapshot!(out.json());
}

#[test]
fn a_pipeline_of_methods_sharing_state() {
    let (code, verdict, out) =
        trace("trace/dispatch", &["--entry", "net.model.Pipelined", "--methods", "op_route,op_experts"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"));
    assert!(rows(&out).iter().all(|(v, _, when)| (v == "TWICE") == when.contains("Int4Method")), "{:?}", rows(&out));
}

#[test]
fn a_registry_looked_up_with_a_configuration_key() {
    let (_, verdict, out) = trace("trace/dispatch", &["--entry", "net.model.Registered"]);
    assert_eq!(verdict, "MIXED");
    assert!(
        rows(&out).contains(&("NEVER".into(), 0, "config.combine == \"plain\" and quant_method is Fp8Method".into())),
        "{:?}",
        rows(&out)
    );
}

#[test]
fn a_router_record_is_judged_on_its_weights_and_the_entry_parameter_is_the_origin() {
    // The factor arrives as a constructor parameter of the entry; the output is a record whose
    // ids and logits never carry it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "Router"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "apply_routed_scaling_factor_on_output".into()),
            ("NEVER".into(), 0, "not apply_routed_scaling_factor_on_output".into())
        ]
    );
    assert_eq!(out.json()["untouched_outputs"], serde_json::json!([".router_logits", ".topk_ids"]));
}

#[test]
fn a_kernel_filling_output_buffers_with_the_factor_is_a_delegated_application() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "BufferRouter"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = rows(&out);
    assert!(
        rows.contains(&("TWICE".into(), 2, "_use_fast_kernel and apply_routed_scaling_factor_on_output".into())),
        "{rows:?}"
    );
    assert!(rows.contains(&(
        "ONCE".into(),
        1,
        "_use_fast_kernel and not apply_routed_scaling_factor_on_output".into()
    )));
    let text = run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", "BufferRouter"]);
    insta::assert_snapshot!(text.stdout);
}

#[test]
fn skipping_empty_batches_or_a_factor_of_one_is_not_a_missing_application() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "ShortcutMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(vacuous_conditions(&out), ["hidden_states.shape[0] == 0", "self.routed_scaling_factor == 1.0"]);
    // Skipping for another threshold is a real gap.
    let (code, verdict, out) = trace("trace/router", &["--entry", "SkippedWhenSmallMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"));
    assert!(rows(&out).contains(&("NEVER".into(), 0, "not (self.routed_scaling_factor > 2.0)".into())));
}

#[test]
fn a_sentinel_is_itself_and_nothing_else() {
    // `_UNSET = object()`; `if forced is _UNSET` must not become a configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "OverridableMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    let atoms: Vec<&str> = json["atoms"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(atoms, ["forced_backend() == \"reference\""]);
}

/// A tree whose `Wide.forward` tests more configuration flags than the atom bound allows
/// (so the evaluation is cut short), with `extra(i)` inserted after the `i`-th test.
fn wide_tree(extra: impl Fn(usize) -> String) -> tempfile::TempDir {
    let mut body = String::new();
    for i in 0..4100 {
        body.push_str(&format!("        if config.flag_{i}:\n            x = x + 0\n"));
        body.push_str(&extra(i));
    }
    let source = format!(
        "import torch\nfrom torch import nn\n\nclass Wide(nn.Module):\n    def __init__(self, config):\n        super().__init__()\n        self.config = config\n        self.routed_scaling_factor = config.routed_scaling_factor\n\n    def forward(self, x):\n        config = self.config\n{body}        return x * self.routed_scaling_factor\n"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("wide")).unwrap();
    std::fs::write(dir.path().join("wide/__init__.py"), "").unwrap();
    std::fs::write(dir.path().join("wide/model.py"), source).unwrap();
    dir
}

/// `if TEST:` with a body, indented for `wide_tree`, when `due`.
fn wide_test(due: bool, test: &str) -> String {
    if due { format!("        if {test}:\n            x = x + 0\n") } else { String::new() }
}

#[test]
fn a_trace_cut_short_names_the_atoms_to_assume_first() {
    // More tests than the atom bound: the evaluation is cut short, and says which atom it
    // branched on most.
    let dir = wide_tree(|i| wide_test(i % 80 == 0, "config.hot"));
    let out =
        run(dir.path(), &["trace", "routed_scaling_factor", "--entry", "Wide", "--max-cases", "0", "--format", "json"]);
    let json = out.json();
    assert_eq!((out.code, json["verdict"].as_str().unwrap()), (3, "UNKNOWN"), "{}", out.stdout);
    let top = &json["widest_splits"][0];
    assert_eq!(top["name"], "config.hot");
    assert_eq!(top["branches"], 52);
    assert_eq!(top["assume_as"], "config.hot=true");
}

#[test]
fn a_value_compared_with_several_constants_is_one_atom_to_assume() {
    // `config.backend == "a"` and `== "b"` are two atoms and one question: listed as the value,
    // with its constants (most branched on first), and branched on more than `config.hot`
    // counted together.
    let dir = wide_tree(|i| {
        wide_test(i % 80 == 0, "config.hot")
            + &wide_test(i % 100 == 0, "config.backend == \"a\"")
            + &wide_test(i % 150 == 0, "config.backend == \"b\"")
    });
    let out =
        run(dir.path(), &["trace", "routed_scaling_factor", "--entry", "Wide", "--max-cases", "0", "--format", "json"]);
    let json = out.json();
    assert_eq!((out.code, json["verdict"].as_str().unwrap()), (3, "UNKNOWN"), "{}", out.stdout);
    let top = &json["widest_splits"][0];
    assert_eq!(top["name"], "config.backend", "{}", json["widest_splits"]);
    assert_eq!(top["values"], serde_json::json!(["\"a\"", "\"b\""]));
    assert_eq!(top["assume_as"], "config.backend=a");
    assert_eq!(json["widest_splits"][1]["name"], "config.hot");
    let text = run(dir.path(), &["trace", "routed_scaling_factor", "--entry", "Wide", "--max-cases", "0"]).stdout;
    assert!(text.contains("config.backend == \"a\" | \"b\"   --assume config.backend=a"), "{text}");
}

#[test]
fn carrying_the_factor_next_to_unscaled_data_is_not_applying_it() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "DeferredMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(out.json()["untouched_outputs"], serde_json::json!([]));
}

#[test]
fn a_dispatch_that_walks_the_mro_finds_the_first_class_defining_the_method() {
    // `for klass in type(self).__mro__: if name in klass.__dict__: return ...` runs once per
    // class, in order: no configuration is made of it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dispatch.ScaleOp"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["atoms"], serde_json::json!([]));
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dispatch.RescaledOp"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn one_unknown_backend_asked_in_three_places_is_one_atom() {
    // `get_backend().is_fused()` in __init__, in forward and in a helper: the same fact.
    let (code, verdict, out) = trace("trace/router", &["--entry", "BackendMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("TWICE".into(), 2, "get_backend() == \"fused\"".into()),
            // Declared a `Backend`: the other member.
            ("NEVER".into(), 0, "get_backend() == \"none\"".into())
        ]
    );
}

#[test]
fn calls_of_an_unknown_value_with_different_arguments_are_different_values() {
    // `layer.get("bits", 4)` and `layer.get("group_size", 128)`: two settings, both of which
    // may hold. Read as one value, the TWICE row was infeasible and the trace missed it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "LayerConfigMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let bits = "quant_config.extra_config[\"experts\"].get(\"bits\", 4) == 4";
    let group = "quant_config.extra_config[\"experts\"].get(\"group_size\", 128) == 64";
    let rows = rows(&out);
    assert!(rows.contains(&("TWICE".into(), 2, format!("{group} and {bits}"))), "{rows:?}");
    assert!(rows.iter().any(|r| r.0 == "NEVER"), "{rows:?}");
}

#[test]
fn items_of_an_unknown_value_under_different_keys_are_different_values() {
    // `group_sizes[(0, "w13")]` and `group_sizes[(1, "w2")]`: two items, which may both be 64.
    let (code, verdict, out) = trace("trace/router", &["--entry", "TupleKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = rows(&out);
    let both = "quant_config.group_sizes[(0, \"w13\")] == 64 and quant_config.group_sizes[(1, \"w2\")] == 64";
    assert!(rows.contains(&("TWICE".into(), 2, both.into())), "{rows:?}");
}

#[test]
fn one_outside_call_handed_different_values_reads_different_values() {
    // `os.environ.get(name, "0")` in a helper called with two names: two switches. Read as one
    // (the same call text), the trace said ONCE everywhere.
    let (code, verdict, out) = trace("trace/router", &["--entry", "EnvHelperMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let fused = "os.environ.get(\"FUSED_TOPK\", \"0\") == \"1\"";
    let skip = "os.environ.get(\"SKIP_OUTPUT_SCALE\", \"0\") == \"1\"";
    let rows = rows(&out);
    assert!(rows.contains(&("TWICE".into(), 2, format!("{fused} and not ({skip})"))), "{rows:?}");
    assert!(rows.contains(&("NEVER".into(), 0, format!("not ({fused}) and {skip}"))), "{rows:?}");
}

#[test]
fn calls_with_one_value_under_different_keywords_are_different_calls() {
    // `setting(layer="moe")` and `setting(kind="moe")`: keyed by the values alone, one call,
    // and the trace said ONCE everywhere.
    let (code, verdict, out) = trace("trace/router", &["--entry", "KeywordSettingMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = rows(&out);
    let twice = "setting(layer=\"moe\") == 1 and not (setting(kind=\"moe\") == 1)";
    assert!(rows.contains(&("TWICE".into(), 2, twice.into())), "{rows:?}");
}

#[test]
fn predicates_on_one_value_exclude_each_other() {
    // `is_fused()` and `is_none()` are one-line predicates on the same value: evaluated, they
    // become equalities of one symbol, which cannot both hold.
    let (_, _, out) = trace("trace/router", &["--entry", "ExclusiveMoE"]);
    let rows = rows(&out);
    assert!(!rows.iter().any(|r| r.0 == "TWICE"), "{rows:?}");
    assert!(rows.contains(&("ONCE".into(), 1, "get_backend() == \"none\"".into())), "{rows:?}");
}

#[test]
fn the_example_in_the_readme() {
    let out = run(&crate::example(), &["trace", "routed_scaling_factor", "--entry", "TinyMoeForCausalLM"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn unknown_entries_and_bad_assumptions_are_usage_errors() {
    let out = run(&fixture("trace/flags"), &["trace", "routed_scaling_factor", "--entry", "Nope"]);
    assert_eq!(out.code, 2);
    let out = run(
        &fixture("trace/flags"),
        &["trace", "routed_scaling_factor", "--entry", "CorrectMoE", "--assume", "novalue"],
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("expected NAME=VALUE"), "{}", out.stderr);
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let one = run(
        &fixture("trace/dispatch"),
        &["-j", "1", "trace", "routed_scaling_factor", "--entry", "net.model.Model", "--format", "json"],
    );
    let two = run(
        &fixture("trace/dispatch"),
        &["-j", "2", "trace", "routed_scaling_factor", "--entry", "net.model.Model", "--format", "json"],
    );
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn a_repeated_call_sees_what_changed_since_the_first() {
    // `scaled(x, flags)` twice with the same arguments; a flag it reads is set in between.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.repeat.StaleFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
}

#[test]
fn a_repeated_call_makes_its_own_objects() {
    // Two `boxed(x, flags)` calls make two boxes: scaling one leaves the other alone.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.repeat.CopiedResultMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
}

#[test]
fn a_repeated_call_counts_its_sites_under_every_caller() {
    // The same scaling call on both arms of a branch: once, and its site runs always.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.repeat.TwoPathMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(out.json()["rows"][0]["parts"][0]["sites"][0]["when"], "always");
}

#[test]
fn a_named_tuple_rebuilt_with_replace_keeps_its_fields() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.records.ReplacedWeightsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn a_wrapper_delegating_through_getattr_is_followed() {
    // `wrapper.apply(...)` is the wrapped method's `apply`: its multiply is the site, not an
    // unresolved callee counted as applied.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.wrapper.WrappedMethodMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let site = &out.json()["rows"][0]["parts"][0]["sites"][0];
    assert_eq!((site["kind"].as_str(), site["code"].as_str()), (Some("mul"), Some("return x * routed_scaling_factor")));
}

#[test]
fn a_forward_that_always_raises_has_no_rows_and_says_so() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.raising.AlwaysRaisingMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(out.json()["rows"], serde_json::json!([]));
    let text =
        run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", "gate.raising.AlwaysRaisingMoE"]);
    assert!(text.stdout.contains("no configuration reaches the end of the method"), "{}", text.stdout);
}

#[test]
fn a_nested_helper_defined_twice_is_two_functions() {
    // `make_scaler(True, f)(x)` then `make_scaler(False, f)(x)`: the same inner function and
    // arguments, but a different enclosing `apply_factor` each time.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.closure.RedefinedHelperMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
}

#[test]
fn a_compiled_function_computes_what_the_function_does() {
    // `torch.compile(self.forward_native)` called later is `forward_native`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.compiled.CompiledForwardMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn a_wrapper_made_by_update_wrapper_is_the_wrapper() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.compiled.WrappedForwardMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_helper_that_writes_into_the_callers_buffer_applies_the_factor_there() {
    // `moe_sum_reduce(cache, out, f)` and `out.mul_(f)` inside helpers write into the `out`
    // the layer allocated and returns.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.HelperScalesOutMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fast_combine".into()), ("ONCE".into(), 1, "not config.fast_combine".into())]
    );
}

#[test]
fn a_triton_kernel_storing_through_a_pointer_writes_the_callers_tensor() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.KernelThenModelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.rescale".into()), ("TWICE".into(), 2, "config.rescale".into())]
    );
    let text = run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", "KernelThenModelMoE"]);
    insta::assert_snapshot!(text.stdout);
}

#[test]
fn a_write_through_a_view_or_one_arm_of_a_conditional_reaches_that_tensor_only() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.ViewBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.flat_output".into()), ("NEVER".into(), 0, "not config.flat_output".into())]
    );
}

#[test]
fn an_in_place_write_to_a_parameter_changes_the_callers_tensor_and_a_rebinding_does_not() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.InPlaceHelperMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.copy_helper".into()), ("NEVER".into(), 0, "config.copy_helper".into())]
    );
}

#[test]
fn a_local_bound_to_the_callers_tensor_carries_in_place_writes_back_to_it() {
    // `out_hidden_states = hidden_states if inplace else torch.empty_like(...)`, then a helper
    // or a kernel writes into `out_hidden_states`: with `inplace` the layer's own input holds
    // the result, three calls up; a copy of the input loses it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.InPlaceExpertsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.fast_combine and (not config.inplace or not config.copy_input)".into()),
            ("ONCE".into(), 1, "not config.fast_combine and (not config.inplace or not config.copy_input)".into()),
            ("NEVER".into(), 0, "config.inplace and config.copy_input".into()),
        ]
    );
}

#[test]
fn one_tensor_passed_as_two_arguments_is_one_tensor_in_the_callee() {
    // `combine_into(cache, out_hidden_states, out_slice, ...)` with `out_slice =
    // out_hidden_states`: scaling `out_slice` scales what the helper returns.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.SlicedOutputMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fused_sum".into()), ("ONCE".into(), 1, "not config.fused_sum".into())]
    );
}

#[test]
fn a_scaling_method_of_an_unknown_value_is_a_tensor_operation() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outbuf.UnknownCarrierMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn scaled_data_inside_a_record_passes_through_calls_not_evaluated() {
    // `dispatcher.combine(CombineInput(routed))`: a helper that never sees the factor (not
    // evaluated) gives back the data it was handed; an unknown one gives it back of unknown
    // scale, said so.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.records.RecordThroughHelperMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.records.RecordThroughUnknownMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(rows(&out), [("UNKNOWN".into(), 1, "always".into())]);
    let unresolved = out.json()["unresolved"].to_string();
    assert!(unresolved.contains("data passes through `config.communicator.combine`"), "{unresolved}");
}

#[test]
fn functions_registered_by_decorators_are_one_configuration_per_key() {
    // `@register_combine("triton", "standard")` fills a class-level dict under tuple keys; the
    // layer looks it up with a key from its config.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.registry.RegisteredCombineMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.moe_runner_backend == \"triton\"".into()),
            ("TWICE".into(), 2, "config.moe_runner_backend == \"cutlass\"".into())
        ]
    );
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
    // The key from a property returning an enum member, and its `.value`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.registry.CoreKeyedCombineMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.use_cutlass".into()), ("TWICE".into(), 2, "config.use_cutlass".into())]
    );
    // A module-level registry keyed by strings, called straight from the lookup.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.registry.RegisteredScalerMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.scaler == \"mul\"".into()),
            ("NEVER".into(), 0, "config.scaler == \"none\"".into())
        ]
    );
}

#[test]
fn functions_registered_by_calls_at_import_time_are_one_configuration_per_key() {
    // `register_permute("deepep")(func)`, not a decorator: before, that key was missing and
    // its configurations raised `KeyError`, leaving ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.call_registered.CallRegisteredMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.dispatch_format == \"standard\"".into()),
            ("TWICE".into(), 2, "config.dispatch_format == \"deepep\"".into())
        ]
    );
    // (Any other key raises `KeyError`.)
    assert_eq!(out.json()["raises"][0]["exception"], "KeyError");
    // `PermutePool.register("plain", func)` in a module-level `if` block: before, nothing was
    // registered and every configuration raised; now only a key neither call registered does.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.call_registered.PoolRegisteredMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.dispatch_format == \"plain\"".into()),
            ("NEVER".into(), 0, "config.dispatch_format == \"folded\"".into())
        ]
    );
    let raises = out.json()["raises"].to_string();
    assert!(raises.contains("no permute registered"), "{raises}");
}

#[test]
fn a_record_handed_back_through_a_delegating_dispatcher_keeps_its_class() {
    // `getattr(self._inners[i], name)(**kwargs)`, then `self._get_impl().dispatch_b(*state)`
    // building a record whose `format` property picks the branch: skipped, the record was
    // data, its format unknown, and half the configurations raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.delegated_dispatch.DelegatedDispatchMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn a_factor_equal_to_zero_leaves_nothing_to_apply() {
    // `if factor != 0:` guards the multiply: the configurations where it is 0 are left out
    // with a reason, as `if not factor:` is, rather than a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zero_guard.ZeroGuardMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(
        out.json()["vacuous"],
        serde_json::json!([{"condition": "factor == 0", "why": "the value is 0 or None: there is nothing to apply"}])
    );
}

#[test]
fn a_plain_object_built_without_the_traced_value_is_built_when_its_fields_are_read() {
    // `Runner(backend)` carries nothing traced; `self.core` is read later. A backend the
    // registry lacks is not an error for `.get`: the `elif` chain decides.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_runner.LazyRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.moe_runner_backend == \"triton\"".into()),
            ("NEVER".into(), 0, "not (config.moe_runner_backend == \"triton\")".into())
        ]
    );
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn what_is_unresolved_only_where_the_code_raises_is_not_reported() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.raising.UnsupportedModeMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn assuming_an_enum_valued_getter_keeps_its_predicates() {
    // `--assume 'get_backend()=fused'` fixes which member the getter returns; `is_fused()` and
    // `is_none()` are still evaluated (a string would have no such methods).
    let (code, verdict, out) = trace("trace/router", &["--entry", "BackendMoE", "--assume", "get_backend()=fused"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "ExclusiveMoE", "--assume", "get_backend()=none"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_method_called_on_the_result_of_a_skipped_call_is_followed() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_runner.FetchedCoreMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn a_dict_keyed_by_enum_members_is_one_configuration_per_member() {
    // `getattr(self, BACKEND_METHODS[backend])(x)` with `{KernelBackend.TORCH: "forward_torch", ...}`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.enum_keys.EnumKeyedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "get_kernel_backend() == \"torch\"".into()),
            ("NEVER".into(), 0, "get_kernel_backend() == \"triton\"".into())
        ]
    );
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn an_enum_members_value_is_the_member_and_a_declared_field_is_not_a_class_attribute() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.enum_keys.BackendPredicateMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            // The backend is declared a `RunnerBackend`: one of its four members.
            ("ONCE".into(), 1, "get_runner_backend() == \"auto\"".into()),
            ("TWICE".into(), 2, "get_runner_backend() in (\"trtllm\", \"sgl_trtllm\")".into()),
            ("NEVER".into(), 0, "get_runner_backend() == \"triton\"".into()),
        ]
    );
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.enum_keys.BackendPredicateMoE", "--assume", "get_runner_backend()=sgl_trtllm"],
    );
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
    // A member (held as its value) calling a method of its enum.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.enum_keys.MemberDispatchMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.use_trtllm".into()), ("TWICE".into(), 2, "config.use_trtllm".into())]
    );
}

#[test]
fn a_skipped_call_that_gives_back_its_own_symbol_is_not_called_forever() {
    // Evaluating `backend_name()` collapses its four unknown results into the symbol the skipped
    // call stood for; calling `.startswith` on it must not evaluate it again and again.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_runner.NamedBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn enum_members_made_by_auto_are_distinct_keys_and_tuples_slice() {
    // `table[Variant.UNPADDED] = table[Variant.ORDINARY]` after a loop fills ORDINARY: with every
    // `auto()` member one unknown, or `item[:2]` not sliced, every configuration raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.StagedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_platform_key_is_computed_from_the_platform_predicates() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.PlatformMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "is_cuda()".into()),
            ("TWICE".into(), 2, "is_cpu()".into()),
            ("NEVER".into(), 0, "not is_cuda() and not is_cpu()".into())
        ]
    );
    // Fixing the predicate fixes the key (it was an atom of its own, `platform_key() == "cuda"`).
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.stages.PlatformMoE", "--assume", "is_cuda()=true"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn when_every_configuration_raises_the_answer_says_where() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.AlwaysRaisingMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let raises: Vec<(i64, String, f64)> = out.json()["raises"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["location"]["line"].as_i64().unwrap(),
                r["source"].as_str().unwrap().to_string(),
                r["share"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        raises,
        [
            (135, "raise NotImplementedError(\"mode a\")".into(), 0.5),
            (136, "assert self.mode == \"a\", \"only mode a is supported\"".into(), 0.5)
        ]
    );
    let text =
        run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", "gate.stages.AlwaysRaisingMoE"]);
    assert!(text.stdout.contains("where it raises"), "{}", text.stdout);
}

#[test]
fn whether_a_tensor_has_an_attribute_is_not_known() {
    // `assert not hasattr(weight, key)` before `setattr(weight, key, value)`: with `hasattr` true
    // for every name of a tensor, every configuration raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.WeightAttrsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_field_set_only_where_the_constructor_did_not_raise_is_not_unresolved() {
    // Reading `runner.core` where `Runner.__init__` raised would raise `AttributeError`. (The
    // SGLang integration test guards the case where the raise is not otherwise visible:
    // `MoeRunner.runner_core` read through `BaseFusedOp`'s dispatch.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.CheckedRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn a_base_constructor_skipped_through_super_is_run_when_its_field_is_read() {
    // `BaseFusedOp.__init__` sets `self._forward_method = None`; skipped as irrelevant, the
    // field read as a free atom and half the table went through an unknown callee.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stages.DispatchedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn branches_between_program_instances_of_a_device_kernel_are_not_configurations() {
    // `if pid * BLOCK >= n: return` ends the instances past the data; an inactive expert's
    // instances write zeros. What the kernel stores is what the other instances write, in
    // every configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tiles.TiledKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // Not an atom to `--assume` either.
    assert_eq!(out.json()["atoms"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn a_pointer_plus_offsets_in_a_device_kernel_addresses_the_same_tensor() {
    // `ptrs = out_ptr + offs` (then moved along with `+=`) addresses the tensor the model
    // scaled: loading through it and storing back scales it again. Offsets are not data added
    // to it, and the store through the local lands in the caller's tensor.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tiles.TiledRescaleMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
    // Top-k weights that carry the factor, multiplied in by the expert kernel.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tiles.FoldedWeightsKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.rescale".into()), ("TWICE".into(), 2, "config.rescale".into())]
    );
}

#[test]
fn a_device_kernel_evaluated_apart_keeps_its_arguments_correlated() {
    // The kernel's arguments are two values decided by one flag; evaluated with selectors
    // standing for their conditions, the combination "weights scaled and factor handed in"
    // (no configuration has it) must not appear, and the rows come back in the caller's terms.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tiles.CorrelatedKernelArgsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.fold_into_weights and config.weighted".into()),
            ("ONCE".into(), 1, "not config.fold_into_weights".into()),
            ("NEVER".into(), 0, "config.fold_into_weights and not config.weighted".into()),
        ]
    );
    // The kernel's site runs where the factor is handed to it, said in the caller's terms.
    let text = run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", "CorrelatedKernelArgsMoE"]);
    assert!(text.stdout.contains("runs when not config.fold_into_weights"), "{}", text.stdout);
    assert!(!text.stdout.contains("combination of"), "{}", text.stdout);
}

#[test]
fn a_platform_key_with_many_values_stays_the_platform_predicates_it_tests() {
    // `_platform_key()` returns one of five keys; a result that many alternatives long used to
    // become one symbol, whose tests (`_platform_key() == "npu"`) no assumption on `is_cuda()`
    // could reach. The rows are over the predicates instead.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.platform_key.PlatformKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let never: Vec<_> = rows(&out).into_iter().filter(|(v, _, _)| v == "NEVER").collect();
    assert_eq!(never.len(), 1, "{}", out.stdout);
    // PyTorch's build version is a platform predicate too: not ROCm where the NPU is.
    assert_eq!(never[0].2, "is_npu()", "{}", out.stdout);
    assert!(!out.stdout.contains("_platform_key()"), "{}", out.stdout);
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.platform_key.PlatformKeyMoE", "--assume", "is_cuda()=true"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_config_value_stored_under_the_traced_name_is_the_traced_value() {
    // `self.routed_scaling_factor = config.moe_router_scaling_factor`: another config key, the
    // traced name in the model.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.renamed.RenamedKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let origin = &out.json()["rows"][0]["parts"][0]["sites"][0]["evidence"][0];
    assert_eq!((origin["kind"].as_str(), origin["location"]["line"].as_i64()), (Some("origin"), Some(13)), "{origin}");
    assert_eq!(origin["label"], "config.moe_router_scaling_factor");
    // A local of the traced name, then passed on under other names: applied twice.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.renamed.RenamedLocalTwiceMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    // Under another name only, it is not the traced value.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.renamed.UnrelatedNameMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
}

#[test]
fn a_dataclass_finishes_itself_in_post_init_with_field_defaults() {
    // `__post_init__` moves the factor to the output where the top-k does not take it;
    // `field(default_factory=dict)` is an empty dict, so the early return never runs.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.post_init.PostInitMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fuse_in_topk".into()), ("ONCE".into(), 1, "not config.fuse_in_topk".into())]
    );
}

#[test]
fn an_operator_the_tree_registers_runs_its_code_for_the_layer_that_called_it() {
    // `torch.ops.fixture.scaled_moe_forward(x, self.layer_name)` runs `_scaled_moe_forward`,
    // which looks the layer up by name and calls its `forward_impl` (where the factor is
    // applied); an outside kernel would have hidden that application.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.CustomOpMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.scale_output".into()), ("TWICE".into(), 2, "config.scale_output".into())]
    );
    // Taking the looked-up layer to be the caller is an assumption, and said so.
    let unresolved = out.json()["unresolved"].to_string();
    assert!(unresolved.contains("is the CustomOpMoE that called the operator"), "{unresolved}");
    // An operator registered by a decorator and called by its name from a layer's method,
    // never seeing the factor and looking its layer up by index (SGLang's piecewise-graph
    // MoE), runs that layer's code: skipped, its data passed through and read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.DecoratedOpMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unresolved = out.json()["unresolved"].to_string();
    assert!(unresolved.contains("is the DecoratedOpMoE that called the operator"), "{unresolved}");
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.DoubleDecoratedOpMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    // Called from a module function, no layer is at hand: not followed, and its data does not
    // just pass through (that read NEVER): the row is UNKNOWN and names it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.HelperOpMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let blocked = out.json()["rows"][0]["blocked_by"].to_string();
    assert!(blocked.contains("the operator `gate.custom_op.indexed_moe_forward`"), "{blocked}");
    // One that looks nothing up and only wraps an outside kernel is an outside computation.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.WrappedKernelOpMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn an_operator_that_looks_its_layer_up_in_a_helper_runs_that_layer() {
    // The operator's body is `return _run_looked_up(x, layer_id)`, and the helper does the
    // lookup (SGLang's DeepSeek V4 dual-stream operator): the helper runs as part of the
    // operator, for the same caller. Skipped, the operator's data passed through: NEVER, and
    // the variant that scales again read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.DelegatingOpMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unresolved = out.json()["unresolved"].to_string();
    assert!(unresolved.contains("is the DelegatingOpMoE that called the operator"), "{unresolved}");
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.DoubleDelegatingOpMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn a_call_that_wraps_an_object_it_is_handed_into_a_record_is_evaluated() {
    // `dispatch(x, routing)` returns `DispatchOutput(..., routing=routing)`, and the runner
    // picks its kernel by the routing's class. Handed routing that carries no factor, the
    // dispatch was skipped: the record was data, the class a free choice, and the weights path
    // paired with the kernel's routing read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.record_builder.RecordDispatchMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.record_builder.TwiceRecordDispatchMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.bypass".into()), ("TWICE".into(), 2, "config.bypass".into())]
    );
}

#[test]
fn a_flag_combining_calls_in_one_return_is_the_facts_it_combines() {
    // `should_gather_fused()` is `get_backend().is_fused() and get_flags().data_parallel`.
    // Named by its call, it was an atom of its own, and paired with the unfused backend it made
    // a NEVER row the code never runs.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.combined_predicate.CombinedPredicateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let atoms = out.json()["atoms"].to_string();
    assert!(!atoms.contains("should_gather_fused()"), "{atoms}");
}

#[test]
fn a_platform_predicate_combining_calls_stays_the_platforms_atom() {
    // `is_cuda()` is `torch.cuda.is_available() and torch.version.cuda is not None`: a flag
    // combining calls, but one `--platform` fixes by name. Evaluated, it was torch's facts,
    // which the platform does not name.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.platform_predicate.PlatformPredicateMoE", "--platform", "cuda"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_pad_value_fills_only_the_new_entries() {
    // `F.pad(weights, (0, n_shared), value=1 / factor)`: the shared slot's weight, then the
    // runner scales every slot. Read as an outside callee handed `1 / factor`, the pad divided
    // the whole tensor: NEVER, and the buggy variant too.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.padded_slots.PaddedSlotsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let parts: Vec<i64> =
        out.json()["rows"][0]["parts"].as_array().unwrap().iter().map(|p| p["exponent"].as_i64().unwrap()).collect();
    assert_eq!(parts, [0, 1], "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.padded_slots.UnpaddedRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
}

#[test]
fn a_helper_returning_none_in_a_pair_is_evaluated() {
    // `_unpack(result)` returns a `(shared, routed)` pair as it is or `(None, result)`. Skipped,
    // it gave the tensor back whole, both names held it, and the FP16 row divided a shared
    // output that is not there (INVERSE).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unpacked_result.UnpackedResultMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_class_attribute_set_after_the_class_statement_is_the_classs() {
    // `ScalingConfig.MethodCls = ScalingMethod` at module level, the base declaring
    // `MethodCls: type = MethodBase`; `get_method` is the base's, run for an unknown config.
    // Read from the class body, and from the base for every config, each built the abstract
    // method, which raises: no configuration reached the end.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.late_class_attr.LateMethodMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "quant_config is PlainConfig".into()),
            ("TWICE".into(), 2, "quant_config is ScalingConfig".into())
        ]
    );
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.late_class_attr.LateMethodMoE", "--assume", "quant_config=ScalingConfig"],
    );
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn a_skipped_call_declared_to_return_a_tensor_is_not_none() {
    // `shared_output = all_reduce(shared_output)` (declared `-> torch.Tensor`, its collective
    // outside the tree), then `shared_output is None`. Named, the result was a value of its
    // own and `all_reduce(shared_output) == None` an atom of both rows.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.reduced_share.ReducedShareMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            (
                "ONCE".into(),
                1,
                "shared_experts == None or shared_experts.output == None or not (routed_output.dtype == torch.float16)"
                    .into()
            ),
            (
                "INVERSE".into(),
                -1,
                "not (shared_experts == None) and not (shared_experts.output == None) and routed_output.dtype == \
                 torch.float16"
                    .into()
            )
        ]
    );
}

#[test]
fn an_unknown_value_divided_by_the_factor_is_an_application_site() {
    // `shared_output *= 1.0 / self.factor`, `shared_output` an attribute of an object the
    // block is handed: the INVERSE row's -1 is that line, and the row says so.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shared_divided.SharedDividedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"), "{}", out.stdout);
    let json = out.json();
    let inverse = &json["rows"][1];
    assert_eq!(inverse["verdict"], "INVERSE", "{}", out.stdout);
    let site = &inverse["parts"][0]["sites"][0];
    assert_eq!((&site["location"]["line"], &site["exponent"]), (&25.into(), &(-1).into()), "{}", out.stdout);
    assert_eq!(site["kind"], "mul_in_place");
    // Beside it, the routed output is not scaled: relative to the divided part it carries the
    // factor once, and the row says so (vLLM's FP16 guard; a missing compensation reads alike).
    assert_eq!(inverse["unscaled_rest"], true, "{}", out.stdout);
    assert!(json["rows"][0].get("unscaled_rest").is_none(), "{}", out.stdout);
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.shared_divided.SharedDividedMoE"],
    );
    assert!(
        text.stdout.contains("relative to the part above, it carries routed_scaling_factor once"),
        "{}",
        text.stdout
    );
    // Divided as a whole, there is no rest to be scaled relative to.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.shared_divided.DividedOnlyMoE"]);
    assert_eq!(verdict, "INVERSE", "{}", out.stdout);
    assert!(out.json()["rows"][0].get("unscaled_rest").is_none(), "{}", out.stdout);
    // A scalar made of the factor and an unknown number, then applied: one site, where the
    // data is multiplied.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shared_divided.ScaledCopyMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let sites = &out.json()["rows"][0]["parts"][0]["sites"];
    assert_eq!(sites.as_array().unwrap().len(), 1, "{}", out.stdout);
    assert_eq!(sites[0]["location"]["line"], 47);
    // That scalar times itself: the factor twice (the place it was made is no application
    // both halves went through, counted once).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shared_divided.SquaredCopyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn objects_a_module_builds_at_import_hold_their_fields_everywhere() {
    // `SKIP_SCALING = EnvField(None)` in a class body, first read from a call that runs only
    // where `config.early_check` holds. Built there, its fields held only there, and the later
    // read raised in the other half of the configurations.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.import_time.ImportTimeMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert!(out.json()["raises"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
}

#[test]
fn a_descriptor_learns_its_name_from_set_name() {
    // Two environment flags of one settings class, each `self.name in os.environ` with the name
    // `__set_name__` gave it. Without it both read as the same test, so the one that skips the
    // scaling and the one that scales again always agreed: ONCE everywhere.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.set_name.NamedFlagsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = rows(&out);
    let row = |v: &str| rows.iter().find(|r| r.0 == v).map(|r| r.2.clone()).unwrap_or_default();
    assert_eq!(row("TWICE"), "not (\"SKIP_SCALING\" in os.environ) and \"SCALE_AGAIN\" in os.environ");
    assert_eq!(row("NEVER"), "\"SKIP_SCALING\" in os.environ and not (\"SCALE_AGAIN\" in os.environ)");
}

#[test]
fn a_skipped_call_gives_back_the_data_a_record_holds_and_nothing_else() {
    // `combine(CombineInput(hidden_states=scaled))`, not evaluated: its result is the held data.
    // Added to a plain tensor, it had a part of exponent 0 of its own, and a multiply after it
    // read MIXED (1, 2) instead of TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.held_record.HeldRecordMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.held_record.TwiceHeldRecordMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(out.json()["rows"][0]["exponents"], serde_json::json!([2]), "{}", out.stdout);
}

#[test]
fn a_buffer_a_helper_allocates_is_written_by_the_calls_it_is_handed_to() {
    // `output = get_local_buffer(group)` returns `torch.empty(...)` through a classmethod;
    // the scattering calls then fill it. Only a name assigned an allocation itself was a
    // buffer: the helper's was no data the calls could write into (UNKNOWN; NEVER without the
    // wrapper).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.scattered.ScatteredOutputMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(rows(&out).iter().all(|r| r.0 == "ONCE"), "{}", out.stdout);
}

#[test]
fn a_combine_declared_to_give_a_tensor_gives_data() {
    // The experts' unscaled output comes back in a record, `combine(...) -> torch.Tensor` is
    // skipped, and the block scales after it. Named, the combine's result was an unknown
    // value, and the block's multiply made a number of it (UNKNOWN).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.record_builder.RecordCombineMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn the_layer_an_operator_looks_up_is_the_one_holding_the_runner_that_called_it() {
    // The runner calls the operator; the operator looks its layer up by name and reads
    // `layer.runner`, which the runner does not have: the layer is the object holding that
    // runner as `.runner`, also where the operator hands it on (`layer.routed_scaling_factor`
    // in the kernel method, 1.0 there). Read as an unknown object, that was a second origin:
    // TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.HeldRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unresolved = out.json()["unresolved"].to_string();
    assert!(
        unresolved.contains("is the HeldRunnerMoE that holds the OpRunner that called the operator as `.runner`"),
        "{unresolved}"
    );
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.custom_op.DoubleHeldRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn state_set_by_the_loaders_phase_is_there_when_the_layer_runs() {
    // `quant_method.process_weights_after_loading(layer)` picks the kernel (`self.kernel`,
    // asserted on the forward path) and marks the layer ready; `__init__` sets neither.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.after_loading.LoadedKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.fold_factor".into()), ("TWICE".into(), 2, "config.fold_factor".into())]
    );
}

#[test]
fn a_modules_own_loader_hook_runs_after_the_quantization_methods() {
    // vLLM's loaders run each module's own `process_weights_after_loading` (an attention
    // layer's, handed the dtype; the experts' own, without arguments) once the weights are in:
    // what it sets decides where the experts apply the factor, and it is the configuration's
    // atom (`config.fold_into_experts`), not an attribute no code set.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.module_hook.AttentionMoELayer"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not config.fold_into_experts".into()),
            ("TWICE".into(), 2, "config.fold_into_experts".into())
        ]
    );
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn a_keyword_popped_from_kwargs_is_gone_from_what_is_handed_on() {
    // `extra.pop("weight_loader")` in a method called under a condition, with a loader chosen
    // under another: the rest of `**extra` is empty, so `set_weight_attrs` asserts nothing
    // about the parameter's own `weight_loader`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.popped_keyword.ScaledLinear"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn what_nn_module_provides_and_what_it_does_not() {
    // `layer.register_parameter("output_scale", ...)` sets the attribute the experts read; the
    // CPU flag is set by no code that ran (the loader hook sets it only on CPU), so
    // `getattr(layer, "use_cpu_backend", False)` is False, not a configuration: on the module
    // (which `nn.Module` does not give it) and on its method (read by a one-line helper that
    // is evaluated, not named).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.module_attrs.CpuFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]));
}

#[test]
fn flags_from_a_server_args_dict_and_a_layer_absent_where_it_is_fused() {
    // `global_server_args_dict = {k: getattr(ServerArgs, k) for k in KEYS}`: its entries are
    // known at run time only, one atom per key wherever it is read. `hasattr(self,
    // "shared_experts")` is false where the constructor did not set it, and the shared expert's
    // layer, built when the forward path asks it for a flag the loader did not set, does not
    // have it: the CPU path is never taken. What is left is the old expert-parallel bug: the
    // factor is never applied with `enable_ep_moe`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.server_args.OldMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not global_server_args_dict[\"enable_ep_moe\"]".into()),
            ("NEVER".into(), 0, "global_server_args_dict[\"enable_ep_moe\"]".into())
        ]
    );
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn a_module_dict_of_defaults_that_the_runner_updates_holds_settings() {
    // `global_server_args_dict = {"enable_ep_moe": ServerArgs.enable_ep_moe, ...}`, updated by
    // a function of the tree from the arguments the process started with: each entry is a
    // setting, one atom per key. Read as the literal (the defaults), expert parallelism was no
    // configuration and its missing factor no row. A dict only a local of the same name
    // changes keeps its literal's values: no atom.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.settings_literal.LiteralFlagsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not global_server_args_dict[\"enable_ep_moe\"]".into()),
            ("NEVER".into(), 0, "global_server_args_dict[\"enable_ep_moe\"]".into())
        ]
    );
    assert!(!out.stdout.contains("use_shared_scale"), "{}", out.stdout);
}

#[test]
fn a_state_object_filled_by_setattr_keeps_what_was_set() {
    // `state.update(dict(...))` sets each entry with `setattr(self, k, v)`, which Python sends
    // through the class's `__setattr__` (into its dict): skipped, or with the builtin setting
    // the attribute beside the dict, the popped entry was missing and the row UNKNOWN.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.state_update.StagedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "batch.fast".into()), ("TWICE".into(), 2, "not batch.fast".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.state_update.DirectSetattrMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_starred_tuple_chosen_by_the_configuration_is_called_per_choice() {
    // `finish(*pending)` where `pending` is `(hidden_states, weights)` or `(product,)`: one
    // call per tuple. Merged, the late path's weights were lost (NEVER there).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.splat_choice.PendingWeightsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_buffer_known_by_another_name_is_filled_under_that_name() {
    // `gathered = buffer`: the name is the fresh buffer, and the helper or scatter kernel that
    // fills it fills what is returned. Read as an unrelated tensor, it read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.aliased_buffer.RenamedBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_helper_that_may_sum_the_residual_into_the_pair_it_returns_is_evaluated() {
    // `hidden_states += residual; residual = None; return hidden_states, residual`: skipped,
    // both items were the product of the inputs, the residual's unscaled part lost, and the
    // final norm read as taking the factor off (NEVER). Evaluated: ONCE with and without the
    // early sum.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.folded_pair.FoldedResidualLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("normalized away"), "{}", out.stdout);
}

#[test]
fn a_block_branch_its_caller_already_excluded_is_no_row() {
    // The layer calls its block under `FLAGS["enable_a2a"]` on one path (with the batch's
    // mode: a call of its own) and without it on the other; the block tests the setting again.
    // Run relative to the first call, the block's `not enable_a2a` branch ran too, read the
    // block's fields as absent there, and its unknown result was an UNKNOWN row. ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.contradicted_call.BranchingLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("UNKNOWN"), "{}", out.stdout);
}

#[test]
fn a_chunked_kernel_writing_into_the_callers_tensor_and_a_renormalized_shared_slot() {
    // The reduction kernel's model names the argument it writes into (the output chunk, a
    // view of the input when `inplace`); the Triton kernel's pointer is placed past the
    // unpacked strides by its name; a chunk of no tokens (`tokens, _ = current.shape`) is
    // empty data. Renormalizing keeps the shared slot at 1/factor relative to the others,
    // and the method the router picks (declared `-> Optional[Callable]`) runs.
    let kernels = fixture("trace/router/chunked_kernels.toml");
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.chunked.ChunkedMoE", "--kernels", kernels.to_str().unwrap()]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 4, "{}", out.stdout);
    let vacuous = out.json()["vacuous"].to_string();
    assert!(vacuous.contains("current.shape[0] == 0"), "{vacuous}");
    let shared_slot = out.json()["rows"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|part| part["exponent"] == 0 && part["sites"].as_array().unwrap().iter().any(|s| s["kind"] == "div"));
    assert!(shared_slot, "{}", out.stdout);
    // Not in place: the output is a fresh buffer, and a kernel without a model that is handed
    // the factor and a chunk of it fills that chunk.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.chunked.ChunkedCopyMoE", "--kernels", kernels.to_str().unwrap()]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 6, "{}", out.stdout);
}

#[test]
fn a_table_of_classes_behind_a_dict_subclass_getitem_is_followed() {
    // `ACT2FN[config.scoring_func]`: the dict subclass's `__getitem__` reads its entries through
    // `super().__getitem__` and builds the class (or the `(class, kwargs)` pair) it finds; the
    // scoring function is known in every configuration, so nothing is left unresolved.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.act_table.TableGate"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn classes_from_a_list_per_backend_and_iterating_none_raises() {
    // `for k_cls in backend_to_kernel_cls(backend)`: one list of classes per backend; an
    // unknown backend gets `None`, which cannot be iterated (TypeError), so it is no row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_lists.KernelListMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.backend == \"triton\"".into()),
            ("NEVER".into(), 0, "config.backend == \"cutlass\"".into())
        ]
    );
}

#[test]
fn an_enum_predicate_on_an_untyped_value_is_that_enums_predicate() {
    // `flags.runner_backend` has no class; `is_joined()` and `is_split()` are defined by one enum
    // of the tree: they are its predicates, equalities of one value that cannot both hold.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.untyped_backend.UntypedBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let rows = rows(&out);
    assert!(!rows.iter().any(|r| r.0 == "TWICE"), "{rows:?}");
    assert!(rows.contains(&("ONCE".into(), 1, "flags.runner_backend == \"split\"".into())), "{rows:?}");
}

#[test]
fn the_verdicts_name_only_what_decides_the_count() {
    // The dual-stream and single-stream paths apply the factor at different lines (two rows
    // per outcome), but only the fused-kernel flag changes how often: the verdicts say so,
    // without the batch-size and stream tests of the paths.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.paths.PathsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 4, "{}", out.stdout);
    let verdicts: Vec<(String, String, Vec<u64>)> = out.json()["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["verdict"].as_str().unwrap().to_string(),
                v["when"].as_str().unwrap().to_string(),
                v["rows"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("ONCE".into(), "not config.fused_kernel".into(), vec![0, 1]),
            ("TWICE".into(), "config.fused_kernel".into(), vec![2, 3])
        ]
    );
}

#[test]
fn an_object_assumed_to_be_of_a_class_is_never_none() {
    // `--assume quant_config=LazyQuantConfig`: the config is an instance of that class, so the
    // lazily built method's `quant_config is None` is false (it was an atom of its own, and
    // the unquantized double multiply a configuration).
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.lazy_quant.LazyQuantMoE", "--assume", "quant_config=LazyQuantConfig"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // Without the assumption the config may be None: the double multiply is a configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_quant.LazyQuantMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out)[1], ("TWICE".into(), 2, "config.has_proj and quant_config == None".into()));
}

#[test]
fn an_assumed_class_name_that_is_not_unique_is_a_usage_error() {
    // Two classes are named `Runner`: taking the name for a string would assume something else
    // than what was meant, silently.
    let out = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.paths.PathsMoE", "--assume", "config.runner=Runner"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--assume `config.runner=Runner`: `Runner` is ambiguous"), "{}", out.stderr);
    assert!(out.stderr.contains("gate."), "candidates are listed: {}", out.stderr);
    // A string of that spelling is written in quotes, and then it is one.
    assert!(out.stderr.contains("--assume 'config.runner=\"Runner\"'"), "{}", out.stderr);
    let out = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.paths.PathsMoE", "--assume", "config.runner=\"Runner\""],
    );
    assert_ne!(out.code, 2, "{}", out.stderr);
    // Functions of that name do not make a value ambiguous, since a value is no function
    // (`get_moe_runner_backend()=triton` beside several kernels' `.triton` methods).
    let out = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.paths.PathsMoE", "--assume", "config.runner=forward_cuda"],
    );
    assert_ne!(out.code, 2, "{}", out.stderr);
}

#[test]
fn a_value_declared_as_an_enum_is_one_of_its_members() {
    // `get_runner_kind() -> RunnerKind`, asked through `self in (A, B)` and `self == C`: the
    // three members are all it can be, so some branch scales, and never both.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.member_of.MemberOfMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(rows(&out).iter().all(|r| r.0 == "ONCE"), "{}", out.stdout);
}

#[test]
fn a_setting_read_through_a_getter_is_the_setting() {
    // `get_kernel_kind()` returns `get_flags().moe.kernel_kind` (filling in a default): one
    // value read two ways, so the fused kernel and the block's multiply exclude each other.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.accessor.AccessorMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // And the getter's name fixes it as well as the path's.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.accessor.AccessorMoE", "--assume", "get_kernel_kind()=fused"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 1, "{}", out.stdout);
}

#[test]
fn predicates_comparing_the_value_of_an_untyped_backend_are_about_the_backend() {
    // `self.value == ValueKind.SPLIT.value` asked of `flags.kernel`: an equality of the backend
    // itself (exclusive with the other predicate), which the backend's assumption decides.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.value_predicates.ValuePredicateMoE"]);
    let table = rows(&out);
    assert!(!table.iter().any(|r| r.0 == "TWICE"), "{table:?}");
    assert!(table.contains(&("ONCE".into(), 1, "flags.kernel == \"split\"".into())), "{table:?}");
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.value_predicates.ValuePredicateMoE", "--assume", "flags.kernel=split"],
    );
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn an_overlap_epilogue_that_scales_regardless_doubles_with_the_fused_kernel() {
    // Stages sharing a state written as attributes (`state.topk_output = ...`) and popped by
    // key; the output is what the last stage writes. The epilogue multiplies even when the
    // fused kernel folded the factor into the weights: TWICE there (SGLang PR 35152); with the
    // forward's guard, ONCE.
    let methods = "op_select_experts,op_experts,op_output";
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.overlap.OverlapMoE", "--methods", methods]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.fused_kernel".into()), ("TWICE".into(), 2, "config.fused_kernel".into())]
    );
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.overlap.GuardedOverlapMoE", "--methods", methods]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn any_method_of_an_assumed_member_is_evaluated() {
    // `is_fused_fast()` calls another predicate and a flag getter: not a one-line comparison,
    // but with `get_kernel_kind()` assumed it is computed, not left as an atom of its own.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.accessor.CompoundPredicateMoE", "--assume", "get_kernel_kind()=auto"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["atoms"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn data_handed_to_an_object_comes_back_from_its_next_call() {
    // `dispatch_a(weights=...)` keeps the routing weights in the dispatcher (directly, or in
    // the inner one a wrapper holds), `dispatch_b()` gives them back: the factor the router
    // folded into them reaches the output, so the block's own multiply makes it ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.handover.HandoverMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
}

#[test]
fn what_a_step_writes_into_an_unknown_object_a_later_step_reads_back() {
    // `batch.stream.finisher = ...` on a parameter the block knows nothing of: the finisher
    // read back later is the one written, under the condition it was written in.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.carrier.CarrierMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.carrier.DoubleCarrierMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert!(rows(&out).contains(&("TWICE".into(), 2, "config.scale_in_finish".into())), "{}", out.stdout);
}

#[test]
fn a_skipped_call_runs_when_what_it_wrote_into_an_object_handed_in_is_read() {
    // `self.boundary.prepare(x, batch)` never sees the factor, so it is not evaluated where it
    // is called; the finalize it writes into the batch is read back and called with the
    // factor: it runs then, and the finalize it chose decides the count.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.carrier.BoundaryMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.carrier.DoubleBoundaryMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert!(rows(&out).contains(&("TWICE".into(), 2, "config.fused_finalize".into())), "{}", out.stdout);
}

#[test]
fn a_kernel_imported_inside_a_function_and_handed_out_is_that_kernel() {
    // `fused_experts, _ = _moe_kernels()`, which imports it in its body: the call is evaluated,
    // so the kernel given the factor is a delegated application, not an unresolved callee.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_import.LazyKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let site = &out.json()["rows"][0]["parts"][0]["sites"][0];
    assert_eq!(
        (site["kind"].as_str(), site["callee"].as_str()),
        (Some("delegated"), Some("fastkernels.moe.fused_experts"))
    );
    let (code, verdict, _) = trace("trace/router", &["--entry", "gate.lazy_import.DoubleLazyKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"));
}

#[test]
fn an_unknown_row_names_the_callee_that_blocked_it() {
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_import.UnsetFinalizeMoE"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    let blocked = out.json()["rows"][0]["blocked_by"].clone();
    assert_eq!(blocked.as_array().map(Vec::len), Some(1), "{}", out.stdout);
    assert_eq!(blocked[0]["location"]["line"], 38, "{}", out.stdout);
    assert!(blocked[0]["what"].as_str().unwrap().contains("`UnsetFinalizeMoE.finalize` is never set"), "{blocked}");
    // A row that is decided names nothing.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.lazy_import.LazyKernelMoE"]);
    assert!(out.json()["rows"][0].get("blocked_by").is_none(), "{}", out.stdout);
}

#[test]
fn a_tensor_filled_with_the_inverse_of_the_value_divides_where_it_is_made() {
    // `weights.new_full(shape, 1.0 / factor)`: the shared slot's weight. Compensated by the
    // block's multiply, ONCE; without it the slot stays at 1/factor (it read as unscaled).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filled.FilledSlotMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filled.UncompensatedSlotMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"), "{}", out.stdout);
    let site = &out.json()["rows"][0]["parts"][0]["sites"][0];
    assert_eq!((site["location"]["line"].as_i64(), site["exponent"].as_i64()), (Some(18), Some(-1)), "{site}");
}

#[test]
fn where_the_value_is_zero_or_none_nothing_is_applied() {
    // `if not self.routed_scaling_factor: return x`: left out, not a NEVER row (and not the
    // other way round, as when the atom was named after `not x`).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.falsy.FalsyGuardMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let vacuous = &out.json()["vacuous"];
    assert_eq!(vacuous[0]["condition"], "not routed_scaling_factor", "{vacuous}");
    // Read through a parameter of another name, the same test.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.falsy.SharedSlotWeightMoE"]);
    assert_eq!(
        rows(&out),
        [("NEVER".into(), 0, "config.fused_in_topk".into()), ("INVERSE".into(), -1, "not config.fused_in_topk".into())]
    );
}

#[test]
fn a_getter_declared_as_a_union_alias_runs_the_predicates_of_its_classes() {
    // `def get_kind() -> KindLike` with `KindLike = Kind | RegisteredKind`: the predicate
    // another enum also defines is the one of these classes, an equality of the kind, so the
    // two multiplies exclude each other (it was an atom of its own: a TWICE no kind reaches).
    let (_, _, out) = trace("trace/router", &["--entry", "gate.backend_like.BackendLikeMoE"]);
    let table = rows(&out);
    assert!(!table.iter().any(|r| r.0 == "TWICE"), "{}", out.stdout);
    assert!(table.contains(&("ONCE".into(), 1, "get_kind() == \"plain\"".into())), "{table:?}");
}

#[test]
fn a_predicate_every_enum_with_the_member_answers_alike_is_that_answer() {
    // Two enums have a `"fast"` member and define `is_fast` each its own way; a member is held
    // as its value, so which enum's method runs is not known, but both say true. As an atom of
    // its own, the fast runner also took the slow path: a TWICE no configuration reaches.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shared_member.SharedMemberMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.shared_member.AlwaysFoldingSharedMemberMoE"]);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "config.fast".into()), ("TWICE".into(), 2, "not config.fast".into())]);
}

#[test]
fn a_getter_method_gives_what_its_object_holds() {
    // `method.get_backend(layer)` returns the runner's backend, one of four: named by the call,
    // its test was an atom beside the runner's own (TWICE and NEVER rows no backend reaches).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.getter.GetterMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.getter.NeverFoldingGetterMoE"]);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "not config.a".into()), ("NEVER".into(), 0, "config.a".into())]);
}

#[test]
fn what_a_record_may_hold_is_kept_apart_when_its_data_passes_through() {
    // `dispatcher.combine(CombineInput(out, ids))`, not evaluated: the output is what the record
    // holds in each configuration. Merged into one tensor it read ONCE where nothing scales.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.held.HeldMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "config.fast".into()), ("NEVER".into(), 0, "not config.fast".into())]);
}

#[test]
fn a_global_set_by_an_initialization_function_is_not_its_initial_none() {
    // `_TP = None`, set by `initialize_tensor_parallel` (`global _TP`): `assert _TP is not
    // None` in the getter is a check, not the end of every configuration.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.initialized.InitializedMoE"]);
    let table = rows(&out);
    assert_eq!(table.len(), 1, "{}", out.stdout);
    assert_eq!((table[0].1, table[0].2.as_str()), (1, "always"), "{}", out.stdout);
}

#[test]
fn a_whole_model_is_answered_at_the_block_that_uses_its_routers_weights() {
    // The router keeps the factor but returns weights beside logits and ids: the block is the
    // module that uses them, TWICE where it multiplies again. The layers come from a slice of
    // the layer list whose bound is known at run time only.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.router_model.RoutedModel"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let json = out.json();
    let blocks = json["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{}", out.stdout);
    assert_eq!(blocks[0]["entry"], "gate.router_model.RoutedBlock");
    let verdicts: Vec<(&str, &str)> = blocks[0]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["verdict"].as_str().unwrap(), v["when"].as_str().unwrap()))
        .collect();
    assert_eq!(verdicts, [("ONCE", "not config.rescale"), ("TWICE", "config.rescale")]);
}

#[test]
fn a_helper_that_builds_one_of_two_classes_is_evaluated_so_the_class_follows_its_flag() {
    // `make_prep(fused)` returns `FusedPrep()` or `PlainPrep()`; the kernel tests the instance
    // with `isinstance`. Evaluated, the fused kernel runs exactly where the block does not
    // multiply: ONCE in both configurations (named by the call, the fused one was NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chooser.ChooserMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.use_fused_kernel".into()),
            ("ONCE".into(), 1, "not config.use_fused_kernel".into())
        ]
    );
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chooser.DoubleChooserMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out)[1], ("TWICE".into(), 2, "config.use_fused_kernel".into()));
}

#[test]
fn an_optional_tensor_of_the_entry_that_a_path_requires_is_passed_there() {
    // `input_ids: Optional[Tensor] = None`, required on the hash-routed path (it raises when
    // None): the entry's callers may pass it, so that path runs and its double application
    // shows. Kept at its default, the path raised everywhere and the answer read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.optional_input.HashInputMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.hash_routed".into()), ("TWICE".into(), 2, "config.hash_routed".into())]
    );
}

#[test]
fn a_value_in_a_list_of_enum_members_is_decided_by_the_member() {
    // `if self.backend in [Backend.TPU, Backend.OOT]`, the backend chosen by the configuration:
    // the list is tested like a tuple, so the rows are the configuration's own (an atom of
    // its own, `"TRITON" in [Backend.TPU, Backend.OOT]`, split each of them).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.member_list.ListedBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.member_list.UnscaledListedBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.on_tpu".into()), ("NEVER".into(), 0, "config.on_tpu".into())]
    );
}

#[test]
fn a_row_where_scaled_data_was_cut_at_the_alternatives_bound_is_not_never() {
    // Ten flags scale two terms apart: 36 distinct scales, more than a value keeps even with
    // histories of one scale merged. Handed on inside a record, the cut ones are no data:
    // their configurations read NEVER, which no configuration is. Scaled data was cut there,
    // so the row is UNKNOWN and says why; the rows the cut did not reach keep their verdicts.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.cut.HeldManyPathsMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = out.json()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["verdict"] != "NEVER" && r["cut_at_bound"] != true), "{}", out.stdout);
    assert!(rows.iter().any(|r| r["verdict"] == "TWICE"), "{}", out.stdout);
    let unknown: Vec<&serde_json::Value> = rows.iter().filter(|r| r["verdict"] == "UNKNOWN").collect();
    assert_eq!(unknown.len(), 1, "{}", out.stdout);
    assert!(unknown[0]["reason"].as_str().unwrap().contains("cut at the alternatives bound"), "{}", out.stdout);
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.cut.HeldManyPathsMoE", "--max-alternatives", "24"],
    );
    assert_eq!(text.stdout.matches("why unknown: values holding scaled data were cut").count(), 1, "{}", text.stdout);
}

#[test]
fn a_value_keeps_forty_eight_alternatives_unless_told_otherwise() {
    // Ten flags give the output 36 distinct scales. Within what a value keeps by default,
    // every configuration is answered and nothing is cut; kept to 24, they are cut and the
    // rows the cut fell in are not final (at 24, SGLang 0.5.23's `Dots3MoE` read UNKNOWN).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.cut.HeldManyPathsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["bounds"].as_array().unwrap().len(), 0, "{}", out.stdout);
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verdict"] != "UNKNOWN" && r["cut_at_bound"] != true), "{}", out.stdout);
    // Ten flags, every configuration its own row (no two give the same pair of exponents
    // under one condition): the exponents run from 1 (no routed flag) to 6.
    let exponents: std::collections::BTreeSet<i64> = rows.iter().filter_map(|r| r["exponent"].as_i64()).collect();
    assert_eq!(exponents.first(), Some(&1), "{}", out.stdout);
    let (_, _, cut) = trace("trace/router", &["--entry", "gate.cut.HeldManyPathsMoE", "--max-alternatives", "24"]);
    let bounds = cut.json()["bounds"].to_string();
    assert!(bounds.contains("more alternatives than kept"), "{}", cut.stdout);
    let out = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.cut.HeldManyPathsMoE", "--max-alternatives", "1"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--max-alternatives 1"), "{}", out.stderr);
}

#[test]
fn histories_of_one_scale_are_one_value_rather_than_cut() {
    // Five flags each multiply and divide on their own line, then the output is scaled once:
    // 32 histories of exponent 1, more than a value keeps. Merged by scale (their sites
    // together) rather than cut, they answer: ONCE, no bound hit. (They were cut, and the
    // answer was UNKNOWN.)
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.cut.CancelledPathsMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["bounds"].as_array().unwrap().len(), 0, "{}", out.stdout);
    // A merged part whose sites cannot all have applied says they are alternatives.
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.cut.ManyPathsMoE", "--max-alternatives", "24"],
    );
    assert!(text.stdout.contains("by one of these as the configuration decides"), "{}", text.stdout);
}

#[test]
fn a_boolean_property_extended_through_super_decides_the_path() {
    // `super().is_monolithic` runs the base's property, and a small `-> bool` decision is
    // evaluated with its many answers kept apart: the path follows the kernel class the
    // configuration picks, not an atom of its own.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.decision.DecidedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.decision.UnscaledRouterDecidedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let monolithic = "(config.use_fused_kernel and config.backend not in (\"plugin\", \"remote\")) or \
                      config.backend == \"cpu\" or (config.backend == \"plugin\" and config.plugin_monolithic) or \
                      (config.backend == \"remote\" and remote_is_monolithic())";
    let modular = "(not config.use_fused_kernel and config.backend not in (\"cpu\", \"plugin\", \"remote\")) or \
                   (config.backend == \"plugin\" and not config.plugin_monolithic) or (config.backend == \"remote\" \
                   and not remote_is_monolithic())";
    assert_eq!(rows(&out), [("ONCE".into(), 1, monolithic.into()), ("NEVER".into(), 0, modular.into())]);
}

#[test]
fn a_module_flag_a_context_manager_sets_is_not_its_first_value() {
    // `_capturing = False`, turned on by `capture()` at run time: read as `False`, the
    // captured path that forgets the factor never ran and the answer was ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.state_flag.CapturedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.state_flag.UnscaledCapturedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "_force_eager or not _capturing".into()),
            ("NEVER".into(), 0, "not _force_eager and _capturing".into())
        ]
    );
}

#[test]
fn a_priority_list_reordered_by_a_helper_and_a_mapped_backend_name_are_evaluated() {
    // The backend is the first supported member of a list one platform reorders, or the
    // member a dict maps the user's name to. Named, the loop element and the mapping were
    // atoms of their own; evaluated, each row names the platform and the configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.priority.PriorityMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.priority.UnscaledSlowPriorityMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let fast = "(config.moe_backend == \"auto\" and not current_platform.is_old_gpu() and config.fast_supported) \
                or config.moe_backend == \"fast\"";
    let slow = "(config.moe_backend == \"auto\" and (current_platform.is_old_gpu() or not config.fast_supported)) \
                or config.moe_backend == \"slow\"";
    assert_eq!(rows(&out), [("ONCE".into(), 1, fast.into()), ("NEVER".into(), 0, slow.into())]);
}

#[test]
fn an_empty_dimension_handed_back_by_a_helper_is_left_out() {
    // `M = a1.size(1)` then `if M == 0: return torch.empty_like(a1)`: no tokens, nothing to
    // scale, whichever dimension holds them.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.empty_dim.EmptyDimMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.empty_dim.UnscaledBatchedEmptyDimMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not (x.dim() == 3)".into()), ("NEVER".into(), 0, "x.dim() == 3".into())]
    );
    let vacuous = vacuous_conditions(&out);
    assert!(vacuous.iter().any(|a| a == "a1.size(1) == 0"), "{vacuous:?}");
}

#[test]
fn a_method_that_fills_its_own_attributes_runs_when_they_are_read() {
    // `self.finalize_weights()` never sees the value; skipped, what it set was lost and the
    // assert after it failed in every configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.finalize.FinalizedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.finalize.UnscaledFinalizedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out), [("NEVER".into(), 0, "always".into())]);
}

#[test]
fn a_buffer_an_unresolved_kernel_fills_holds_data_of_unknown_scale() {
    // The scaled weights reach the kernel inside a buffer object; the output buffer it fills
    // is not "fresh and unscaled" but unknown, blocked by that call.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.opaque_kernel.OpaqueKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let blocked: Vec<String> = out.json()["rows"][0]["blocked_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["location"]["line"].to_string())
        .collect();
    assert_eq!(blocked, ["30"], "{}", out.stdout);
}

#[test]
fn a_raise_a_handler_catches_runs_the_handler_instead_of_ending_the_configuration() {
    // `try: return pick("fast", config) except ValueError: ...` then the fallback: where the
    // fast kernel raises, the fallback runs. Ended there instead, the fallback that forgets
    // the factor read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.caught.CaughtMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.caught.UnscaledFallbackCaughtMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fast_ok".into()), ("NEVER".into(), 0, "not config.fast_ok".into())]
    );
}

#[test]
fn a_local_bound_on_some_paths_raises_where_it_is_not_and_lost_configurations_are_reported() {
    // Read where no path bound it, `weights` raises `UnboundLocalError`: those configurations
    // never finish, and the row covers the others.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unbound.PartialRouter"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // A closure's read of it is not followed that far: the configurations no output reached
    // are a row of their own, saying so, instead of missing from the table.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unbound.ClosureRouter"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.topk_method == \"greedy\"".into()),
            ("UNKNOWN".into(), 0, "not (config.topk_method == \"greedy\")".into())
        ]
    );
    let reason = out.json()["rows"][1]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("the evaluation lost these configurations"), "{reason}");
}

#[test]
fn an_empty_position_of_a_reordered_list_is_not_iterated() {
    // Moving members to the back under two platform flags leaves a position empty where both
    // hold; iterated anyway, the step there was unknown and every row UNKNOWN.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.reordered_steps.OrderedStepsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.reordered_steps.UnscaledOrderedStepsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out), [("NEVER".into(), 0, "always".into())]);
}

#[test]
fn a_bool_classmethod_returning_a_fact_of_its_argument_is_that_fact() {
    // `kernel.applies_scale(config)` is `config.fuse_scale` for either kernel: the layer's own
    // `if not self.fuse_scale` scaling is its exact complement. Named by the call, the pair
    // read TWICE and NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_fact.KernelFactMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_fact.PickyKernelFactMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.fuse_scale and (config.kernel == \"fast\" or config.slow_fusion)".into()),
            ("ONCE".into(), 1, "not config.fuse_scale".into()),
            (
                "NEVER".into(),
                0,
                "not (config.kernel == \"fast\") and config.fuse_scale and not config.slow_fusion".into()
            )
        ]
    );
}

#[test]
fn the_loaders_phase_runs_for_each_of_several_quantization_methods_and_names_its_bound() {
    // Five methods, each building its kernel in `process_weights_after_loading` and asserting
    // it when the layer runs. Skipped silently past four, every configuration failed the assert.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.many_methods.ManyMethodsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.many_methods.UnscaledFp4ManyMethodsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (config.checkpoint_format == \"fp4\")".into()),
            ("NEVER".into(), 0, "config.checkpoint_format == \"fp4\"".into())
        ]
    );
    // Nine: past the bound, which the answer names. The hook runs for those under the fewest
    // conditions, at most eight (it ran for none, and every configuration failed the assert);
    // the ninth method's configurations all fail it, so ONCE is not proven.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.many_methods.WideManyMethodsMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let bounds = out.json()["bounds"].to_string();
    assert!(
        bounds.contains("the loader's `process_weights_after_loading` is run only for those under the fewest"),
        "{bounds}"
    );
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_flag_no_class_of_the_method_declares_is_the_default_getattr_gives() {
    // `getattr(quant_method, "fuse_in_topk", False)` on a method class with only `nn.Module`
    // and `ABC` outside the tree that never declares the flag: `False`. A symbol instead, its
    // true side folded the factor into the router weights while the method multiplied: TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declared_flag.DeclaredFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "config.fp4".into()), ("ONCE".into(), 1, "not config.fp4".into())]);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declared_flag.MistakenDeclaredFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "config.fp4".into()), ("TWICE".into(), 2, "not config.fp4".into())]);
}

#[test]
fn once_everywhere_is_not_the_verdict_when_a_row_was_cut_at_the_alternatives_bound() {
    // Exponent 1 in every configuration, but a value on the way was cut: the row the cut fell
    // in is not a proof, so the headline is UNKNOWN and says why.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.cut.OverwrittenCutMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let rows = out.json()["rows"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["verdict"] == "ONCE"), "{}", out.stdout);
    assert_eq!(rows.iter().filter(|r| r["cut_at_bound"] == true).count(), 1, "{}", out.stdout);
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.cut.OverwrittenCutMoE", "--max-alternatives", "24"],
    );
    assert!(text.stdout.lines().nth(1).is_some_and(|l| l.contains("groups are not final")), "{}", text.stdout);
}

#[test]
fn a_router_whose_class_mentions_the_factor_is_evaluated_through_its_inherited_forward() {
    // The generic `forward` finds the platform's method by name; skipped, the router's result
    // was a plain tensor, the model's format test never held and the packed path went unseen.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.output_format.OutputFormatMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.packed_routing".into()), ("ONCE".into(), 1, "not config.packed_routing".into())]
    );
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.output_format.UnscaledPackedOutputFormatMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.packed_routing".into()), ("NEVER".into(), 0, "config.packed_routing".into())]
    );
}

#[test]
fn a_field_a_named_tuple_does_not_have_raises() {
    // `routing.weights` on the packed format: `AttributeError`, so only the standard
    // configurations have an answer (a symbol for the field made a second row of its own).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.output_format.UncheckedOutputFormatMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_tensor_made_with_a_shape_keeps_it_and_out_receives_the_result() {
    // `cache = torch.empty((n, topk, d))`, then `num_tokens, topk = cache.shape[:2]` in the
    // helper that sums it with `torch.sum(cache, dim=1, out=out)`: one `topk`. As two
    // unknowns, or with the sum not landing in `out`, the rows were configurations no run has.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.combine_shape.CombineShapeMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.combine_shape.RescaledCombineShapeMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "weights.shape[1] == 1".into()), ("TWICE".into(), 2, "not (weights.shape[1] == 1)".into())]
    );
}

#[test]
fn a_helper_returning_one_of_two_differently_scaled_tensors_is_evaluated() {
    // Summarized as an outside computation, the product of what it is handed, the correct
    // variant read TWICE where the factor was folded in, and the buggy one missed its NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.picked_output.PickedOutputMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.picked_output.SwappedPickedOutputMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("TWICE".into(), 2, "config.fold_scaling_into_weights".into()),
            ("NEVER".into(), 0, "not config.fold_scaling_into_weights".into())
        ]
    );
}

#[test]
fn flags_combined_with_an_in_place_or_are_the_or_of_the_flags() {
    // `use_routed |= materialized` in the runner, `use_routed or standard` in the layer: the
    // same configurations. Named by its text, the `|=` was an atom of its own (TWICE and NEVER
    // rows no configuration reaches).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.bool_or.OrFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.bool_or.ForgetfulOrFlagMoE"]);
    let table = rows(&out);
    let never: Vec<_> = table.iter().filter(|(v, _, _)| v != "ONCE").collect();
    assert_eq!(
        never,
        [&("NEVER".into(), 0, "not config.routed_backend and config.standard_format".into())],
        "{table:?}"
    );
}

#[test]
fn a_long_boolean_decision_over_facts_is_evaluated() {
    // `can_bypass(config) -> bool`: a dozen `if`s with local names for facts. Named by the call,
    // it was a free atom (a NEVER row no configuration reaches); evaluated, no method bound
    // means never bypassed, and the renormalizing method means bypassed exactly on renorm.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.long_decision.DecidedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.long_decision.RenormBypassMoE"]);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.renorm".into()), ("NEVER".into(), 0, "config.renorm".into())]
    );
}

#[test]
fn with_binds_what_enter_returns() {
    // `with self.exit() as scale`: `__enter__` returns the scale. Bound to the context object,
    // the exit's multiply was lost: NEVER, and the buggy variant read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.entered.EnteredMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, verdict, _) = trace("trace/router", &["--entry", "gate.entered.TwiceEnteredMoE"]);
    assert_eq!(verdict, "TWICE");
}

#[test]
fn a_helper_that_may_return_none_is_evaluated() {
    // `out = maybe_contiguous(x, weights, flag)`, `if out is not None: return out`. Skipped as
    // an outside computation the result was never None, so the shared path, which scales a
    // second time in the buggy variant, never ran: ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.maybe_none.MaybeNoneMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.maybe_none.TwiceOnSharedPathMoE"]);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.contiguous".into()), ("TWICE".into(), 2, "not config.contiguous".into())]
    );
}

#[test]
fn a_global_declared_as_an_optional_enum_is_none_or_a_member() {
    // `A2A_BACKEND: Optional[A2ABackend] = None`, set by a function the trace never runs: its
    // value is `None` or a member. Read as any value, a configuration where it is neither made
    // a NEVER row in the correct block and a ONCE row in the buggy one.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.optional_backend.OptionalBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.optional_backend.DeepTwiceMoE"]);
    assert_eq!(
        rows(&out),
        [
            ("TWICE".into(), 2, "A2A_BACKEND == \"deep\"".into()),
            ("NEVER".into(), 0, "A2A_BACKEND in (None, \"none\")".into())
        ]
    );
}

#[test]
fn an_object_of_a_class_is_not_none() {
    // `isinstance(quant_config, FoldConfig)` in the constructor, `quant_config is None` in
    // `forward`: no configuration has both. Read as one, it made a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.none_or_class.NoneOrClassMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.none_or_class.FoldTwiceMoE"]);
    let rows = rows(&out);
    assert_eq!(rows.len(), 2, "{}", out.stdout);
    assert_eq!(rows[1], ("TWICE".into(), 2, "quant_config is FoldConfig".into()));
}

#[test]
fn module_code_under_a_guard_runs_where_the_guard_holds() {
    // `if HAS_FASTLIB: from fastlib import drivers; ACTIVE = [... drivers ...]; SINGLE = ...;
    // if not SINGLE: HAS_FASTLIB = False`. Evaluated everywhere, `ACTIVE` read `drivers` and
    // the inner guard `SINGLE` where they are unbound, and half the configurations raised
    // `NameError`; the guard read `HAS_FASTLIB` as defined in terms of itself, an atom printed
    // like the first binding's.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.guarded_block.GuardedBlockMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
    assert_eq!(
        rows(&out).into_iter().map(|(_, _, when)| when).collect::<Vec<_>>(),
        ["HAS_FASTLIB and len(ACTIVE) == 1", "not HAS_FASTLIB or not (len(ACTIVE) == 1)"]
    );
}

#[test]
fn platform_predicates_describe_one_platform() {
    // `_is_cuda`, `_is_hip` (a module variable holding an evaluated predicate) and
    // `current_platform.is_rocm()` (a method of an unknown object): read as unrelated facts,
    // two platforms held together and made TWICE rows.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.platform_flags.OnePlatformMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let notes = out.json()["unresolved"].to_string();
    assert!(notes.contains("the platform predicates describe one platform"), "{notes}");
    let (_, _, out) = trace("trace/router", &["--entry", "gate.platform_flags.RocmTwiceMoE"]);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "_is_cuda".into()),
            ("ONCE".into(), 1, "not current_platform.is_rocm() and not _is_cuda".into()),
            ("TWICE".into(), 2, "current_platform.is_rocm()".into())
        ]
    );
}

#[test]
fn pytorch_build_versions_are_platform_predicates() {
    // `if torch.version.hip:` in one place and `_is_hip` (`torch.version.hip is not None`)
    // in another: read as two facts, a NEVER row had a ROCm build that is not ROCm.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.platform_flags.BuildVersionMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.platform_flags.CudaBuildTwiceMoE"]);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "torch.version.cuda == None".into()), ("TWICE".into(), 2, "_is_cuda".into())]
    );
}

#[test]
fn the_length_of_a_string_is_no_size_of_data() {
    // `len(os.environ.get(...).strip()) == 0` taken for empty data left those configurations
    // out of the table: the buggy variant's TWICE there read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.env_length.EnvLengthMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.env_length.EnvLengthTwiceMoE"]);
    assert!(out.json()["vacuous"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "_VISIBLE == None or not (len(_VISIBLE.strip()) == 0)".into()),
            ("TWICE".into(), 2, "not (_VISIBLE == None) and len(_VISIBLE.strip()) == 0".into())
        ]
    );
}

#[test]
fn a_size_tested_greater_than_zero_leaves_the_empty_batch_out() {
    // `if hidden_states.shape[0] > 0:` is `not (... == 0)`: the empty batch is left out of the
    // table, as the equality test is, instead of a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.nonempty.NonEmptyMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let vacuous = &out.json()["vacuous"];
    assert_eq!(vacuous.as_array().unwrap().len(), 1, "{vacuous:#}");
    assert_eq!(vacuous[0]["condition"], "hidden_states.shape[0] == 0");
}

#[test]
fn integer_ids_carry_no_scale() {
    // `_, ids = fused_gate(x, factor)`: an outside kernel handed the factor gives everything
    // back scaled. `ids.to(torch.int32)` (or `.long()`) is integer data, unscaled. Before,
    // tokens scattered by those ids took the factor from them: MIXED where the block scales
    // once.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.integer_ids.ScatteredByIdMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.integer_ids.TwiceScatteredByIdMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    assert_eq!(rows(&out).iter().map(|r| r.1).collect::<Vec<_>>(), [2]);
}

#[test]
fn sizes_are_numbers_not_data() {
    // `self.experts.weight.shape[0]` (an outside module's weight) and `int(mask.sum())` are
    // numbers: the factor divided or multiplied by one stays the factor, applied where it
    // meets the data (the `return` line), once.
    for entry in ["gate.sizes.SpreadOverExpertsMoE", "gate.sizes.CountedMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        let lines: Vec<u64> = out.json()["rows"][0]["parts"][0]["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["location"]["line"].as_u64().unwrap())
            .collect();
        let expected = if entry.ends_with("SpreadOverExpertsMoE") { 19 } else { 30 };
        assert_eq!(lines, [expected], "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_platform_fixes_its_predicates() {
    // `--platform cuda`: `_is_cuda` (the example's `is_cuda()`) is true, so the TWICE row no
    // longer names it; it is listed among the assumptions as part of the platform.
    let args = ["trace", "routed_scaling_factor", "--entry", "TinyMoeForCausalLM", "--format", "json"];
    let cuda = run(&crate::example(), &[&args[..], &["--platform", "cuda"]].concat());
    assert_eq!(cuda.code, 1);
    let block = &cuda.json()["blocks"][0];
    let twice: Vec<&str> = block["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "TWICE")
        .map(|r| r["when"].as_str().unwrap())
        .collect();
    assert_eq!(twice, ["config.moe_backend == \"flashinfer\" and _use_fast_combine"]);
    assert_eq!(
        cuda.json()["assumptions"],
        serde_json::json!([{ "name": "_is_cuda", "value": "True", "used": true, "platform": "cuda" }])
    );
    // On ROCm the top-k never folds the factor in (it needs CUDA): ONCE everywhere.
    let rocm = run(&crate::example(), &[&args[..], &["--platform", "rocm"]].concat());
    assert_eq!((rocm.code, rocm.json()["verdict"].as_str()), (0, Some("ONCE")), "{}", rocm.stdout);
    // An `--assume` of the same name wins over the platform.
    let both = run(&crate::example(), &[&args[..], &["--platform", "rocm", "--assume", "_is_cuda=true"]].concat());
    assert_eq!(both.json()["verdict"], "TWICE");
    let bad = run(&crate::example(), &[&args[..], &["--platform", "cuda12"]].concat());
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("not a platform"), "{}", bad.stderr);
}

#[test]
fn a_kernel_loaded_at_run_time_is_an_outside_callee() {
    // `module = load_jit(...)`; `module.fused_gate(x, out, factor)`: a delegated application
    // written into `out`, whichever way the module was loaded (a cached `.so` found through a
    // `pathlib.Path`, or compiled). The path was taken for data, the module with it, and the
    // call for a tensor method not applying its argument: the correct block read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.jit_method.JitGateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["unresolved"], serde_json::json!([]), "{}", out.stdout);
    let (_, verdict, _) = trace("trace/router", &["--entry", "gate.jit_method.TwiceJitGateMoE"]);
    assert_eq!(verdict, "TWICE");
    // A tensor method handed the factor without applying it (`clamp(max=factor)`) is not one.
    let (_, verdict, _) = trace("trace/router", &["--entry", "gate.jit_method.ClampedMoE"]);
    assert_eq!(verdict, "ONCE");
}

#[test]
fn a_value_never_read_says_so() {
    // A misspelled name (or an entry that does not hold the value) is NEVER, and the output
    // says the value was never read rather than leaving it to be taken for a missing scale.
    let out = run(&crate::example(), &["trace", "routed_scale", "--entry", "TinyMoeForCausalLM", "--format", "json"]);
    assert_eq!(out.json()["verdict"], "NEVER");
    assert_eq!(out.json()["never_read"], true);
    let text = run(&crate::example(), &["trace", "routed_scale", "--entry", "TinyMoeForCausalLM"]);
    assert!(text.stdout.contains("routed_scale is never read on this path"), "{}", text.stdout);
    let read = run(
        &crate::example(),
        &["trace", "routed_scaling_factor", "--entry", "TinyMoeForCausalLM", "--format", "json"],
    );
    assert!(read.json().get("never_read").is_none());
}

#[test]
fn comparisons_of_one_value_with_numbers_are_linked() {
    // `n_group > 1` and `n_group <= 1` are one atom and its negation: once. (They were two
    // atoms: TWICE where both held, NEVER where neither did.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.thresholds.GroupedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // `n_group > 1` implies `n_group` is truthy: no TWICE; NEVER exactly for a truthy value not
    // above 1 (a single group).
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.thresholds.UngroupedOnlyMoE"]);
    assert_eq!(verdict, "NEVER", "{}", out.stdout);
    let rows = rows(&out);
    assert!(!rows.iter().any(|r| r.0 == "TWICE"), "{rows:?}");
    assert!(rows.contains(&("NEVER".into(), 0, "config.n_group <= 1 and config.n_group".into())), "{rows:?}");
}

#[test]
fn data_through_different_unknown_callees_is_one_alternative() {
    // Seven backends (six through a callee not seen into) times four modes: kept apart by
    // callee, 28 histories, more than a value keeps, and the cut put backends that went through
    // an unknown callee in a ONCE row. Which unknown callee it was does not change what is
    // known: eight histories, nothing cut, every such backend UNKNOWN.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.blockers.ManyBackendsMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["bounds"].as_array().unwrap().len(), 0, "{}", out.stdout);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8, "{}", out.stdout);
    assert!(rows.iter().all(|r| r["cut_at_bound"] != true && r["exponent"] == 1), "{}", out.stdout);
    let once: Vec<&str> = json["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["verdict"] == "ONCE")
        .map(|v| v["when"].as_str().unwrap())
        .collect();
    assert_eq!(once, ["config.backend not in (\"a\", \"b\", \"c\", \"d\", \"e\", \"f\")"], "{}", out.stdout);
}

#[test]
fn a_module_getattr_answers_its_missing_names() {
    // `envs.SIMULATE_ROUTING` comes from the module's `__getattr__` (PEP 562): one environment
    // read wherever it is read, under whatever local name. (It was an unknown value per read:
    // the fusing setting, read twice, was two atoms, and the block read MIXED with a TWICE row.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_env_moe.LazyEnvMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let rows = rows(&out);
    assert_eq!(
        rows,
        [
            ("ONCE".into(), 1, "SIMULATE_ROUTING == \"\" and FUSE_SCALE".into()),
            ("ONCE".into(), 1, "SIMULATE_ROUTING == \"\" and not FUSE_SCALE".into()),
            ("NEVER".into(), 0, "not (SIMULATE_ROUTING == \"\")".into()),
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_setting_declared_for_type_checkers_is_read_through_the_module_getattr() {
    // vLLM's `envs.py`: `if TYPE_CHECKING: X: bool = False`, and a `__getattr__` that reads the
    // environment. Read as declared, the setting was always off: the buggy block, TWICE with
    // it on, read ONCE. `bool(int(os.getenv(...)))` is a flag named after the setting.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declared_env_moe.DeclaredEnvMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.declared_env_moe.DeclaredEnvTwiceMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not FUSE_INTO_WEIGHTS".into()), ("TWICE".into(), 2, "FUSE_INTO_WEIGHTS".into())]
    );
    assert!(!out.stdout.contains("TYPE_CHECKING"), "{}", out.stdout);
}

#[test]
fn a_setting_assumed_by_its_name_is_that_value() {
    // `--assume FUSE_IN_KERNEL=true` matched the string tests the hook makes
    // (`os.getenv(...).lower() == "true"`) by the name inside them, and compared them with
    // `True`: both false, the setting off, and the TWICE it turns on read ONCE.
    let entry = ["--entry", "gate.declared_env_moe.KernelFusedTwiceMoE"];
    let (_, verdict, out) = trace("trace/router", &entry);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    for (value, expected) in [("true", "TWICE"), ("1", "TWICE"), ("false", "ONCE")] {
        let assume = format!("FUSE_IN_KERNEL={value}");
        let (_, verdict, out) = trace("trace/router", &[&entry[..], &["--assume", &assume]].concat());
        assert_eq!(verdict, expected, "{assume}: {}", out.stdout);
        assert!(out.json()["atoms"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
    }
}

#[test]
fn the_assumption_the_output_suggests_for_a_switch_turns_it_on() {
    // `FOLD_SCALE = os.environ.get("FOLD_SCALE", ...).lower() == "true"`: the output names the
    // atom `FOLD_SCALE` and suggests `--assume FOLD_SCALE=true`. That name also matched the
    // environment read by the word inside it, which took the assumed value: `True` (or `1`)
    // compared with the strings, unequal, and the switch read off: ONCE where it is TWICE.
    for (entry, name) in [("gate.env_words.EnvWordsMoE", "FOLD_SCALE"), ("gate.env_words.EnvDigitMoE", "FOLD_DIGIT")] {
        let (_, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!(verdict, "TWICE", "{}", out.stdout);
        assert_eq!(out.json()["atoms"][0]["assume_as"], format!("{name}=true"), "{}", out.stdout);
        for (value, expected) in [("true", "TWICE"), ("false", "ONCE")] {
            let assume = format!("{name}={value}");
            let (_, verdict, out) = trace("trace/router", &["--entry", entry, "--assume", &assume]);
            assert_eq!(verdict, expected, "{assume}: {}", out.stdout);
            assert!(out.json()["atoms"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
        }
    }
    // The variable's digit is its string, as the README says.
    let (_, verdict, out) =
        trace("trace/router", &["--entry", "gate.env_words.EnvDigitMoE", "--assume", "FOLD_DIGIT=1"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
}

#[test]
fn a_module_attribute_declared_by_its_type_alone_is_some_value_of_that_type() {
    // vLLM's `current_platform: Platform` under `if TYPE_CHECKING:`, computed by the module's
    // `__getattr__` from the machine. Evaluating that set-up named every test after its cache
    // variable (`_current_platform == None`) and counted the plugin search's raises.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declared_env_moe.PlatformFusedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "current_platform.fuses_scale()".into()),
            ("ONCE".into(), 1, "not current_platform.fuses_scale()".into())
        ]
    );
    assert!(out.json()["raises"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
    assert!(!out.stdout.contains("TYPE_CHECKING"), "{}", out.stdout);
}

#[test]
fn the_parts_of_one_output_make_one_row_per_configuration() {
    // A layer's output and its residual stream, returned as a pair: each part made rows of
    // its own (the output's ONCE "always" beside the stream's NEVER and INVERSE), so every
    // configuration sat in two rows. Now one row per configuration holds both (MIXED has no
    // one exponent).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tuple_parts.PairLayer"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not config.guard_overflow".into()),
            ("MIXED".into(), i64::MIN, "config.guard_overflow".into())
        ]
    );
}

#[test]
fn a_list_a_loop_appended_to_holds_what_some_iteration_appended() {
    // Experts with no tokens skipped by `continue`, the others' outputs gathered and
    // concatenated `if len(outputs)`: the skip test stayed on the list's items, and where it
    // held the list was empty, a configuration the evaluation lost (an UNKNOWN row).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.gathered_outputs.GatheredOutputsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // Scaled in each expert too: twice where the experts' outputs land, and no configuration
    // lost. (The `torch.empty_like` buffer they are scattered into held nothing of its own:
    // read as unscaled data beside theirs, the row was MIXED.)
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.gathered_outputs.GatheredScaledOutputsMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "not len(outputs)".into()), ("TWICE".into(), 2, "len(outputs)".into())]);
}

#[test]
fn a_function_that_adds_two_scaled_tensors_keeps_their_scale() {
    // A layer's own add-and-norm, handed the attention output and the stream both divided by
    // the factor, never reads the factor: skipped as an outside computation, it multiplied
    // their scales (the stream divided twice, -2). It adds them: divided once.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.summed_pair.SummedPairLayer"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("INVERSE".into(), -1, "always".into())]);
}

#[test]
fn every_assume_spelling_the_output_suggests_fixes_its_atom() {
    // The `--assume` printed beside each atom, passed back as the shell would pass it, matches:
    // equalities with an empty or numeric string, comparisons, tests of whole expressions,
    // which element of a table a loop sees.
    // Atoms a variable holds are named after it (`_use_fast_combine`, the README's example).
    let entries = [
        (fixture("trace/router"), "gate.lazy_env_moe.LazyEnvMoE"),
        (fixture("trace/router"), "gate.first_supported.FirstSupportedMoE"),
        (fixture("trace/router"), "gate.thresholds.GroupedMoE"),
        (fixture("trace/router"), "BufferRouter"),
        (fixture("trace/dispatch"), "net.model.Model"),
        (crate::example(), "TinyMoeForCausalLM"),
    ];
    let trace = |root: &std::path::Path, extra: &[&str]| {
        let mut all = vec!["trace", "routed_scaling_factor"];
        all.extend_from_slice(extra);
        all.extend_from_slice(&["--format", "json"]);
        let out = run(root, &all);
        (out.code, (), out)
    };
    let mut checked = 0;
    for (tree, entry) in &entries {
        let (tree, entry) = (tree.as_path(), *entry);
        let (_, _, out) = trace(tree, &["--entry", entry]);
        for atom in out.json()["atoms"].as_array().unwrap() {
            let spelled = atom["assume_as"].as_str().unwrap();
            // What the shell hands over for that word.
            let word = match spelled.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                Some(quoted) => quoted.replace("'\\''", "'"),
                None => spelled.to_string(),
            };
            let (_, _, fixed) = trace(tree, &["--entry", entry, "--assume", &word]);
            let json = fixed.json();
            let assumption = &json["assumptions"].as_array().unwrap()[0];
            assert_eq!(assumption["used"], true, "{entry}: `--assume {spelled}` matched nothing\n{}", fixed.stdout);
            let name = atom["name"].as_str().unwrap();
            assert!(
                !json["atoms"].as_array().unwrap().iter().any(|a| a["name"] == name),
                "{entry}: `--assume {spelled}` left `{name}` free\n{}",
                fixed.stdout
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn the_factor_over_data_is_an_application() {
    // `w *= routed_scaling_factor / w.sum()` in a device kernel: the site is that line. (It
    // was data carrying the factor with no site: ONCE with nothing to show for it.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.normalizing_kernel.NormalizingKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let sites: Vec<(u64, String)> = out.json()["rows"][0]["parts"][0]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["location"]["line"].as_u64().unwrap(), s["kind"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(sites, [(20, "mul".to_string())], "{}", out.stdout);
}

#[test]
fn a_list_filled_on_some_paths_is_empty_on_the_others() {
    // `if outputs` after a loop that appends only for experts with tokens: where the iteration
    // skipped, the list is empty. (It was non-empty everywhere, and those configurations lost
    // their output: UNKNOWN where an expert has no tokens.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.skipped_experts.SkippedExpertsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_block_is_answered_where_it_is_called() {
    // The MoE of a layer that is dense before `first_k_dense_replace`: the dense layers never
    // call the block, and are no configuration it lost. (Its answer was UNKNOWN there.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dense_or_moe.DecoderLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (entry, rows) = only_block(&out);
    assert_eq!(entry, "gate.dense_or_moe.MoE");
    assert_eq!(rows, [("ONCE".into(), "always".into())], "{}", out.stdout);
}

#[test]
fn a_layer_that_overrides_call_runs_its_forward_through_the_module_base() {
    // `super().__call__(*args, **kwargs)` past the tree is `nn.Module.__call__`: the layer's
    // `forward`. (The layers were outside calls, and the model read NEVER.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.checkpointing_layer.Model"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (entry, rows) = only_block(&out);
    assert_eq!(entry, "gate.checkpointing_layer.MoE");
    assert_eq!(rows, [("ONCE".into(), "always".into())], "{}", out.stdout);
}

#[test]
fn a_lookup_made_in_two_places_holds_in_both() {
    // `ACT2FN[config.hidden_act]` in the dense MLP and in every expert: one skipped call met
    // under opposite conditions, evaluated when the activation runs. It kept the first place's
    // condition, and its read of the table kept that condition in what it returned: the MoE
    // block lost every configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.activation_registry.DecoderLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (entry, rows) = only_block(&out);
    assert_eq!(entry, "gate.activation_registry.MoE");
    assert_eq!(rows, [("ONCE".into(), "always".into())], "{}", out.stdout);
}

#[test]
fn an_entry_that_only_keeps_the_value_is_answered_at_the_block_it_calls() {
    // vLLM's GLM-4 MoE decoder layer keeps `self.routed_scaling_factor` and never uses it: the
    // answer is its MoE block's, where the layer calls it (the dense layers read NEVER). A
    // layer that uses what it keeps stays its own answer.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kept_unused.DecoderLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (entry, rows) = only_block(&out);
    assert_eq!(entry, "gate.kept_unused.MoE");
    assert_eq!(rows, [("ONCE".into(), "always".into())], "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.kept_unused.UsingLayer"]);
    assert_eq!(verdict, "INVERSE", "{}", out.stdout);
    assert!(out.json().get("blocks").is_none_or(|b| b.as_array().unwrap().is_empty()), "{}", out.stdout);
}

#[test]
fn a_number_written_into_a_tensor_is_applied_there() {
    // `topk_weights[:, -1] = 1.0 / factor`: the fused shared slot's weight enters the data at
    // that line, which is its application site. (The part carried exponent -1 with no site, so
    // rows showed exponents no listed application explains.)
    let sites_of = |out: &crate::Run| -> Vec<(i64, u64, i64)> {
        let json = out.json();
        let mut sites: Vec<(i64, u64, i64)> = json["rows"][0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| {
                p["sites"].as_array().unwrap().iter().map(move |s| {
                    (
                        p["exponent"].as_i64().unwrap(),
                        s["location"]["line"].as_u64().unwrap(),
                        s["exponent"].as_i64().unwrap(),
                    )
                })
            })
            .collect();
        sites.sort();
        sites
    };
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.slot_fill.SlotMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // The shared slot: -1 at the assignment, +1 after the experts; the routed weights: +1.
    assert_eq!(sites_of(&out), [(0, 18, -1), (0, 33, 1), (1, 33, 1)], "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.slot_fill.UncompensatedSlotMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "INVERSE"), "{}", out.stdout);
    assert_eq!(sites_of(&out), [(-1, 18, -1)], "{}", out.stdout);
    // The slot made by `torch.where(mask, 1.0 / factor, 0.0)` and joined by `torch.cat`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.slot_fill.WhereSlotMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(sites_of(&out), [(0, 33, 1), (0, 52, -1), (1, 33, 1)], "{}", out.stdout);
}

#[test]
fn statements_after_a_caught_raise_do_not_run_where_it_raised() {
    // A pipeline stage reads the previous stage's proxy (`pp_proxy_tensors["hidden_states"]`,
    // an object of the tree): input data, as the embedding's output is.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_proxy.PipelineModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // `assert proxy is not None` caught by the `try` around it: where there is no proxy, the
    // assignment after it does not run and the embedding stays. Running it there made a
    // second row whose output was `None["hidden_states"]`, a value of unknown scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_proxy.TryTheProxyModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_class_body_names_its_own_functions() {
    // `forward_native = forward_cuda` in the class body (under `if is_tpu(): ... else: ...`, as
    // vLLM's unquantized MoE method does): the right side is the class's function. Read as a
    // module global it was unknown, and every configuration calling `forward_native` UNKNOWN.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_alias.ScaledExperts"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_router_that_raises_for_an_unknown_scoring_function_leaves_the_other_configurations_once() {
    // vLLM's shape: a router that raises for a scoring function it does not know, experts whose
    // output goes through a nested reducer, and a tensor-parallel all-reduce on a group found in
    // a registry filled at run time. Configurations that raise never reach the experts' output,
    // and the rest apply the factor once, with one site.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.collectives.ParallelMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert_eq!(out.json()["stats"]["sites"], 1, "{}", out.stdout);
}

#[test]
fn a_field_every_write_of_which_makes_an_object_is_never_none() {
    // The router's constructor is not evaluated while the block is built: its bias is an
    // unknown, but every write of it is `nn.Parameter(...)`, so `bias is None` is no
    // configuration (it read NEVER there).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.never_none_field.BiasRoutedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // A router that sets it to `None` for another top-k method keeps that configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.never_none_field.MaybeBiasRoutedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out).iter().map(|r| (r.0.as_str(), r.1)).collect::<Vec<_>>(),
        [("ONCE", 1), ("NEVER", 0)],
        "{}",
        out.stdout
    );
}

#[test]
fn a_nested_function_writing_into_its_enclosing_functions_buffer_writes_there() {
    // vLLM's chunked experts: `process_chunk` copies each chunk's scaled output into a buffer
    // of the enclosing function, which returns the buffer. The write was lost (NEVER where
    // chunked).
    // Where the nested function writes nothing (`refine_chunks` off), the buffer keeps its
    // first pass: those configurations were lost (UNKNOWN) when only the write went back.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chunk_closure.ChunkedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let rows = rows(&out);
    assert_eq!(rows.len(), 4, "{}", out.stdout);
    assert!(rows.iter().all(|r| r.0 == "ONCE" && r.1 == 1), "{}", out.stdout);
    assert!(rows.iter().any(|r| r.2 == "config.chunked"), "{}", out.stdout);
}

#[test]
fn a_test_of_a_loop_element_is_not_a_configuration() {
    // vLLM's chunked experts run as many chunks as the largest rank has tokens and store only
    // their own: `skip_result_store` differs between iterations. Read as a configuration, it
    // made a NEVER row where the rank "skips every chunk".
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.padded_chunks.PaddedChunkMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // The site still says in which iterations it runs.
    assert_eq!(
        out.json()["rows"][0]["parts"][0]["sites"][0]["when"],
        "not (an element of range(0, max_tokens_across_ranks, 4) >= full_hidden_states.size(0))",
        "{}",
        out.stdout
    );

    // Only the first chunk scaled again: tokens scaled once and tokens scaled twice, in one
    // buffer (it read TWICE in a "first iteration" configuration and ONCE in another).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.padded_chunks.FirstChunkRescaledMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let json = out.json();
    let mixed: Vec<&serde_json::Value> =
        json["rows"].as_array().unwrap().iter().filter(|r| r["verdict"] == "MIXED").collect();
    assert_eq!(mixed.len(), 1, "{}", out.stdout);
    assert_eq!(mixed[0]["exponents"], serde_json::json!([1, 2]), "{}", out.stdout);
    assert_eq!(mixed[0]["when"], "config.rescale_first_chunk", "{}", out.stdout);
}

#[test]
fn a_test_of_data_in_a_loop_over_data_is_not_a_configuration() {
    // transformers 5 runs the experts a batch hit one by one and skips the sentinel expert
    // with `continue`: `expert_idx == self.num_experts` is a test of data in a loop over data.
    // As a configuration it made a NEVER row where "the expert is the sentinel".
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.expert_loop.ExpertLoopMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_module_moved_to_another_dtype_is_the_module() {
    // `HyperConnection(config).to(dtype=torch.float32)`: `nn.Module.to` returns the module.
    // Taken for an unknown callee, the layer's output went through code of unknown effect
    // (UNKNOWN; transformers 5's DeepSeek V4 and HY V4 decoder layers).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.module_to.HyperConnectedLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_layer_that_never_names_the_value_is_answered_at_the_block_it_calls() {
    // The MoE block applies the factor itself and the layer calls it directly; the layer's
    // dense configurations made its headline NEVER (transformers 5's Laguna, Step 3.7).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.sparse_or_dense.SparseOrDenseLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    let blocks: Vec<&str> = json["blocks"].as_array().unwrap().iter().map(|b| b["entry"].as_str().unwrap()).collect();
    assert_eq!(blocks, ["gate.sparse_or_dense.SparseMoeBlock"], "{}", out.stdout);
    // The layer's own rows still say where it is dense.
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.mlp_layer_types[layer_idx] == \"sparse\"".into()),
            ("NEVER".into(), 0, "not (config.mlp_layer_types[layer_idx] == \"sparse\")".into())
        ],
        "{}",
        out.stdout
    );

    // A layer that scales its block's output again through another module keeping the factor:
    // that module is a block too, answered on its own output, which carries both applications.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.sparse_or_dense.RescalingLayer"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn a_context_manager_generator_runs_around_its_block() {
    // The generator's code after `yield` scales what the block left in the yielded dict. Not
    // followed, the dict was unknown and both configurations read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.scaled_scope.ScopedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not config.rescale_in_block".into()),
            ("TWICE".into(), 2, "config.rescale_in_block".into())
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_value_passed_under_the_traced_name_is_the_traced_value() {
    // SGLang's AFMoE reads its factor as `route_scale` and hands it to the expert runner as
    // `routed_scaling_factor=self.route_scale`: "never read" and NEVER before.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.keyword_origin.KeywordOriginMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // A callee that accepts the factor and never uses it: NEVER, now with the factor read.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.keyword_origin.IgnoredKeywordMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert!(out.json().get("never_read").is_none(), "{}", out.stdout);
}

#[test]
fn a_comprehension_filtered_on_data_has_items_wherever_some_element_passes() {
    // `[run(e) for e in expert_hit if e != self.num_experts]`: the filter was a configuration,
    // and where "the expert is the sentinel" the list did not exist (NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.listed_experts.ListedExpertsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_search_loop_returns_where_some_iteration_does() {
    // The raise after the loop ended every configuration ("no configuration reaches the end").
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.search_loop.SearchLoopMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn zip_and_enumerate_over_a_known_pair_go_item_by_item() {
    // vLLM's runner cuts `(shared, routed)` pair by pair with `zip(states, sizes)`: one element
    // standing for both made "which item" a configuration, and the block read NEVER where it
    // has shared experts (every vLLM 0.17 block with shared experts built on `SharedFusedMoE`).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zipped_pair.ZippedPairMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);

    // Two sequences of data zipped: `gate > 0` is a test of data in a loop over data, not a
    // configuration (it made a NEVER row); the site says in which iterations it runs.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zipped_pair.ZippedScalesMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert_eq!(out.json()["rows"][0]["parts"][0]["sites"][0]["when"], "gate > 0", "{}", out.stdout);

    // `enumerate` over the pair numbers its items: item 1, the routed output, scaled again.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zipped_pair.NumberedPairMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not config.n_shared_experts".into()),
            ("TWICE".into(), 2, "config.n_shared_experts".into())
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_pair_times_the_factor_raises_rather_than_scaling() {
    // The experts return `(shared, routed)` even without shared experts; the block's branch
    // without them multiplies the pair by the factor, which Python rejects. That configuration
    // raises: the rows are the other one, with its application site (it read ONCE with no site).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pair_output.PairMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert_eq!(out.json()["stats"]["sites"], 1, "{}", out.stdout);
}

#[test]
fn a_tensor_method_of_a_pair_raises_and_the_raise_is_listed() {
    // The branch without shared experts reshapes the experts' `(None, routed)` pair: Python
    // raises `AttributeError`. That configuration read UNKNOWN ("no data the evaluation could
    // follow"); it leaves the table, and the place it raises is listed beside the rows.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pair_output.ReshapedPairMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    let json = out.json();
    let raises = json["raises"].as_array().unwrap();
    assert_eq!(raises.len(), 1, "{}", out.stdout);
    assert_eq!(raises[0]["source"], "final_hidden_states.view", "{}", out.stdout);
    assert_eq!(raises[0]["location"]["line"], 58, "{}", out.stdout);

    // The same where the routed item is not known to be a tensor in every configuration (the
    // method the loader sets, never set here): a tuple still has no `view`. It read UNKNOWN.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.pair_output.ReshapedHalfKnownPairMoE"]);
    assert!(rows(&out).iter().all(|r| r.0 != "UNKNOWN"), "{}", out.stdout);
    assert_eq!(out.json()["raises"][0]["source"], "final_hidden_states.view", "{}", out.stdout);
}

#[test]
fn an_object_handed_back_beside_data_stays_the_object() {
    // A stage's `_prepare` hands the batch's stream back beside its input, after leaving a
    // transport on it that the stage's exit unpacks; `stream_of(batch)` reads the stream.
    // Skipped as outside computations, the stream became data (or an unknown value) and the
    // transport could not be unpacked: UNKNOWN where the rows move.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.returned_stream.StagedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_shallow_copy_holds_what_the_original_holds() {
    // The router reads the flag from `copy.copy(batch)` with a `dataclasses.replace`d plan,
    // the block from the original batch. Copies read as unknown values: the two reads were
    // different atoms, and half the tail configurations read TWICE or NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copied_batch.CopiedBatchMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "hidden_states.shape[0] <= 64".into()),
            ("ONCE".into(), 1, "hidden_states.shape[0] > 64".into())
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn leaving_a_with_block_runs_the_context_managers_exit() {
    // The attention stage's exit releases its transport in `__exit__`; the FFN stage refuses
    // to start while one is left. Without `__exit__`, every configuration raised there.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.exit_scope.TwoStageMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_module_global_rebound_by_a_function_is_read_back() {
    // Stages append themselves to the layer stack a `@contextmanager` keeps in a module global
    // (`global _stack`), bound when the stack closes. Not followed, no stack was open and every
    // configuration raised; `_require_stack()`, which reads the global, named rather than
    // evaluated, the stages went to an unknown value and were never bound.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.layer_stack.StackedModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let block_rows = |out: &crate::Run| -> Vec<(String, String)> {
        let blocks = out.json()["blocks"].as_array().unwrap().clone();
        assert_eq!(blocks.len(), 1, "{}", out.stdout);
        blocks[0]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["verdict"].as_str().unwrap().to_string(), r["when"].as_str().unwrap().to_string()))
            .collect()
    };
    let once = |when: &str| ("ONCE".to_string(), when.to_string());
    assert_eq!(block_rows(&out), [once("config.scale_in_exit"), once("not config.scale_in_exit")], "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.layer_stack.AlwaysScaledModel"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        block_rows(&out),
        [once("not config.scale_in_exit"), ("TWICE".to_string(), "config.scale_in_exit".to_string())],
        "{}",
        out.stdout
    );
}

#[test]
fn plans_bound_through_an_identity_keyed_dict_reach_their_stages() {
    // `{id(append): [None] * len(append.stages) for append in appends}`, slots written by
    // index, handed back with `zip`; a hook checked with `callable`. The dict comprehension
    // was not tracked and `callable` was an unknown (raising half the configurations): NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.bound_by_id.BoundMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.bound_by_id.BothScaledMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())], "{}", out.stdout);
}

#[test]
fn checks_over_known_names_and_option_sets_are_decided() {
    // `[n for n in FACTS if not hasattr(impl, n)]` over a tuple of names, and
    // `options.keys() - ACCEPTED[kind]`: each check raised in some configurations before.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.required_facts.CheckedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_generator_lists_its_items() {
    // `tuple(fallback_first())[0]` where the generator yields "reference" first: the fused
    // epilogue that scales again never runs. Not followed, the first backend was an unknown
    // value and a TWICE row appeared.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.listed_backends.FallbackFirstMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // Listed fused-first, the fused backend is taken wherever its kernel is available.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.listed_backends.FusedFirstMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not fused_kernel_available()".into()),
            ("TWICE".into(), 2, "fused_kernel_available()".into())
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn lists_a_helper_fills_from_the_objects_it_is_handed_have_their_length() {
    // `declarations, bindings = _items(stages)` then `[None] * len(append.declarations)`: the
    // helper never names the factor, and was skipped; a list filled by `append` had no known
    // length. Both unknown, every plan was unknown.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stage_items.StagedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stage_items.BothStagedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())], "{}", out.stdout);
}

#[test]
fn a_list_appended_to_in_a_loop_over_unknown_items_has_no_known_length() {
    // One abstract iteration appends one item standing for many: `len` of that list is not 1.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stage_items.CountedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let rows = rows(&out);
    assert_eq!(rows.len(), 2, "{}", out.stdout);
    assert!(rows.iter().any(|r| r.0 == "ONCE" && r.2.contains("len(")), "{}", out.stdout);
}

#[test]
fn a_bare_raise_in_a_handler_is_reported_where_the_caught_error_was_raised() {
    // `except Exception as error: _note_origin(error, origin); raise`: the configurations
    // that raise are those of the failing check, and the report names the check.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.reraised.CheckedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    let lines: Vec<i64> = raises.iter().filter_map(|r| r["location"]["line"].as_i64()).collect();
    assert!(lines.contains(&15), "{}", out.stdout);
    assert!(!lines.contains(&24), "{}", out.stdout);
}

#[test]
fn a_handler_that_raises_the_error_again_leaves_the_call_replayable() {
    // `except Exception as error: note(error, origin); raise` around the checks of a factor
    // read once per stage, eight times with the same arguments: the error goes on as if
    // nothing caught it, and the later calls replay the first. Caught and raised again, each
    // call was evaluated anew (and every condition after it carried the checks' raises): the
    // budget below was spent before the factor was read.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.reraised.RecheckedMoE", "--max-steps", "100"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json().get("bounds").is_none_or(|b| b.as_array().is_some_and(|b| b.is_empty())), "{}", out.stdout);
    // Both checks still end their configurations, where they raise.
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    let lines: Vec<i64> = raises.iter().filter_map(|r| r["location"]["line"].as_i64()).collect();
    assert_eq!(lines, [40, 42], "{}", out.stdout);
}

#[test]
fn vllms_softplus_sqrt_top_k_kernel_scales_the_weights_it_writes() {
    // `torch.ops._moe_C.topk_softplus_sqrt(topk_weights, ..., routed_scaling_factor, ...)`
    // (vLLM's DeepSeek V4 routing) writes the weights into its first argument, scaled. Into a
    // buffer the caller was handed, that was seen only with the model: without it, NEVER.
    for entry in ["gate.softplus_kernel.SoftplusSqrtMoE", "gate.softplus_kernel.HandedBufferMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
        let site = &out.json()["rows"][0]["parts"][0]["sites"][0];
        assert_eq!(site["kind"], "delegated", "{}", out.stdout);
        assert!(site["note"].as_str().unwrap().starts_with("applied by the kernel (vLLM topk_softplus_sqrt"), "{site}");
    }
}

#[test]
fn a_dataclass_equals_its_copy() {
    // `if incoming.consumer != declaration: raise` with the connection made for the
    // declaration and the stage bound to its `replace(...)` copy: equal fields, no raise.
    // Compared by identity, every configuration raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.CopiedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    // A declaration of another kind is another stage: its check raises everywhere.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.MismatchedMoE"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    assert_eq!(out.json()["raises"][0]["location"]["line"], 26, "{}", out.stdout);
}

#[test]
fn a_chain_built_item_by_item_from_nested_known_sequences_is_known() {
    // `[(a, i) for a in appends for i in range(len(a.scales))]`, a chain appended to from it,
    // connections made along it in a helper that starts from a one-item list: each stage's
    // check finds the connection made for it. As one abstract stage, the check raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.ChainedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn views_of_dict_keys_compare_as_sets() {
    // `incoming.entries.keys() != outgoing.exits.keys()` over dicts built per variant, in two
    // orders: equal, no raise. Compared as objects, every configuration raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.VariantMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    // Exits for one variant only: the check raises everywhere.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.MissingVariantMoE"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    let line = out.json()["raises"][0]["location"]["line"].as_i64();
    assert_eq!(line, Some(114), "{}", out.stdout);
}

#[test]
fn read_only_views_of_copied_dicts_are_the_dicts() {
    // A frozen dataclass keeping `MappingProxyType(dict(entries))`, over variants a generator
    // lists per configuration: the variant check passes. The view was an outside object.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declaration_copy.ProxiedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_msgspec_struct_is_a_record() {
    // Fields from its annotations with their defaults, copied by `msgspec.structs.replace`,
    // equal to its copy: the stage's checks pass. As an outside class, they raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.struct_record.StructMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_loop_over_the_positions_of_a_known_list_is_unrolled() {
    // `for position in range(len(chained))` binding `chained[position]` with
    // `connections[position]`; enum members pass `isinstance(kind, Kind)`; option dicts are
    // compared by their entries. As one abstract position, every configuration raised.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.positions.PositionedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn objects_of_a_class_with_its_own_eq_are_not_compared_by_identity() {
    // `Layout(...) != Layout(...)` with a custom `__eq__`: not known, so the raise covers part
    // of the configurations, not all of them.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.positions.LayoutMoE"]);
    assert_eq!(verdict, "ONCE", "{}", out.stdout);
    let share = out.json()["raises"][0]["share"].as_f64().unwrap_or_default();
    assert!(share > 0.0 && share < 1.0, "{}", out.stdout);
}

#[test]
fn isinstance_of_an_outside_object_is_decided_for_its_own_class_and_named_as_written() {
    // `nn.Linear(...)` is an `nn.Linear`: ONCE. Whether it is an `nn.Module` is not known
    // (its bases are outside): the rows name the test as written, not wrapped in itself.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.isinstance_label.LinearMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.isinstance_label.LabelMoE"]);
    let rows = rows(&out);
    assert!(rows.iter().any(|r| r.2 == "isinstance(self.experts, nn.Module)"), "{}", out.stdout);
}

#[test]
fn a_filtered_dict_comprehension_has_the_entries_that_pass() {
    // `{kind: factor for kind in KINDS if kind in SCALED}`: untracked, it gave a false NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filtered_table.FilteredMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    // The shared kind listed too: the shared part is scaled twice, the routed part once.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filtered_table.BothFilteredMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
}

#[test]
fn a_list_copied_with_list_is_a_new_list() {
    // `backends = list(DEFAULT_BACKENDS); backends.append("fused")`: the module's defaults do
    // not gain the fused backend. Aliased, the fused epilogue ran too: a false TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copied_list.CopiedListMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_try_with_only_finally_leaves_the_enclosing_handler_in_place() {
    // The inner `try ... finally` popped the outer `try`'s handlers: the `ValueError` it
    // catches escaped and half the configurations raised, instead of dropping the scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.nested_try.NestedTryMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 2, "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_nested_helper_sees_its_own_name_and_locals_bound_after_it() {
    // `bind(position + 1)` inside `bind`, and `scale` bound after the `def`: the shared plan
    // was the `None` the stage list started with (a false NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.recursive_helper.RecursiveBindMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_returned_closure_reads_the_locals_its_function_left() {
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.late_closure.LateClosureMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_call_replayed_under_another_condition_reads_fields_again() {
    // The same helper reads a field set only under `config.fold`: replayed from the call made
    // under `config.fold`, the other configuration read the factor too (a false ONCE).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.replayed_under_base.ReplayedUnderBaseMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fold".into()), ("TWICE".into(), 2, "not config.fold".into())],
        "{}",
        out.stdout
    );
}

#[test]
fn a_lookup_in_a_table_of_objects_is_evaluated() {
    // `self.plan.path_for(batch).entry(out)`: the lookup helper was skipped, and the entry
    // function with it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.table_lookup.TableLookupMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_single_pipeline_rank_has_no_neighbour() {
    // `partition(num_layers, 0, 1)`, `range(end, num_layers)` and `handed_off(None)`: known
    // numbers decide them; named, a neighbour seemed possible and its rows did not scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_partition.SingleRankMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_constant_key_missing_from_a_known_dict_raises() {
    // `TABLE[Variant.SCATTERED]` on a table without it: `KeyError`, turned into
    // `NotImplementedError`. Read as an unknown value, it made a false NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.missing_key.MissingKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    assert!(raises.iter().any(|r| r["location"]["line"] == 26), "{}", out.stdout);
}

#[test]
fn an_attribute_nothing_sets_raises() {
    // `moe.topk.topk_config` on a hash top-k that never sets it: `AttributeError`, so the
    // vision path does not run on hash layers. Read as an unknown value, its flag was free
    // and made false TWICE and NEVER rows.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.never_set_attribute.VisionMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    assert!(raises.iter().any(|r| r["location"]["line"] == 47), "{}", out.stdout);
    // A flag set from outside its class (`layer.flag = ...`) may be there: not a raise.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.never_set_attribute.PatchedMoE"]);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    assert!(raises.is_empty(), "{}", out.stdout);
}

#[test]
fn a_block_is_answered_on_its_own_when_a_bound_stops_the_entry() {
    // The whole budget: the entry answers, and the MoE block inside it is its answer. The
    // layer's raise leaves its configurations out.
    let expected = [
        ("ONCE".to_string(), "config.fold_in_topk and config.use_kernel".to_string()),
        ("ONCE".into(), "not config.fold_in_topk and not config.use_kernel".into()),
        ("TWICE".into(), "config.fold_in_topk and not config.use_kernel".into()),
        ("NEVER".into(), "not config.fold_in_topk and config.use_kernel".into()),
    ];
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.alone_block.AloneModel"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(only_block(&out), ("gate.alone_block.AloneMoE".into(), expected.to_vec()));
    let json = out.json();
    assert!(json.get("stopped").is_none() && json["blocks"][0].get("alone").is_none(), "{}", out.stdout);
    assert_eq!(json["blocks"][0]["raises"][0]["location"]["line"], 48, "{}", out.stdout);
    // A budget too small for the layer's plumbing: the entry stops, and the block is built as
    // the entry builds it and answered on its own, with the same rows. The rest of the
    // model's raises are not its own.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.alone_block.AloneModel", "--max-steps", "400", "--max-cases", "0"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    assert_eq!(only_block(&out), ("gate.alone_block.AloneMoE".into(), expected.to_vec()));
    let json = out.json();
    assert_eq!((&json["stopped"], &json["blocks"][0]["alone"]), (&true.into(), &true.into()), "{}", out.stdout);
    assert!(json["blocks"][0].get("raises").is_none(), "{}", out.stdout);
    // A budget too small to build the model: building it again would stop there too, so no
    // block is answered on its own.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.alone_block.AloneModel", "--max-steps", "20", "--max-cases", "0"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert!(out.json().get("blocks").is_none(), "{}", out.stdout);
    // Its one row says why it holds nothing: the method never ran (it said the output held
    // no data the evaluation could follow).
    assert_eq!(
        out.json()["rows"][0]["reason"],
        "a bound stopped the evaluation before the output was computed (see the bounds hit)",
        "{}",
        out.stdout
    );
    // An entry that is a block itself (it keeps the factor and uses it) and stops: the top-k
    // inside it answers another question, and is not answered in its place.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.alone_block.AloneMoE", "--max-steps", "60", "--max-cases", "0"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert!(out.json().get("blocks").is_none(), "{}", out.stdout);
    // A block that stops on its own stays UNKNOWN: the top-k inside it, which holds the factor
    // too, does not answer for it.
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.alone_block.DeepAloneModel", "--max-steps", "400", "--max-cases", "0"],
    );
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(only_block(&out).0, "gate.alone_block.PlumbingMoE");
    // A module holding the factor whose `forward` only raises (its holder calls another
    // method): the holder is answered in its place, not a block where every configuration
    // raises.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.alone_block.RunnerModel", "--max-steps", "400"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(only_block(&out), ("gate.alone_block.Runner".into(), vec![("TWICE".into(), "always".into())]));
    // What the entry's own constructor requires (`assert config.use_kernel`) holds for the
    // block answered on its own: its TWICE row, without the kernel, is no configuration of the
    // model, and the assertion is listed where configurations raise.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.alone_block.CheckedModel", "--max-steps", "400"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        only_block(&out),
        (
            "gate.alone_block.AloneMoE".into(),
            vec![("ONCE".into(), "config.fold_in_topk".into()), ("NEVER".into(), "not config.fold_in_topk".into())]
        )
    );
    assert_eq!(out.json()["blocks"][0]["raises"][0]["location"]["line"], 154, "{}", out.stdout);
    // Said in the text output.
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.alone_block.AloneModel", "--max-steps", "400"],
    );
    assert!(
        text.stdout.contains("each block was answered on its\n   own, built as the entry builds it"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_kernel_launch_weights_its_output_only_by_the_inputs_its_flags_read() {
    // Two launches of one device kernel: `MUL_W=False` then `MUL_W=True`. The wrapper launching
    // it is evaluated (it is handed scaled weights), and each launch multiplies in only what
    // its live code loads into the values it stores (not the weights the flag turns off, not
    // the row indices). Multiplying everything made the two shared slots' 1/factor meet: a
    // false MIXED row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_flags.KernelFlagsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{}", out.stdout);
}

#[test]
fn a_collective_on_a_communicator_chosen_at_run_time_keeps_the_scale() {
    // `group.all_gather_into_tensor(out, x)` and `group.reduce_scatter_tensor(out, y)` on a
    // group looked up at run time: they combine the ranks' shares, keeping the scale. Data
    // through them was of unknown scale (every row UNKNOWN); now an assumption, listed.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unknown_collective.ShardedSharedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unresolved: Vec<String> =
        out.json()["unresolved"].as_array().unwrap().iter().map(|u| u["what"].as_str().unwrap().to_string()).collect();
    assert_eq!(unresolved.len(), 2, "{unresolved:?}");
    assert!(unresolved.iter().all(|u| u.contains("assumed a collective")), "{unresolved:?}");
}

#[test]
fn a_list_of_data_handed_back_does_not_make_a_helper_worth_evaluating() {
    // The attention returns its input as it is when empty, and the input is `[hidden_states]`
    // in one configuration. A list of tensors is data, not an object the call may leave state
    // on: the attention is skipped like any helper that never names the value. Evaluated, its
    // backend looked up at run time made every row UNKNOWN.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.list_given_back.SplitLayerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["unresolved"].as_array().unwrap().is_empty(), "{}", out.stdout);
}

#[test]
fn a_list_gathered_in_one_collective_keeps_each_tensor_at_its_own_scale() {
    // `weights, ids, x = group.all_gatherv([weights, ids, x])` on a group class of the tree
    // that is not evaluated: gathered tensor by tensor. As one piece of data, the tokens took
    // both shared slots' 1/factor into the experts and the weighting multiplied them (MIXED).
    for entry in ["gate.gathered_list.OwnGroupMoE", "gate.gathered_list.GatheredListMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        let rows = out.json()["rows"].as_array().unwrap().clone();
        assert_eq!(rows.len(), 1, "{}", out.stdout);
    }
}

#[test]
fn an_attribute_of_none_raises() {
    // `self.shared_experts.add_scaled(...)` with the shared experts `None`: AttributeError,
    // so those configurations are left out (and listed) instead of making an UNKNOWN row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.none_attribute.OptionalSharedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.stdout.contains("self.shared_experts.add_scaled"), "{}", out.stdout);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    assert_eq!(raises.len(), 1, "{}", out.json());
    // Called where it is `None`: TypeError, listed.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.none_attribute.SharedAddMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].as_array().cloned().unwrap_or_default();
    assert!(raises.iter().any(|r| r["source"] == "self.shared_experts(hidden_states)"), "{}", out.json());
    // A runner only ever `None` here, attached by code not run: not a raise in every
    // configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.none_attribute.AttachedRunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_normalization_layer_gives_data_of_no_scale() {
    // `RMSNorm(v * x) == RMSNorm(x)`: scaling before a norm has no effect on what it gives
    // (NEVER), while the residual a fused add-and-norm carries on keeps the scale, and so does
    // the norm of a sum of differently scaled parts (ONCE).
    for (entry, expected) in [
        ("gate.normalized.ScaleThenNormMoE", (1, "NEVER")),
        ("gate.normalized.LayerNormMoE", (1, "NEVER")),
        ("gate.normalized.FusedAddNormMoE", (0, "ONCE")),
        ("gate.normalized.SharedThenNormMoE", (0, "ONCE")),
    ] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), expected, "{entry}: {}", out.stdout);
    }
    // The NEVER row says where the scale went.
    let (_, _, out) = trace("trace/router", &["--entry", "gate.normalized.ScaleThenNormMoE"]);
    let at = &out.json()["rows"][0]["normalized_at"][0]["location"];
    assert_eq!((at["path"].as_str(), at["line"].as_u64()), (Some("gate/normalized.py"), Some(49)), "{}", out.stdout);
}

#[test]
fn data_handed_in_a_dict_splat_is_data_handed_over() {
    // `self.self_attn(**attn_kwargs)` not evaluated gives data, which `*=` then scales: one
    // application site. Named by the call, the result was taken for a number derived from the
    // factor, and the output was the factor itself, with no site.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.splatted_kwargs.SplattedAttentionLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let rows = out.json()["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 1, "{}", out.stdout);
    let sites = rows[0]["parts"][0]["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 1, "{}", out.stdout);
    assert_eq!(sites[0]["code"], "hidden_states *= self.routed_scaling_factor", "{}", out.stdout);
}

#[test]
fn an_output_that_is_a_number_derived_from_the_factor_is_no_application() {
    // `out = get_buffers().output; out *= v; return out`: an unknown value times the factor is
    // a number derived from it, not data scaled at a site. UNKNOWN, saying why (it read ONCE
    // with no application site).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.derived_number.BufferedOutputMoE"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    assert_ne!(code, 0);
    let reason = out.json()["rows"][0]["reason"].as_str().unwrap_or_default().to_string();
    assert!(reason.contains("a number derived from routed_scaling_factor"), "{}", out.stdout);
}

/// The raises the JSON lists, by their source line.
fn raises(out: &crate::Run) -> Vec<String> {
    let json = out.json();
    let Some(raises) = json["raises"].as_array() else { return Vec::new() };
    raises.iter().map(|r| r["source"].as_str().unwrap_or_default().to_string()).collect()
}

#[test]
fn sizes_checked_against_the_ones_the_weights_were_made_with_hold() {
    // `torch.zeros(n, 2 * i, h // 2)` in `create_weights`, then `assert w13.dim() == 3 and
    // w13.shape[1] == intermediate_size * 2 and ...` once loaded (and `w2.ndim`, `w2.size(-1)`,
    // and `w2.shape == (...)`, a tuple compared item by item).
    // Named by where they were computed, `2 * i` and `i * 2` were two numbers and the checks
    // open questions: 87.5 % of the configurations were said to raise there.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shape_asserts.PackedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(raises(&out), Vec::<String>::new());
    assert_eq!(out.json()["atoms"].as_array().unwrap().len(), 0, "{}", out.stdout);
}

#[test]
fn the_default_dtype_is_a_setting_not_data() {
    // `torch.get_default_dtype()` handed to a helper beside the sizes: taken for data, the
    // sizes came back as tensors, and the weights' check against them was an open question;
    // taken for a value that may be `None`, so was `assert params_dtype is not None`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.default_dtype.RoundedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(raises(&out), Vec::<String>::new());
}

#[test]
fn the_loader_hook_reads_what_the_skipped_constructor_set() {
    // The method's constructor (never mentioning the factor) picks the backend; the loader's
    // hook builds the kernel for it. Run on the unbuilt object, the hook read the backend as
    // an unknown field, `BackendMethod.backend`, instead of the configuration that picks it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.loaded_method.LoadedBackendMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (config.moe.backend == \"fused\")".into()),
            ("NEVER".into(), 0, "config.moe.backend == \"fused\"".into())
        ]
    );
}

#[test]
fn a_check_asked_of_each_class_in_turn_is_one_question_per_class() {
    // `k_cls.is_supported_config(k_cls, config)` for two kernel classes, not evaluated: keyed
    // by where it is asked, both classes had one answer, and the second class (asked only
    // where the first said no) never ran. It is the one that applies the factor.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_argument.ClassArgumentMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (MonolithicKernel.is_supported_config(MonolithicKernel, config)[0])".into()),
            ("NEVER".into(), 0, "MonolithicKernel.is_supported_config(MonolithicKernel, config)[0]".into())
        ]
    );
}

#[test]
fn int_enum_members_written_as_tuples_are_their_numbers() {
    // `Renormalize = (1,)` in an `IntEnum` is the member 1: the layer's routing method is
    // known, the kernel that drops the factor does not support it, and never runs.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.enum_tuple_values.EnumTupleMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_weights_attributes_are_one_question_each() {
    // `hasattr(weight, key)` in one helper, asked for "fused" and for "unfused": keyed by the
    // text, both were one atom and the trace read ONCE everywhere.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tensor_attrs.FlaggedWeightMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let rows = rows(&out);
    assert!(
        rows.contains(&("TWICE".into(), 2, "hasattr(weight, \"fused\") and not (hasattr(weight, \"unfused\"))".into())),
        "{rows:?}"
    );
    assert!(
        rows.contains(&("NEVER".into(), 0, "not (hasattr(weight, \"fused\")) and hasattr(weight, \"unfused\")".into())),
        "{rows:?}"
    );
}

#[test]
fn none_scaled_by_the_factor_raises() {
    // A helper falls off its end where the experts are disabled; `out *= factor` on its
    // `None` raises `TypeError`. It read UNKNOWN there: the output a number, the factor itself.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.none_scaled.NoneScaledMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(raises(&out), ["out *= self.routed_scaling_factor"]);
}

#[test]
fn predicates_over_list_literals_are_equalities_on_their_value() {
    // `return backend in ["fused", "fused_v2"]` and `return backend in ["plain"]`: evaluated,
    // they exclude each other. Named by their calls, they were two free facts and the trace
    // read TWICE where both held.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.list_predicate.ListPredicateMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let verdicts: Vec<String> = rows(&out).into_iter().map(|r| r.0).collect();
    assert!(!verdicts.contains(&"TWICE".to_string()), "{verdicts:?}");
    // One atom per value of the backend the predicates name.
    assert_eq!(out.json()["atoms"].as_array().unwrap().len(), 3, "{}", out.stdout);
}

#[test]
fn the_items_of_two_tuples_compared_are_questions_of_their_own() {
    // `(self.kind, self.layout) == (FUSED_KIND, PACKED_LAYOUT)` of objects with their own
    // `==`: each item's test is an atom, named by its position. Named by the pair's text, the
    // two were one atom.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tuple_items.TupleItemsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let atoms: Vec<String> =
        out.json()["atoms"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        atoms,
        [
            "(self.kind, self.layout)[0] == (FUSED_KIND, PACKED_LAYOUT)[0]",
            "(self.kind, self.layout)[1] == (FUSED_KIND, PACKED_LAYOUT)[1]"
        ]
    );
}

#[test]
fn a_platform_fixes_pytorchs_device_predicates() {
    // `torch.cuda.is_available()` holds on CUDA (and ROCm, whose PyTorch answers for HIP
    // under that name); `torch.xpu.is_available()` only on XPU. Unfixed, the CPU-only path
    // of a CUDA deployment was a NEVER row.
    let entry = ["--entry", "gate.device_available.DeviceAvailableMoE"];
    let (code, verdict, out) = trace("trace/router", &entry);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    for platform in ["cuda", "rocm", "xpu"] {
        let (code, verdict, out) = trace("trace/router", &[&entry[..], &["--platform", platform]].concat());
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{platform}: {}", out.stdout);
        let json = out.json();
        let names: Vec<&str> =
            json["assumptions"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
        assert!(names.iter().any(|n| n.ends_with(".is_available()")), "{platform}: {names:?}");
    }
    let (code, verdict, out) = trace("trace/router", &[&entry[..], &["--platform", "cpu"]].concat());
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 1, "{}", out.stdout);
}

#[test]
fn a_method_is_no_instance_of_a_class_of_the_tree() {
    // A list of operations with separators between them: `isinstance(op, Separator)` of a
    // bound method is false. It was an atom, and its "true" a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.separated_ops.SeparatedOpsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["atoms"], serde_json::json!([]), "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.separated_ops.SeparatedOpsTwiceMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
}

#[test]
fn a_generator_yielding_in_a_loop_over_a_known_list_is_followed() {
    // The stages of a layer's operations, split by a generator that yields inside its loop
    // over them: ONCE, and TWICE where the factor is applied in two stages.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chunked_ops.ChunkedOpsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.chunked_ops.ChunkedOpsTwiceMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    // A `yield` in a `while` loop, whose iterations are not told apart, is still not followed,
    // and the output says so.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.chunked_ops.WhileYieldMoE"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    assert!(out.stdout.contains("is a generator: not followed"), "{}", out.stdout);
}

#[test]
fn the_modules_a_stage_method_calls_are_part_of_its_module() {
    // A decoder layer runs its MoE's stage methods (`op_experts`, `op_output`), not its
    // `forward`: the experts they call keep the factor but are no block of their own (whose
    // NEVER would be the answer); the layer's output is, scaled once by the output stage.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chunked_ops.StagedDecoderLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["blocks"], serde_json::json!(null), "{}", out.stdout);
}

#[test]
fn an_assignment_runs_the_classs_own_setattr() {
    // `state.x = v` on an object whose class defines `__setattr__` (storing into a dict, the
    // dict's own field set through `super().__setattr__`), then `state.pop("x")` or `state.x`
    // through `__getattr__`: the value comes back.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.state_setattr.StateDictMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.state_setattr.StateDictTwiceMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
}

#[test]
fn the_class_of_self_is_the_objects_class() {
    // `copy.copy(self.__class__._keep_in_fp32_modules)` is the class attribute: `None` here, so
    // the check under it never raises; where a subclass names a module it lacks, it always does.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_of_self.PostInitMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
    let (_, _, out) = trace("trace/router", &["--entry", "gate.class_of_self.KeepsMissingModuleMoE"]);
    let raises = out.json()["raises"].clone();
    assert_eq!(raises.as_array().map(Vec::len), Some(1), "{}", out.stdout);
    assert_eq!(raises[0]["share"], 1.0, "{}", out.stdout);
}

#[test]
fn a_list_of_items_under_conditions_is_unrolled_as_the_sequences_it_stands_for() {
    // Eleven operations of a sparse layer and two of a dense one, gathered into one stage by
    // a generator: each sequence runs in order, and the factor is applied once in both.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.chunked_ops.LongChunkedOpsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 1, "{}", out.stdout);
}

#[test]
fn a_range_of_unknown_length_may_be_empty() {
    // A layer list padded for pipeline stages: the placeholders before and after this rank's
    // layers are there only on some ranks, so the check that every layer is a decoder layer
    // raises there and not everywhere. No row splits on the ranges.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_padding.PaddedModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].clone();
    assert_eq!(raises.as_array().map(Vec::len), Some(1), "{}", out.stdout);
    let share = raises[0]["share"].as_f64().unwrap();
    assert!(share > 0.0 && share < 1.0, "{}", out.stdout);
    assert_eq!(rows(&out).len(), 1, "{}", out.stdout);
    // Skipping the placeholders, nothing raises.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_padding.SkippingModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn islice_of_a_list_is_some_of_its_items() {
    // `for layer in islice(self.layers, start, end)` runs the rank's layers, as a slice does.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_padding.IslicedModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 1, "{}", out.stdout);
}

#[test]
fn a_loop_over_layers_built_per_index_tells_their_kinds_apart() {
    // The layers are built one per index, each a MoE layer or a dense one by tests of its
    // index (parsed back from its name, `f"model.layers.{idx}"`; `layer_idx % freq == 0`
    // computed from it). A loop over them that keeps
    // the last MoE layer finds one wherever some layer is one: the test is per-iteration there
    // too. It was a configuration, and "no MoE layer found" raised in half of them.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_padding.ExampleMoEModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn which_element_an_iteration_sees_is_no_configuration() {
    // A loop over modules that are a list or an unknown sequence: which module an iteration
    // sees, and `isinstance` of an unknown one, differ between iterations. The MoE module kept
    // is found wherever some module is one; read as configurations, "no MoE module" raised in
    // a third of them, and the call of what was kept in a quarter.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pipeline_padding.FoundMoEModel"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // (An unknown module that is a `ScaledMoE` is not `None`: `if isinstance(module, C)`
    // makes it an object of `C` where it holds.)
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn an_implementation_the_call_cannot_bind_is_a_type_error_not_a_configuration() {
    // `quant_method.apply(layer=self, dispatch_output=x)` on a method known by its base class:
    // a linear method's `apply(self, layer, x, bias=None)` cannot take those keywords. Python
    // raises there; enumerated as an implementation, it was a row of unknown scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.call_shapes.KeywordCalledMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["rows"].as_array().unwrap().len(), 2, "{}", out.stdout);
    let raises = json["raises"].as_array().unwrap();
    assert!(raises.iter().any(|r| r["location"]["line"] == 47), "{}", out.stdout);
}

#[test]
fn past_the_enumeration_bound_the_subclasses_nearest_the_base_are_kept() {
    // 62 subclasses of a quantization config, 60 of them in another package that comes first
    // in file order. The one of the base's own package that scales twice must be enumerated.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.quant.base.FarEnumeratedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let json = out.json();
    let twice = json["rows"].as_array().unwrap().iter().find(|r| r["exponent"] == 2).expect("a TWICE row");
    assert_eq!(twice["conditions"][0][0]["atom"], "quant_config is DoubleScaledConfig", "{}", out.stdout);
    let bounds = json["bounds"].as_array().unwrap();
    assert!(bounds.iter().any(|b| b["what"].as_str().unwrap().contains("more than 48 subclasses")), "{}", out.stdout);
}

#[test]
fn blocks_answered_ahead_of_time_give_the_answer_one_thread_gives() {
    // With two threads the blocks are answered on their own while the entry runs; with one,
    // after it stops. Stopped or not, the output is the same.
    for budget in ["400", "4000000"] {
        let args = |threads: &'static str| {
            vec![
                "--threads",
                threads,
                "trace",
                "routed_scaling_factor",
                "--entry",
                "gate.alone_block.AloneModel",
                "--max-steps",
                budget,
            ]
        };
        let one = run(&fixture("trace/router"), &args("1"));
        let two = run(&fixture("trace/router"), &args("2"));
        assert_eq!((one.code, &one.stdout), (two.code, &two.stdout), "budget {budget}");
        assert!(one.stdout.contains("AloneMoE"), "{}", one.stdout);
    }
}

#[test]
fn a_decorated_implementation_is_not_judged_by_the_parameters_it_is_written_with() {
    // `@takes_dispatch_output` gives `apply(self, layer, x)` another signature: the call with
    // `dispatch_output=` may bind, so that class is a configuration (here of unknown scale: the
    // wrapper is not followed), not a `TypeError` that hid it.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.call_shapes_decorated.DecoratedMethodMoE"]);
    assert_ne!(verdict, "ONCE", "{}", out.stdout);
    let json = out.json();
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["conditions"][0][0]["atom"] == "method is AdaptedMethod"), "{}", out.stdout);
    let raises = json["raises"].as_array().cloned().unwrap_or_default();
    assert!(!raises.iter().any(|r| r["location"]["line"] == 41), "{}", out.stdout);
}

#[test]
fn a_chosen_object_whose_method_cannot_take_the_call_raises_there() {
    // `self.quant_method` is a MoE method or a linear one by a flag; `apply(layer=...,
    // dispatch_output=...)` binds only the MoE method's. Where it is the linear one, Python
    // raises `TypeError`: a raise, not a row of unknown scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.call_shapes.ChosenMethodMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    assert!(json["raises"].as_array().unwrap().iter().any(|r| r["location"]["line"] == 68), "{}", out.stdout);
}

#[test]
fn a_kernel_from_a_table_that_cannot_take_the_call_is_no_configuration() {
    // `KERNELS[self.kind](x, factor)`: the "biased" kernel needs a third argument, so with that
    // key Python raises `TypeError`. Evaluated with `bias` unknown, it read TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.table_call_shapes.TableKeyedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    let raises = json["raises"].as_array().unwrap();
    assert!(
        raises.iter().any(|r| r["source"].as_str().unwrap().ends_with("(hidden_states, self.routed_scaling_factor)")),
        "{}",
        out.stdout
    );
}

#[test]
fn an_enum_parsed_from_a_known_string_is_that_member() {
    // `Act.from_str(activation)` with the default `"silu"`: a class method looking the string
    // up among the enum's members. Named by the call, its member was free, and the GELU kernel
    // that scales inside made a TWICE row that no configuration has.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.parsed_member.ParsedActivationMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["rows"].as_array().unwrap().len(), 1, "{}", out.stdout);
    // Parsed from an alias of GELU, it is GELU: twice in every configuration.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.parsed_member.GeluParsedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(out.json()["rows"].as_array().unwrap().len(), 1, "{}", out.stdout);
}

#[test]
fn a_property_returning_a_classifiers_answer_keeps_its_keys() {
    // `router.routing_type` returns `routing_type_of(...)`, whose every return is an enum
    // member. Its five answers were one free symbol "what the property returned", unrelated to
    // the scoring function, bias and renormalization it decides on: a TWICE and a NEVER row that
    // no configuration has.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.forwarded_classifier.ForwardedClassifierMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // Compensating on a condition that forgets `renormalize`: twice exactly there.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.forwarded_classifier.ForgottenRenormMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let json = out.json();
    let twice: Vec<_> = json["rows"].as_array().unwrap().iter().filter(|r| r["exponent"] == 2).collect();
    assert_eq!(twice.len(), 1, "{}", out.stdout);
    let atoms: Vec<String> = twice[0]["conditions"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}={}", l["atom"].as_str().unwrap(), l["value"]))
        .collect();
    assert!(atoms.iter().any(|a| a == "config.renormalize=true"), "{atoms:?}");
    assert!(!atoms.iter().any(|a| a.contains("routing_type")), "{atoms:?}");
}

#[test]
fn membership_among_outside_names_reads_as_membership() {
    // `dtype in [torch.bfloat16, torch.float32]` is one atom; it read `dtype == [torch.bfloat16,
    // torch.float32]`, an equality with a list that no configuration can satisfy as written.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dtype_membership.DtypeMembershipMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let json = out.json();
    let twice = json["rows"].as_array().unwrap().iter().find(|r| r["exponent"] == 2).expect("a TWICE row");
    let atoms: Vec<&str> =
        twice["conditions"][0].as_array().unwrap().iter().map(|l| l["atom"].as_str().unwrap()).collect();
    assert!(atoms.contains(&"config.router_logits_dtype in [torch.bfloat16, torch.float32]"), "{atoms:?}");
    assert!(!out.stdout.contains("== [torch."), "{}", out.stdout);
}

#[test]
fn a_kernel_handed_a_dict_of_keywords_is_handed_its_entries() {
    // `kernel(**kwargs)` with `kwargs = dict(..., routed_scaling_factor=...)`: the kernel is
    // handed the factor, and its model applies it. The dict was not opened for a callee outside
    // the tree: its result was no data at all (UNKNOWN), and in vLLM 0.24's FP8 experts a NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_kwargs.KwargsKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.stdout.contains("delegated"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_kwargs.KwargsKernelScaledAgainMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(out.json()["rows"].as_array().unwrap().len(), 1, "{}", out.stdout);
    // `dict(**routed_kwargs, do_finalize=False)` holds the entries of `routed_kwargs`: built
    // without them, the kernel was handed no factor, a false NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.kernel_kwargs.DeferredKwargsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn rows_of_an_evaluation_a_bound_stopped_are_said_to_be_provisional() {
    // The fast path's row is found before the step budget runs out in the slow path's tail:
    // the row is shown, and said to be provisional up front (its "when" may be wider than the
    // configurations that reach it), in the text and in the JSON.
    let args = [
        "trace",
        "routed_scaling_factor",
        "--max-steps",
        "30",
        "--max-cases",
        "0",
        "--entry",
        "gate.stopped_early.EarlyAnsweredMoE",
    ];
    let out = run(&fixture("trace/router"), &args);
    assert!(out.stdout.contains("every row is provisional"), "{}", out.stdout);
    let json = run(&fixture("trace/router"), &[&args[..], &["--format", "json"]].concat()).json();
    assert_eq!(json["provisional"], true, "{json}");
    assert!(json["rows"].as_array().unwrap().iter().any(|r| r["verdict"] == "ONCE"), "{json}");
    // With the budget it needs: ONCE, and nothing provisional.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.stopped_early.EarlyAnsweredMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("provisional"), "{}", out.stdout);
    assert!(out.json().get("provisional").is_none(), "{}", out.stdout);
}

#[test]
fn pairs_past_the_alternatives_bound_are_kept_item_by_item() {
    // `backend, kernel_cls = select_backend(config, self)`: one of 26 `(backend, class)` pairs,
    // more than the alternatives kept. Cut, the last pairs were an unknown value and their
    // configurations UNKNOWN rows; merged item by item (13 backends, 2 classes), every pair is
    // known.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.backend_pairs.BackendPairsMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("more alternatives than kept"), "{}", out.stdout);
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.backend_pairs.AlwaysScaledPairsMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let rows = out.json()["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{}", out.stdout);
    assert!(rows.iter().all(|r| r["verdict"] != "UNKNOWN"), "{}", out.stdout);
}

#[test]
fn a_factory_that_may_return_none_is_evaluated() {
    // `get_quant_method` builds a linear method, an experts' method, or returns `None`: a
    // factory all the same. Named by the call instead, its result was any subclass of the
    // declared method class, and the linear method's made a false NEVER row.
    let (code, verdict, out) = trace(
        "trace/router",
        &[
            "--entry",
            "gate.quant_choice.QuantChoiceMoE",
            "--assume",
            "quant_config=gate.quant_choice.ExpertsOnlyConfig",
        ],
    );
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["rows"].as_array().unwrap().len(), 1, "{}", out.stdout);
}

#[test]
fn a_name_imported_under_a_guard_that_fails_raises_name_error() {
    // `if flex_available(): from gate.flex_helpers import flex_prepare`, then `flex_prepare(x)`
    // on the flex path: where the check fails, Python raises `NameError` there. Read as the
    // configurations where the name is bound, they were lost: an UNKNOWN row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.guarded_import.GuardedImportMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].as_array().unwrap().clone();
    assert!(raises.iter().any(|r| r["source"] == "flex_prepare" && r["exception"] == "NameError"), "{}", out.stdout);
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.guarded_import.GuardedImportMoE"],
    );
    assert!(text.stdout.contains("NameError: flex_prepare"), "{}", text.stdout);
}

#[test]
fn a_block_asked_about_itself_is_not_answered_again_as_its_own_block() {
    // The entry uses its router's weights and never names the factor: the router's caller,
    // the block, is the entry. Its answer was printed twice, once as "the block" and once as
    // "the entry's own output".
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.router_model.PlainRoutedBlock"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json().get("blocks").is_none_or(|b| b.as_array().is_some_and(|b| b.is_empty())), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".to_string(), 1, "always".to_string())]);
}

#[test]
fn a_setting_declared_for_type_checkers_is_read_as_declared_and_said_so() {
    // `if TYPE_CHECKING: SCALE_IN_KERNEL: bool = False` with no module `__getattr__` to
    // answer for it: read as declared, the default is taken for the setting, an assumption the
    // answer states where the declarations are.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.declared_settings_moe.DeclaredSettingMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unresolved = out.json()["unresolved"].as_array().unwrap().clone();
    assert!(
        unresolved.iter().any(|u| u["location"]["path"] == "gate/declared_settings.py"
            && u["what"].as_str().is_some_and(|w| w.contains("TYPE_CHECKING"))),
        "{}",
        out.stdout
    );
}

#[test]
fn the_alternatives_cut_are_the_most_specific() {
    // A layer's quantization method is `PlainMethod()` without a config, else one of 26 classes:
    // more alternatives than kept. The cut took the unquantized method (written first, listed
    // last) and the configuration without quantization read UNKNOWN; the cut now takes the
    // alternatives under conditions over more atoms (the last classes).
    let (_, verdict, out) =
        trace("trace/router", &["--entry", "gate.cut_methods.CutMethodsMoE", "--max-alternatives", "24"]);
    assert_eq!(verdict, "UNKNOWN", "{}", out.stdout);
    let rows = rows(&out);
    assert!(rows.contains(&("ONCE".to_string(), 1, "quant_config == None".to_string())), "{}", out.stdout);
    assert_eq!(rows.iter().filter(|r| r.0 == "UNKNOWN").count(), 1, "{}", out.stdout);
    assert!(rows.iter().all(|r| r.0 != "UNKNOWN" || r.2.starts_with("not (quant_config == None)")), "{}", out.stdout);
}

#[test]
fn a_dict_with_integer_keys_gives_back_integers() {
    // Supported bit widths as the integer keys of a table (`list(TYPES.keys())`), checked when
    // a quantization method is built and asserted again by its kernel (`num_bits in [4, 8]`):
    // the keys came back as the strings "4" and "8", no width passed both, and every
    // configuration raised (UNKNOWN). The kernel and the block both scale: TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.integer_keys.IntegerKeysMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn a_skipped_constructor_of_a_class_with_an_abstract_base_runs_when_its_field_is_read() {
    // A quantization method wrapping another, both deriving from `abc.ABC`: the wrapper's
    // constructor, skipped while the layer was built, did not run when `create_weights` read
    // `self.gpu_method` (an outside base was taken for an `nn.Module`'s), so the wrapped
    // method's weights were never registered and the loader's hook raised in every
    // configuration. The wrapped kernel scales and so does the block: TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.wrapped_method.WrappedMethodMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn an_output_lost_in_some_configurations_is_unknown_there() {
    // With the exchange, the stage's result comes back from an object the evaluation knows
    // nothing of, taken for a number: the state the pipeline leaves holds no data there. Those
    // configurations read NEVER beside the ones followed (a part of a record missing in some
    // configurations was taken for the record's unscaled parts); the multiply is there, the
    // data is not followed: UNKNOWN.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.lost_in_some.LostInSomeMoE", "--methods", "op_experts,op_output"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not use_exchange".into()), ("UNKNOWN".into(), 0, "use_exchange".into())]
    );
}

#[test]
fn a_pipeline_stage_reading_a_record_no_stage_wrote_raises() {
    // The dispatch stage writes its record only with expert parallelism, the experts' stage
    // reads it always. Read as an input of the pipeline (unscaled data), the configurations
    // where the top-k folds the factor read NEVER; Python raises there.
    let methods = "op_select_experts,op_dispatch,op_experts,op_output";
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.skipped_stage.SkippedStageMoE", "--methods", methods]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let raises = out.json()["raises"].to_string();
    assert!(raises.contains("gate/skipped_stage.py") && raises.contains("\"line\":29"), "{raises}");
}

#[test]
fn a_simple_namespace_holds_what_is_written_into_it() {
    // `types.SimpleNamespace(...)` made with some attributes and written later: the factor
    // stored into it was an attribute of an outside object, lost (NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.namespace_state.NamespaceStateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_communication_library_moves_each_tensor_with_its_own_scale() {
    // DeepEP's `dispatch` hands back the hidden states, ids and weights it was sent; its
    // kernel model says so. Read as one outside computation, every received tensor had the
    // weights' factor, and experts that forget the weights read ONCE.
    for (entry, code, verdict) in
        [("WeightedMoE", 0, "ONCE"), ("DroppedWeightsMoE", 1, "NEVER"), ("LowLatencyMoE", 0, "ONCE")]
    {
        let (got, got_verdict, out) = trace("trace/router", &["--entry", &format!("gate.ep_exchange.{entry}")]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        assert!(!out.stdout.contains("not resolved"), "{entry}: {}", out.stdout);
    }
}

#[test]
fn moris_dispatch_hands_back_what_it_was_sent_and_its_combine_does_not_weight() {
    // MoRI's dispatch/combine op (built lazily by a cached helper behind a property, as SGLang
    // 0.5.23's EPv2 dispatcher builds it) moves tensors as DeepEP's buffer does; its combine
    // sums the experts' outputs unweighted. Without its model the dispatch was one outside
    // computation, and experts that forget the weights read ONCE.
    for (entry, code, verdict) in [("WeightedMoE", 0, "ONCE"), ("DroppedWeightsMoE", 1, "NEVER")] {
        let (got, got_verdict, out) = trace("trace/router", &["--entry", &format!("gate.lazy_ep_op.{entry}")]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        assert!(!out.stdout.contains("not resolved"), "{entry}: {}", out.stdout);
    }
}

#[test]
fn unpacking_a_named_tuple_into_another_number_of_names_raises() {
    // The masked runner unpacks four fields; handed the normal output (three), Python raises
    // `ValueError`. That configuration cannot run: it was a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unpack_count.UnpackCountMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let raises = out.json()["raises"].to_string();
    assert!(raises.contains("gate/unpack_count.py") && raises.contains("\"line\":33"), "{raises}");
}

#[test]
fn a_class_attribute_written_by_a_method_is_read_back() {
    // `cls._buffer = Buffer(...)` in a class method that builds a process-wide object once:
    // read back as the class body's `None`, the buffer's results were lost (NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_cache.ClassCacheMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn data_starred_into_a_call_is_handed_over() {
    // `stage_b(*state)` with `state` the summary of a stage not evaluated (data, not a tuple of
    // known items): the second stage was handed nothing, and the weights' factor was lost.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.starred_state.StarredStateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_field_set_only_in_other_configurations_of_an_abstract_class_raises() {
    // A dispatcher with an abstract base builds each implementation only when its mode is
    // enabled and picks one by the mode resolved at run time. Where the picked one was never
    // built, Python raises `AttributeError`; read as an unknown value (the base is outside the
    // tree), the call through it made an UNKNOWN row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unset_impl.UnsetImplMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.resolved_mode == \"scaling\"".into()),
            ("NEVER".into(), 0, "not (config.resolved_mode == \"scaling\")".into())
        ]
    );
    let raises = out.json()["raises"].to_string();
    assert!(raises.contains("AttributeError"), "{raises}");
}

#[test]
fn labels_of_values_renamed_recursively_stay_short() {
    // `scheme_for(name.replace(name.split(".")[-1], shard))`, recursively: each renamed name's
    // label held its source's twice. Ten levels printed lines of megabytes (vLLM 0.34's Quark
    // config, fourteen and more, ran out of memory); labels past a bound are shortened.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.shard_names.ShardNamedMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let longest = out.stdout.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 10_000, "a line of {longest} bytes");
    assert!(out.stdout.contains("…") && out.stdout.contains(" #"), "{}", out.stdout);
}

#[test]
fn an_enum_members_property_read_through_a_config_is_run() {
    // `moe_config.is_act_and_mul` returns `self.activation.is_gated`, a property of the enum
    // member `Activation.SILU` (held as its value), which tests `self.value.endswith(...)`.
    // The read was an attribute of the string `"silu"`, compared with `False` a fresh atom
    // under which the non-gated path scaled again (TWICE). Run, and the string method
    // folded: SiLU is gated, ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.gated_activation.GatedExperts"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_residual_folded_in_by_a_nested_function_through_nonlocal_is_kept() {
    // `def _inner(): nonlocal hidden_states, residual; hidden_states += residual; ...` inside
    // a helper returning `context.check_shapes(_inner(), ...)`: both skipped, the pair was the
    // product of the inputs and the final norm read as taking the factor off (NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.nested_pair.NestedFoldLayer"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("normalized away"), "{}", out.stdout);
}

#[test]
fn a_routing_kernels_fused_shared_expert_slot_keeps_its_own_part() {
    // `moe_fused_gate(..., num_fused_shared_experts, routed_scaling_factor)` weights the fused
    // shared expert's slot by the routed sum / factor (a model's `shared_slot`); the block
    // multiplies by the factor after the experts. Modelled only as "applies when asked", the output held the routed
    // part alone, and the norm after it read as taking the factor off (NEVER where shared
    // experts are fused). The slot's part: ONCE in both configurations.
    let kernels = fixture("trace/router/shared_slot_kernels.toml");
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.fused_shared_slot.FusedSharedSlotMoE", "--kernels", kernels.to_str().unwrap()],
    );
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.stdout.contains("fused shared-expert slot, weighted by the factor to the power -1"), "{}", out.stdout);
    assert!(!out.stdout.contains("normalized away"), "{}", out.stdout);
    // The same slot in a kernel modelled item by item: its test reads an argument the weights
    // are not made from (NEVER where fused, when it read only the item's own arguments).
    let (code, verdict, out) = trace(
        "trace/router",
        &["--entry", "gate.fused_shared_slot.ItemSlotMoE", "--kernels", kernels.to_str().unwrap()],
    );
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.num_fused_shared_experts <= 0".into()),
            ("ONCE".into(), 1, "config.num_fused_shared_experts > 0".into())
        ]
    );
}

#[test]
fn a_helper_that_writes_into_the_tensor_it_is_handed_is_evaluated() {
    // `inplace_experts(hidden_states, weights)` fills `hidden_states` through a helper
    // (`out=` an alias of it) and returns nothing; the caller returns `hidden_states`. Skipped
    // (no factor handed to them), the write was lost and the block's own multiply read ONCE,
    // though the weights already carry the factor.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.inplace_helper.InplaceExpertsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn a_predicate_helper_tested_beside_a_flag_is_the_same_atom_wherever_it_is_tested() {
    // `if self.skip_router or any_routed(mask, x)` after `if not any_routed(mask, x): return`:
    // the skipped helper returned data, and the whole `or` was one atom named after its text,
    // unrelated to the helper tested alone (NEVER where it was false but the batch routed).
    // Taken apart, the operand is the same atom in both tests: ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.token_predicate.MaskPredicateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("self.skip_router or"), "{}", out.stdout);
}

#[test]
fn a_predicate_on_the_data_shape_is_one_atom_named_after_its_call() {
    // `return mode is not None and not mode.is_idle() and hidden_states.shape[0] > 0` is not
    // evaluated (an item of data is not a fact: evaluating such helpers cost the V4 benchmark
    // 3 s and widened conditions elsewhere); its call, tested alone and beside a flag, is one
    // atom named after the call: ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.token_predicate.TokenPredicateMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    let atoms: Vec<&str> = json["atoms"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(atoms, ["has_tokens(mode, hidden_states)"], "{}", out.stdout);
}

#[test]
fn sizes_of_a_parameter_never_rebound_are_one_size() {
    // `if hidden_states.shape[1] > 64: scale` and `if hidden_states.shape[1] <= 64: scale`:
    // each read of the shape was a size of its own (TWICE and NEVER rows where one size was
    // both). The helper never rebinds `hidden_states`: one size, ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.param_shape.ParamShapeMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn kernels_filling_views_of_a_scratch_buffer_keep_what_they_write() {
    // `cache3 = cache[:n].view(m, k, h)` filled by a Triton kernel weighting by the top-k
    // weights, then summed into chunks of the input (`out=out_hidden_states[begin:end]`, the
    // in-place path). Views of a buffer were not buffers: the writes were lost and the block
    // read ONCE though the top-k folds the factor in and the block scales again.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.scratch_views.ScratchViewsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let verdicts: Vec<(String, String)> = out.json()["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["verdict"].as_str().unwrap().to_string(), v["when"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("ONCE".into(), "not config.fold_in_topk".into()),
            ("TWICE".into(), "config.fold_in_topk and not config.n_shared".into()),
            ("MIXED".into(), "config.fold_in_topk and config.n_shared".into()),
        ]
    );
    // The fused shared slot's 1 / factor reaches the output, and the chunks overwrite the
    // input: no part of the output is the unscaled input.
    assert!(out.stdout.contains("topk_weights[:, :-1].sum(dim=-1) / routed_scaling_factor"), "{}", out.stdout);
}

#[test]
fn a_reduction_chosen_by_a_small_count_always_runs_one_branch() {
    // `if topk_ids.shape[1] == 1: ... elif == 2: ... elif > 2: ...`: read as unrelated tests,
    // a row where the count was at most 2 but neither 1 nor 2 left the output as allocated
    // (NEVER). A count is a whole number, never negative: there it is 0, and left out.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.small_sizes.SmallSizesMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn the_built_in_model_of_moe_fused_gate_weights_its_fused_shared_slot() {
    // sgl-kernel's `moe_fused_gate(..., num_fused_shared_experts, routed_scaling_factor)`
    // weights the fused shared slot by the routed sum / factor when the count is above 0;
    // the block tests the count's truthiness. Without the slot the norm after the block read
    // as taking the factor off (NEVER); with the slot but two unrelated tests, a row where the
    // count was truthy but not above 0 did too. ONCE, the slot's part at exponent 0.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.fused_gate_slot.FusedGateSlotMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    let slot = json["rows"].as_array().unwrap().iter().flat_map(|r| r["parts"].as_array().unwrap()).any(|p| {
        p["exponent"] == 0
            && p["sites"].as_array().unwrap().iter().any(|s| s["kind"] == "delegated" && s["exponent"] == -1)
    });
    assert!(slot, "{}", out.stdout);
}

#[test]
fn a_count_is_above_zero_zero_or_none() {
    // `if n is not None and n > 0: ... elif n is None or n == 0: ...` on a count: read as
    // unrelated tests, a negative count took neither branch (NEVER). A count is never below 0.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.count_signs.CountSignsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn names_unpacked_from_a_tuple_keep_the_buffer_a_kernel_fills() {
    // `hidden_states, local_hidden_states = (gathered_buffer, hidden_states.clone())`, then a
    // Triton kernel copies the local tokens into the buffer (SGLang's DP attention gather).
    // Unpacked names were not buffers: the copy was lost and the gathered output read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.GatheredMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // The buffer a field holds, allocated by another method of its object.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.GatheredFieldMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // Every value of the tuple is evaluated before any name is bound: a swap swaps.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.SwappedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn storage_a_handed_in_batch_holds_is_a_buffer_and_its_record_fields_its_own() {
    // `hidden_states, local = (batch.gathered_buffer[:n], hidden_states)`, the batch handed in:
    // its tensor is storage a kernel fills (SGLang 0.4.6's communicator). It was no buffer, and
    // the gathered output an unknown subscript.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.BatchBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // `isinstance(metadata, ForwardBatch)` narrows the batch to an object known by its class:
    // its fields read as its dataclass's defaults (`None`), so the metadata had no buffer.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.NarrowedBatchMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn storage_of_an_object_from_an_alternative_constructor_is_a_buffer() {
    // `metadata = BuiltMetadata.from_batch(batch)` (a class method returning `cls(...)`, held
    // as an unknown value), then `(metadata.gathered_buffer, ...)` handed to the gather: the
    // unknown value's tensor was no buffer, and the gathered output no data (UNKNOWN with DP
    // attention).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.dp_gather.GatheredByFactoryMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn two_unknown_values_tested_equal_agree_with_their_constants() {
    // `attn_tp_size == world_size`, then `attn_tp_size == 1 and world_size == 1`: the second
    // branch is unreachable. The equality was an atom unrelated to the constants' atoms: a row
    // where both were 1 and yet not equal read NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unknowns_equal.TpEqualMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn an_assumed_predicate_call_constrains_the_value_it_tests() {
    // `get_backend().is_fused_runner()` runs (the enum's predicate compares the value with two
    // members), so there is no atom of that name: the assumption constrains the value's
    // equalities. Free, the experimental backend (registered to the plain kernel) is NEVER.
    let entry = ["--entry", "gate.assumed_predicate.AssumedPredicateMoE"];
    let (code, verdict, out) = trace("trace/router", &entry);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let not_fused = [&entry[..], &["--assume", "get_backend().is_fused_runner()=false"]].concat();
    let (code, verdict, out) = trace("trace/router", &not_fused);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["assumptions"][0]["used"], true, "{}", out.stdout);
    let fused = [&entry[..], &["--assume", "get_backend().is_fused_runner()=true"]].concat();
    let (code, verdict, out) = trace("trace/router", &fused);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let rows = rows(&out);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter().all(|(_, _, when)| when.contains("\"fused\"") || when.contains("\"fused_experimental\"")),
        "{rows:?}"
    );
    // The raises the assumption excludes (backends no kernel is registered for) are not
    // listed as places where configurations end.
    assert!(out.json()["raises"].as_array().is_none_or(|r| r.is_empty()), "{}", out.stdout);
}

#[test]
fn a_collective_gives_every_rank_what_any_rank_handed_it() {
    // Only rank 0 copies its tokens into the buffer; the all-reduce sums the ranks' buffers
    // (SGLang 0.4.6's replicate gather). Read one rank at a time, other ranks held zeros: NEVER.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.rank_gather.RankGatherMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // Without a collective, what one rank does stays on that rank: the others do not scale.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.rank_gather.RankScaledMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
}

#[test]
fn a_decorator_of_the_tree_that_wraps_the_function_runs_its_wrapper() {
    // `@if_fast_supported` (vLLM's `@if_aiter_supported`) runs the function only where the
    // platform supports the fast kernel, and gives `None` elsewhere: the fast path, which
    // scales twice, runs on ROCm only. Not applied, it ran everywhere: TWICE on CUDA.
    for entry in ["gate.gating_decorator.GatedClassMethodMoE", "gate.gating_decorator.GatedFunctionMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--platform", "cuda"]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--platform", "rocm"]);
        assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{entry}: {}", out.stdout);
        assert_eq!(rows(&out).iter().filter(|r| r.0 == "TWICE").count(), 1, "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_gate_that_imports_lazily_is_a_decision_over_the_platform() {
    // `if current_platform.is_rocm() and FOUND: from ... import on_gfx9; return on_gfx9()`:
    // the import binds a name only, so the gate is evaluated, and on CUDA it is False.
    let entry = "gate.gating_lazy_import.LazyGateMoE";
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--platform", "cuda"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--platform", "rocm"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let twice: Vec<_> = rows(&out).into_iter().filter(|r| r.0 == "TWICE").collect();
    assert_eq!(twice.len(), 1, "{}", out.stdout);
    assert!(twice[0].2.contains("on_gfx9()"), "{}", out.stdout);
}

#[test]
fn a_count_above_a_number_is_not_none() {
    // `if n is None: return routed` then `if n > 0:`: assumed `n > 0`, the `None` row is gone
    // (it was a NEVER row the assumption could not exclude).
    let entry = "gate.optional_count.AssumedCountMoE";
    let assumed = ["--entry", entry, "--assume", "config.n_shared_experts > 0=true"];
    let (code, verdict, out) = trace("trace/router", &assumed);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (_, verdict, out) = trace("trace/router", &["--entry", entry]);
    assert_eq!(verdict, "NEVER", "{}", out.stdout);
    assert_eq!(rows(&out).last().unwrap().2, "config.n_shared_experts == None");
}

#[test]
fn ordering_a_value_that_may_be_none_raises_where_it_is() {
    // `if self.n_shared_experts > 0:` where the constructor tested the count for `None`:
    // Python raises `TypeError` there, so `None` is no configuration taking the `else` branch.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.optional_count.UnguardedCountMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.n_shared_experts > 0".into()),
            ("NEVER".into(), 0, "config.n_shared_experts <= 0".into())
        ]
    );
    let raises = out.json()["raises"].to_string();
    assert!(raises.contains("\"line\":43") && raises.contains("self.n_shared_experts > 0"), "{raises}");
    assert!(!raises.contains("\"line\":44"), "{raises}");
}

#[test]
fn an_assumption_matches_its_atom_however_it_is_spaced() {
    // Atoms print as the source spaces them (`config.n_shared_experts > 0`); an assumption
    // written without the spaces fixes the same atom instead of matching nothing.
    let args = ["--entry", "gate.optional_count.AssumedCountMoE", "--assume", "config.n_shared_experts>0=true"];
    let (code, verdict, out) = trace("trace/router", &args);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("matched nothing"), "{}", out.stdout);
}

#[test]
fn a_plain_enum_member_with_a_tuple_value_has_its_properties() {
    // `Format.Standard = ("standard",)`; `self.activation_format().is_batched` was an unknown
    // read of the tuple, and half the configurations raised the batched format's error.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.tuple_enum.TupleEnumMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn a_value_handed_to_a_parameter_that_is_never_read_is_said_to_stop_there() {
    // `Experts.apply(..., routed_scaling_factor=f)` never reads its parameter: NEVER, and the
    // answer names the call and the parameter, not only "no application reaches the output".
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.ignored_parameter.IgnoredParameterMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let unused = out.json()["unused"].clone();
    assert_eq!(unused.as_array().map(Vec::len), Some(1), "{unused:#}");
    assert_eq!(unused[0]["location"]["line"], 26, "{unused:#}");
    let what = unused[0]["what"].as_str().unwrap();
    assert!(what.contains("`Experts.apply` as `routed_scaling_factor`") && what.contains("never reads it"), "{what}");
    let entry = ["trace", "routed_scaling_factor", "--entry", "gate.ignored_parameter.IgnoredParameterMoE"];
    let text = crate::run(&crate::fixture("trace/router"), &entry);
    assert!(text.stdout.contains("handed to a parameter that is never read"), "{}", text.stdout);
}

#[test]
fn an_entry_method_that_takes_the_value_and_never_reads_it_says_so() {
    // The entry is the experts' `apply` itself: the value is its parameter, never read.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.ignored_parameter.Experts.apply"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(out.json()["unused_parameter_of"], "Experts.apply");
}

#[test]
fn an_outside_kernel_modelled_as_writing_its_output_overwrites_the_tensor_handed_in() {
    // `moe_sum(expert_outputs, hidden_states)`: aiter writes the sum into the block's input.
    // Not a fresh buffer, so the write was not seen and the output read NEVER; the model of
    // `aiter.moe_sum` (`returns` the input's data, `output` the second argument) says it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.summed_in_place.SummedInPlaceMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_factor_among_the_values_that_change_nothing_leaves_nothing_to_apply() {
    // `if factor not in (None, 1.0):` guards the multiply: where it is `None` or 1.0 those
    // configurations are left out with a reason, as `factor != 1.0` is, not a NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.membership_guard.MembershipGuardMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(
        out.json()["vacuous"],
        serde_json::json!([{"condition": "factor in (None, 1.0)", "why": "the value is 1, 0 or None: applying it changes nothing"}])
    );
}

#[test]
fn a_parameter_defaulting_to_none_tested_for_none_says_nothing_of_the_value_passed() {
    // `def __init__(self, scale, tp_size=None): if tp_size is None: ...` handed `config.tp_size`:
    // the test is about the argument being passed, so `self.tp_size > 1` raises nowhere (it
    // raised `TypeError` in a third of the configurations, like SGLang 0.5.13's linear layers).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.optional_count.DefaultedParameterMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn only_modules_get_the_quantization_methods_loader_hook() {
    // The loaders walk the modules; a plain-Python runner holding the same quantization method
    // is not handed to its hook (which reads the weights only the layer registered).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.runner_holder.RunnerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json()["raises"].is_null(), "{:#}", out.json()["raises"]);
}

#[test]
fn a_call_made_for_its_effect_fills_buffers_only_where_it_gives_data() {
    // The tree's finalizer fills `output` itself and returns `None`; the outside one's result
    // is what lands there. And `w1.shape[0]` is a size, not a buffer the scatter fills: the
    // one-expert test is over the configuration. (The one-expert path scales twice, on purpose.)
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.effect_call_buffers.FinalizedExperts"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (config.num_experts == 1)".into()),
            ("TWICE".into(), 2, "config.num_experts == 1".into())
        ]
    );
}

#[test]
fn typing_cast_is_its_value() {
    // `cast(tuple[...], self._pair(x))` is the pair: the `isinstance(result, tuple)` unpacking
    // takes its first branch, and the routed part is scaled once.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.typing_cast.CastPairMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn a_factor_of_sizes_above_one_makes_their_product_above_one() {
    // `dp * tp > 1` is false only where both are 1: `dp > 1` there is no configuration, and
    // its unscaled branch no NEVER row.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.size_product.SizeProductMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "dp_size_ * tp_size_ <= 1".into()), ("ONCE".into(), 1, "dp_size_ * tp_size_ > 1".into())]
    );
}

#[test]
fn a_method_of_what_a_skipped_getter_returns_is_the_method_of_that_object() {
    // `finalize(..., self.fused_experts.finalize_weight_and_reduce_impl())`: the getter takes
    // no data and is skipped, but `apply` called on its result runs the no-op it returns, not
    // every subclass of its annotation (the abstract base among them, where nothing ran and
    // the output read NEVER).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.skipped_call_method.SkippedGetterMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(out.json()["atoms"], serde_json::json!([]));
}

#[test]
fn a_class_with_an_abstract_method_is_no_configuration_of_an_unknown_object() {
    // A reducer declared as the abstract base is one of the classes that can be made: the
    // base itself, whose `apply` is abstract, ran nothing and its configuration was lost.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.skipped_call_method.HandedReducerMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn scaled_data_a_helper_returning_nothing_may_have_written_anywhere_is_not_known() {
    // `self.experts.apply(output, hidden_states, topk_weights)`, skipped, returns nothing, and
    // the scaled weights are not read again: they landed in a tensor handed beside them. Not
    // NEVER: the output holds them, marked as not known, and the row names the call.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.effect_helper_destination.WorkspaceMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(rows(&out), [("UNKNOWN".into(), 1, "always".into())]);
    let unresolved = out.json()["unresolved"].to_string();
    assert!(unresolved.contains("is called for its effect with scaled data"), "{unresolved}");
    // Scaled data read again after such a call stayed where it was: nothing is marked.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.effect_helper_destination.RewrittenWeightsMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
}

#[test]
fn kernels_fill_the_workspace_views_they_store_into_or_their_model_names() {
    // `out = workspace.view(-1)` is no fresh allocation. A Triton kernel of the tree launched
    // with it stores into it (`tl.store(c_ptr + offs, ...)`), and a compiled `moe_sum(input,
    // output)` writes its `output` (its model says so; the helper handing its parameter to it
    // is evaluated): the scaled weights land there either way. Both read NEVER before.
    for entry in ["gate.workspace_outputs.WorkspaceLaunchMoE", "gate.workspace_outputs.WorkspaceSumMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{entry}");
    }
}

#[test]
fn scaled_data_thrown_away_by_a_callee_not_resolved_is_not_known() {
    // `_ = self.kernel.run(..., token_final_scales=topk_weights, output=output)`, the kernel an
    // outside factory's: the weights went in, the result is thrown away, and the tensors
    // handed beside them may hold them. Not NEVER (the callee was even listed as unresolved).
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.effect_helper_destination.UnresolvedKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(rows(&out), [("UNKNOWN".into(), 1, "always".into())]);
}

/// The lines of the raises an answer lists, in order.
fn raise_lines(out: &crate::Run) -> Vec<(i64, String)> {
    out.json()["raises"]
        .as_array()
        .map(|raises| {
            raises
                .iter()
                .map(|r| (r["location"]["line"].as_i64().unwrap(), r["source"].as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn code_reached_only_where_the_function_raised_does_not_run() {
    // The first `if` chain returns or raises on every path; the code after it runs nowhere.
    // It ran in the configurations of the first `raise`, listed its own `raise` (line 41) and
    // read a `scores` never bound there.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.after_raise.FallThroughMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let unsupported = r#"raise ValueError(f"Unsupported scoring function: {scoring_func}")"#;
    assert_eq!(raise_lines(&out), [(35, unsupported.to_string())]);
    // `else: raise` after arms binding `scores`: reading it afterwards raises nothing more.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.after_raise.RaisingChainMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(raise_lines(&out), [(55, unsupported.to_string())]);
}

#[test]
fn a_kernel_a_set_up_function_binds_to_a_module_global_is_that_function_or_none() {
    // `_gemv = None` at module level, `global _gemv; _gemv = gemv` (imported in the set-up
    // function) where the GEMM backend is chosen. One symbol before: the call through it was
    // a callee not resolved, and the row UNKNOWN.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_gemm.LazyGemmMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert!(out.json()["unresolved"].as_array().is_none_or(Vec::is_empty), "{}", out.stdout);
    // A kernel so bound that scales again: TWICE exactly where the set-up reached the block
    // binding it (UNKNOWN before, the kernel not resolved).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_gemm.ScaledLazyKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let ran = "`choose_scaled_backend` reached gate/lazy_gemm.py:36";
    assert_eq!(rows(&out), [("ONCE".into(), 1, format!("not ({ran})")), ("TWICE".into(), 2, ran.into())]);
}

#[test]
fn a_buffer_of_zeros_and_the_positions_added_into_it_carry_no_part() {
    // transformers' experts loop: `final = zeros_like(x)`, `final.index_add_(0, token_idx,
    // weighted)`. The block multiplies again where `config.rescale_output`: TWICE there (the
    // zeros and the index tensor were parts of their own, scaled once: MIXED).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zeros_buffer.ZerosBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not config.rescale_output".into()), ("TWICE".into(), 2, "config.rescale_output".into())]
    );
    // `zeros_like(x)` added as the output of CPU experts there are none of: nothing added.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.zeros_buffer.NoCpuExpertsMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn calling_none_raises_a_type_error() {
    // vLLM's lazy FlashInfer wrappers: `impl = _get_impl()` (no argument, skipped, named),
    // `if impl is None: fallback()` (raises), else `impl(...)`, which evaluates `_get_impl()`.
    // Where the test said "not `None`" and the call gave `None`, `None` was called: a row of
    // its own ("calling a constant" here, NEVER in vLLM). It raises `TypeError`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_wrapper.LazyWrapperMoE"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert_eq!(rows(&out), [("UNKNOWN".into(), 1, "always".into())], "{}", out.stdout);
    let raises = out.json()["raises"].as_array().unwrap().clone();
    let type_error = raises.iter().find(|r| r["exception"] == "TypeError").expect("a TypeError");
    assert_eq!(type_error["source"], "impl(*args, **kwargs)", "{raises:#?}");
    // The same getter tested for truth, a fallback scaling in Python: once either way.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.lazy_wrapper.TruthyLazyWrapperMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(rows(&out).iter().all(|(v, e, _)| v == "ONCE" && *e == 1), "{}", out.stdout);
}

#[test]
fn a_call_handing_back_a_tuple_moves_each_tensor_with_its_own_scale() {
    // `x, weights, ids = exchange.dispatch(hidden_states, weights, ids)`, each tensor gathered
    // on its own and handed back in a tuple. Summarized as an outside computation of all
    // three, the hidden states carried the weights' factor: experts that drop the weights
    // read ONCE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.group_dispatch.WeightedExchangeMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.group_dispatch.DroppedWeightsExchangeMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(rows(&out), [("NEVER".into(), 0, "always".into())], "{}", out.stdout);
}

#[test]
fn renormalizing_takes_off_a_factor_applied_to_all_the_weights() {
    // `w = w * v; w = w / w.sum(-1)`: the renormalized weights do not depend on `v`. Read as
    // keeping `w`'s exponent (right for a shared slot's `1/v`, gate.chunked), this said ONCE.
    for entry in [
        "gate.renormalized.ScaleThenRenormalizeRouter",
        "gate.renormalized.InPlaceScaleThenRenormalizeRouter",
        "gate.renormalized.FunctionalNormalizeRouter",
    ] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{entry}: {}", out.stdout);
        assert_eq!(
            rows(&out),
            [
                ("ONCE".into(), 1, "not config.norm_topk_prob".into()),
                ("NEVER".into(), 0, "config.norm_topk_prob".into())
            ],
            "{entry}: {}",
            out.stdout
        );
        let never = &out.json()["rows"][1];
        let note = never["normalized_at"][0]["what"].as_str().unwrap_or_default();
        assert!(note.contains("sum"), "{entry}: {never:#}");
    }
    for entry in ["gate.renormalized.RenormalizeThenScaleRouter", "gate.renormalized.SumBeforeScaleRouter"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_power_that_is_no_whole_number_leaves_the_count_unknown() {
    // `v ** 0.5` on two multiplies is one application; whole exponents cannot say so. It read
    // NEVER (the root taken for a plain number) and `math.sqrt(v)` twice read TWICE.
    for (entry, code, verdict) in [
        ("gate.powers.SquaredMoE", 1, "TWICE"),
        ("gate.powers.FloatSquaredMoE", 1, "TWICE"),
        ("gate.powers.SplitRootMoE", 3, "UNKNOWN"),
        ("gate.powers.MathRootMoE", 3, "UNKNOWN"),
        ("gate.powers.OnePlusMoE", 3, "UNKNOWN"),
    ] {
        let (got_code, got, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((got_code, got.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        if verdict == "UNKNOWN" {
            let blocked = out.json()["rows"][0]["blocked_by"].to_string();
            assert!(blocked.contains("not followed"), "{entry}: {}", out.stdout);
        }
    }
}

#[test]
fn an_in_place_multiply_into_a_view_scales_the_tensor_viewed() {
    // `out.view(-1, h).mul_(v)` writes into `out`: it was lost, so once read NEVER and twice
    // read ONCE.
    for (entry, code, verdict) in [
        ("gate.view_in_place.ViewScaledMoE", 0, "ONCE"),
        ("gate.view_in_place.ViewOfViewScaledMoE", 0, "ONCE"),
        ("gate.view_in_place.ScaledThenViewScaledMoE", 1, "TWICE"),
        ("gate.view_in_place.ChainedInPlaceMoE", 1, "TWICE"),
        ("gate.view_in_place.ChainedScaleAndAddMoE", 0, "ONCE"),
    ] {
        let (got_code, got, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((got_code, got.as_str()), (code, verdict), "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_shared_expert_scaled_by_the_routed_factor_is_mixed() {
    // `(routed + shared) * v` and `routed + shared * v` carried one exponent on the output and
    // read ONCE; the shared expert's output is a part of its own, which the factor must not scale.
    for (entry, code, verdict) in [
        ("gate.shared_scaled.ScaledRoutedMoE", 0, "ONCE"),
        ("gate.shared_scaled.GatedSharedMoE", 0, "ONCE"),
        ("gate.shared_scaled.ScaledSumMoE", 1, "MIXED"),
        ("gate.shared_scaled.ScaledSharedMoE", 1, "MIXED"),
        ("gate.shared_scaled.InPlaceRoutedThenSharedMoE", 1, "MIXED"),
        ("gate.shared_scaled.DividedSharedMoE", 1, "INVERSE"),
    ] {
        let (got_code, got, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((got_code, got.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        if verdict == "MIXED" {
            let parts = out.json()["rows"][0]["parts"].clone();
            assert!(parts.as_array().unwrap().iter().any(|p| p["shared"] == true), "{parts:#}");
        }
    }
}

#[test]
fn a_factor_folded_into_weights_through_param_data_counts() {
    // `self.w2_weight.data.mul_(v)` at loading, and the block's multiply: twice where it folds.
    // `.data` read as a method of the tensor lost both the fold and the weights.
    for entry in ["gate.folded_weights.FoldedWeightsMoE", "gate.folded_weights.TransposedFoldMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{entry}: {}", out.stdout);
        assert_eq!(
            rows(&out),
            [("ONCE".into(), 1, "not config.fold_scale".into()), ("TWICE".into(), 2, "config.fold_scale".into())],
            "{entry}: {}",
            out.stdout
        );
    }
}

#[test]
fn a_match_statement_runs_its_first_matching_case() {
    // Each case was an independent atom: rows where two cases ran, or where the match and an
    // `if` on the same setting disagreed. A value pattern is an equality with the subject.
    for entry in ["gate.match_backend.MatchBackendMoE", "gate.match_backend.GuardedMatchMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert!(out.json()["unresolved"].as_array().unwrap().is_empty(), "{entry}: {}", out.stdout);
    }
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.match_backend.MissingCaseMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "config.moe_backend == \"fused\"".into()),
            ("ONCE".into(), 1, "config.moe_backend == \"triton\"".into()),
            ("NEVER".into(), 0, "config.moe_backend not in (\"fused\", \"triton\")".into())
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_trace_a_bound_stopped_is_answered_again_case_by_case() {
    // Seven long backend paths with a budget a quarter of which fits one, but that does not
    // fit the seven together: stopped, the trace is answered again with the backend fixed to
    // each value seen compared, and to none of them. The step budget ran out before `== "g"`
    // was reached: "none of those" leaves "g" free, and finds its double application.
    let entry = "gate.split_backends.SplitBackendsMoE";
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--max-steps", "400", "--max-cases", "0"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--max-steps", "400"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["split_on"]["name"], "config.moe_backend", "{}", out.stdout);
    assert_eq!(json["rows"], serde_json::json!([]));
    let cases: Vec<(String, String, serde_json::Value)> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["condition"].as_str().unwrap().into(),
                c["report"]["verdict"].as_str().unwrap().into(),
                c["assume_as"].clone(),
            )
        })
        .collect();
    let case = |b: &str, verdict: &str| {
        (
            format!("config.moe_backend == \"{b}\""),
            verdict.to_string(),
            serde_json::json!(format!("config.moe_backend={b}")),
        )
    };
    let rest = "config.moe_backend not in (\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"z\")";
    let expected = [
        case("a", "ONCE"),
        case("b", "ONCE"),
        case("c", "ONCE"),
        case("d", "ONCE"),
        case("e", "ONCE"),
        case("f", "ONCE"),
        // Every configuration raises there: no configuration, as in a table.
        case("z", "UNKNOWN"),
        (rest.into(), "TWICE".into(), serde_json::Value::Null),
    ];
    assert_eq!(cases, expected);
    assert_eq!(json["cases"][6]["report"]["rows"], serde_json::json!([]));
    // The TWICE row of the last case: backend "g", its two multiplications.
    let last = &json["cases"][7]["report"];
    let twice: Vec<&serde_json::Value> =
        last["rows"].as_array().unwrap().iter().filter(|r| r["verdict"] == "TWICE").collect();
    assert_eq!(twice.len(), 1, "{last}");
    assert_eq!(twice[0]["when"], "config.moe_backend == \"g\"", "{last}");
    let lines: Vec<u64> = twice[0]["parts"][0]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["location"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [143, 145], "{last}");
    let text =
        run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", entry, "--max-steps", "400"])
            .stdout;
    assert!(text.contains("answered in\n  8 cases of config.moe_backend"), "{text}");
    assert!(
        text.contains(
            "config.moe_backend == \"b\"                                     ONCE     --assume config.moe_backend=b"
        ),
        "{text}"
    );
    assert!(
        text.contains("config.moe_backend == \"z\"                                     (every configuration raises)"),
        "{text}"
    );
    // The same without the bug: ONCE, the raising backend no configuration of it.
    let fixed = "gate.split_backends.SplitBackendsFixedMoE";
    let (code, verdict, out) = trace("trace/router", &["--entry", fixed, "--max-steps", "400"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(out.json()["cases"].as_array().unwrap().len(), 8, "{}", out.stdout);
    // More cases than allowed: no split, and said.
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--max-steps", "400", "--max-cases", "7"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    assert!(out.stdout.contains("takes 8 cases, more than --max-cases 7"), "{}", out.stdout);
    // A budget a quarter of which does not fit the case branched on most: that case stops
    // too, and the others are not tried.
    let (code, verdict, out) = trace("trace/router", &["--entry", entry, "--max-steps", "360"]);
    assert_eq!((code, verdict.as_str()), (3, "UNKNOWN"), "{}", out.stdout);
    let json = out.json();
    assert!(json.get("cases").is_none(), "{}", out.stdout);
    let said = json["bounds"].as_array().unwrap().iter().any(|b| {
        b["what"]
            .as_str()
            .unwrap()
            .starts_with("answered again with config.moe_backend == \"a\" (the case branched on most)")
    });
    assert!(said, "{}", out.stdout);
    // With the budget it needs, the one evaluation answers: no split.
    let (code, verdict, out) = trace("trace/router", &["--entry", entry]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert!(out.json().get("cases").is_none(), "{}", out.stdout);
}

#[test]
fn a_non_linear_function_of_scaled_data_takes_the_scale_off() {
    // `softmax(v * logits)`: the value is a temperature there, not a scale of what comes out.
    // Counted as an application, the router that also scales the output read TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.squashed.TemperatureRouterMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // The value only inside a sigmoid: never applied to the output, and the row says where
    // its scale was taken off (it read ONCE).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.squashed.SigmoidOnlyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    let at = &out.json()["rows"][0]["normalized_at"][0];
    assert_eq!(at["location"]["line"], 34, "{}", out.stdout);
    assert!(at["what"].as_str().unwrap().contains("non-linear function"), "{}", out.stdout);
    // The usual router: softmax, then the factor.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.squashed.ScaledAfterSoftmaxMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
}

#[test]
fn a_split_whose_first_case_runs_out_too_is_not_made() {
    // More tests than the atom bound: fixing the backend leaves the four thousand flags, so
    // the case branched on most runs out of atoms too (provisional, UNKNOWN). The other cases
    // would read the same: they are not run, and the bounds say why.
    let dir = wide_tree(|i| {
        wide_test(i % 100 == 0, "config.backend == \"a\"") + &wide_test(i % 150 == 0, "config.backend == \"b\"")
    });
    let out = run(dir.path(), &["trace", "routed_scaling_factor", "--entry", "Wide", "--format", "json"]);
    let json = out.json();
    assert_eq!((out.code, json["verdict"].as_str().unwrap()), (3, "UNKNOWN"), "{}", out.stdout);
    assert!(json.get("cases").is_none(), "{}", out.stdout);
    let said = json["bounds"].as_array().unwrap().iter().any(|b| {
        b["what"]
            .as_str()
            .unwrap()
            .starts_with("answered again with config.backend == \"a\" (the case branched on most)")
    });
    assert!(said, "{}", json["bounds"]);
}

#[test]
fn a_helper_every_test_of_which_a_platform_fixes_is_evaluated() {
    // `_plugin_key()` hands back a plugin's key only out of tree: on a named platform it is
    // `None`, and the plugin's path (twice) no configuration.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.plugin_key.PluginKeyMoE", "--platform", "cuda"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // With no platform named the helper's answer is free: both paths are configurations.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.plugin_key.PluginKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out).len(), 2, "{}", out.stdout);
}

#[test]
fn rows_a_cut_fell_in_are_answered_again_case_by_case() {
    // Two modes of thirteen flags each: 27 scales together, more than a value keeps, so the
    // rows hold where scaled data was cut. One mode at a time keeps them all: answered case
    // by case, each case final.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.cut.ModeCutMoE", "--max-alternatives", "24"]);
    assert_eq!((code, verdict.as_str()), (1, "MIXED"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["split_on"]["name"], "config.mode", "{}", out.stdout);
    let cases: Vec<(&str, &str)> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["condition"].as_str().unwrap(), c["report"]["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        cases,
        [
            ("config.mode == \"a\"", "TWICE"),
            ("config.mode == \"b\"", "MIXED"),
            ("config.mode not in (\"a\", \"b\")", "ONCE")
        ],
        "{}",
        out.stdout
    );
    for case in json["cases"].as_array().unwrap() {
        let rows = case["report"]["rows"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["cut_at_bound"] != true && r["verdict"] != "UNKNOWN"), "{case:#}");
    }
    let text = run(
        &fixture("trace/router"),
        &["trace", "routed_scaling_factor", "--entry", "gate.cut.ModeCutMoE", "--max-alternatives", "24"],
    );
    assert!(text.stdout.contains("a bound cut values holding scaled data in the evaluation"), "{}", text.stdout);
}

#[test]
fn a_helper_returning_a_copy_of_the_object_it_is_handed_is_evaluated() {
    // `paged_config(config, 4)` returns `replace(config, no_combine=True)`: evaluated, the
    // copy holds the experts' config, whose factor they were never given, and `no_combine`
    // true. Left a summary, its `routed_scaling_factor` was a fresh read of the value: TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copied_config.CopiedConfigMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    // Given the factor, the experts' own top-k sum applies it too, but where the copy leaves
    // the sum to the caller.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copied_config.CopiedConfigGivenMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "config.paged".into()), ("TWICE".into(), 2, "not config.paged".into())]);
}

#[test]
fn a_kernel_handed_raw_addresses_fills_the_fresh_tensor_it_was_handed_the_address_of() {
    // `args = Args(x.data_ptr(), wts.data_ptr(), out.data_ptr(), n)` then a launch with the
    // record (or the addresses handed straight to an outside function): `out` holds what the
    // kernel computed from the weights, not the `torch.empty` it was allocated as. Read as the
    // empty tensor, the folded factor was lost (NEVER where the gate folds it).
    for (entry, code, verdict, expected) in [
        ("PackedMoE", 0, "ONCE", vec![("ONCE", 1, "config.fold_in_topk"), ("ONCE", 1, "not config.fold_in_topk")]),
        ("DirectMoE", 0, "ONCE", vec![("ONCE", 1, "config.fold_in_topk"), ("ONCE", 1, "not config.fold_in_topk")]),
        (
            "DoubledPackedMoE",
            1,
            "TWICE",
            vec![("ONCE", 1, "not config.fold_in_topk"), ("TWICE", 2, "config.fold_in_topk")],
        ),
    ] {
        let (got, got_verdict, out) = trace("trace/router", &["--entry", &format!("gate.raw_pointers.{entry}")]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        let expected: Vec<(String, i64, String)> =
            expected.into_iter().map(|(v, e, w)| (v.to_string(), e, w.to_string())).collect();
        assert_eq!(rows(&out), expected, "{entry}");
    }
    // The factor itself packed beside the addresses: the kernel applies it, a delegated
    // application named by the launch that was handed the record.
    // So is the factor converted beside addresses taken one by one from a tuple of tensors.
    for (entry, line) in [("FactorInRecordMoE", 86), ("StarredRecordMoE", 94)] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.raw_pointers.{entry}")]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        let site = &out.json()["rows"][0]["parts"][0]["sites"][0];
        assert_eq!(
            (site["kind"].as_str(), site["location"]["line"].as_i64()),
            (Some("delegated"), Some(line)),
            "{site}"
        );
    }
}

#[test]
fn sums_and_formatted_strings_are_never_none() {
    // `config.a + config.b is None` and a reason formatted with an f-string tested against
    // `None`: neither can hold, and the early returns they guard gave NEVER rows.
    for entry in ["SummedCountMoE", "ReasonMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.never_none_results.{entry}")]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert!(!out.stdout.contains("== None"), "{entry}: {}", out.stdout);
    }
}

#[test]
fn where_keeps_a_value_whose_alternatives_exclude_each_other() {
    // Weights scaled by `factor / sum` where renormalized and by `factor` where not, then given
    // a weight of 1 on the shared columns (`tl.where(lane >= TOPK, 1.0, weights)` in a Triton
    // kernel, `torch.where(mask, ones, weights)` in torch): each alternative was a piece of its
    // own and the pieces' conditions were intersected, so the weights were lost (NEVER).
    for entry in ["KernelGateMoE", "TorchGateMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.where_alternatives.{entry}")]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert_eq!(
            rows(&out),
            [
                ("ONCE".into(), 1, "config.norm_topk_prob".into()),
                ("ONCE".into(), 1, "not config.norm_topk_prob".into())
            ],
            "{entry}"
        );
    }
}

#[test]
fn a_base_constructor_run_late_keeps_what_the_subclass_set_after_it() {
    // `super().__init__(kind)` skipped while building, then run when `self.kind` is read: its
    // `self.impl = Plain()` replaced the subclass's `self.impl = Scaled(scale)` (ONCE).
    for (entry, code, verdict) in [("LateBaseMoE", 1, "TWICE"), ("UnscaledLateBaseMoE", 0, "ONCE")] {
        let (got, got_verdict, out) =
            trace("trace/router", &["--entry", &format!("gate.late_base_constructor.{entry}")]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_call_that_writes_a_class_attribute_is_not_replayed_from_a_summary() {
    // `cls._buffer = Buffer(...)` made once, asked for on two paths with the same arguments:
    // replayed from the first call's summary, the second gave back `None` (the attribute as the
    // first call read it), so every configuration of its path raised and its TWICE row was gone.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_cached_buffer.CachedBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.json().get("raises").is_none(), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.class_cached_buffer.DoubledOnSlowPathMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fast_path".into()), ("TWICE".into(), 2, "not config.fast_path".into())],
        "{}",
        out.stdout
    );
}

#[test]
fn a_cache_kept_in_an_object_not_built_gives_back_what_the_code_stored() {
    // `state = get_resources().buffers.get("ep_state")`, made and stored on a miss: a hit was
    // an unknown object, its buffer's `dispatch` unresolved (UNKNOWN rows). The first read
    // finds it empty (said as an assumption); later reads find what was stored.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.keyed_state_cache.KeyedCacheMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let notes = out.json()["unresolved"].to_string();
    assert!(notes.contains("holds under \\\"ep_state\\\" only what the code reading it stores there"), "{notes}");
    let (_, _, out) = trace("trace/router", &["--entry", "gate.keyed_state_cache.DoubledKeyedCacheMoE"]);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "config.fast_path".into()), ("TWICE".into(), 2, "not config.fast_path".into())]
    );
    // A flag stored by key and read back by `.get` and by `[...]`: one value, not two atoms.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.keyed_state_cache.StoredFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("settings.get("), "{}", out.stdout);
    // A default filled in where none is set (`if d.get(k) is None: d[k] = False`) is no cache:
    // read as empty, the setting a deployment made was lost, and its TWICE with it.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.keyed_state_cache.FilledDefaultMoE"]);
    assert_eq!(verdict, "TWICE", "{}", out.stdout);
    assert!(!out.stdout.contains("holds under"), "{}", out.stdout);
}

#[test]
fn a_local_no_arm_bound_is_read_unbound() {
    // Both arms binding `output` raise where the experts are not quantized: where neither
    // arm's test holds, Python raises `UnboundLocalError` reading it. Read as an unknown value
    // handed to the combine, those configurations were an UNKNOWN row.
    let (code, verdict, out) =
        trace("trace/router", &["--entry", "gate.unbound_output.FormatDispatchMoE", "--assume", "quant_config=None"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(out.stdout.contains("\"exception\": \"UnboundLocalError\""), "{}", out.stdout);
    // Read in a loop before the assignment that binds it for the next iteration: not unbound.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unbound_output.LoopCarriedMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.stdout.contains("UnboundLocalError"), "{}", out.stdout);
}

#[test]
fn a_dispatcher_picks_among_the_implementations_it_built_by_the_mode_it_resolves() {
    // `_get_impl()` returns `self._normal` or `self._low_latency` by `self.mode.resolve(...)`.
    // Named, it stood for every implementation of its annotated class, one the dispatcher never
    // builds among them (UNKNOWN there); and the enum's `resolve`, named, was a member free of
    // the mode that chose what was built, so the scaling low-latency implementation was read
    // where the mode built only the other, and lost where it did build it.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.impl_selector.SelectedImplMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    // No configuration raises: the mode never resolves to a member the dispatcher did not build.
    assert!(out.json().get("raises").is_none(), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.impl_selector.DoubledLowLatencyMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            (
                "ONCE".into(),
                1,
                "get_mode() == \"normal\" or (not (get_mode() == \"low_latency\") and current_batch_is_extend())"
                    .into()
            ),
            (
                "TWICE".into(),
                2,
                "(not (get_mode() == \"normal\") and not current_batch_is_extend()) or get_mode() == \"low_latency\""
                    .into()
            ),
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn an_outside_object_a_helper_declares_it_returns_is_one_on_every_path() {
    // `get_buffer(...) -> ElasticBuffer` gives back the buffer a registry holds, or makes one.
    // The one read from the registry was an unknown value, every call on it unresolved (UNKNOWN
    // on that path).
    for (entry, code, verdict) in [("CachedBufferMoE", 0, "ONCE"), ("DoubledCachedBufferMoE", 1, "TWICE")] {
        let (got, got_verdict, out) =
            trace("trace/router", &["--entry", &format!("gate.declared_outside_return.{entry}")]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{entry}: {}", out.stdout);
        assert_eq!(out.json()["rows"].as_array().map(|r| r.len()), Some(1), "{entry}: {}", out.stdout);
    }
}

#[test]
fn a_module_constant_and_torchs_build_version_outside_the_tree_are_tested_values() {
    // `if outside_kernels.HAS_FUSED_SCALE:` and `if torch.version.hip:` were paths to things
    // outside the tree, truthy and never `None`: the fused scale everywhere, the ROCm branch
    // on CUDA too (TWICE there).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outside_flags.OutsideFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outside_flags.DoubledOutsideFlagMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not outside_kernels.HAS_FUSED_SCALE".into()),
            ("TWICE".into(), 2, "outside_kernels.HAS_FUSED_SCALE".into())
        ]
    );
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outside_flags.RocmKernelMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, "not torch.version.hip".into()), ("TWICE".into(), 2, "torch.version.hip".into())]
    );
    for (platform, code, verdict) in [("cuda", 0, "ONCE"), ("rocm", 1, "TWICE")] {
        let (got, got_verdict, out) =
            trace("trace/router", &["--entry", "gate.outside_flags.RocmKernelMoE", "--platform", platform]);
        assert_eq!((got, got_verdict.as_str()), (code, verdict), "{platform}: {}", out.stdout);
    }
    // `is None` on one is an atom too; a table of functions of the library stays a table.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.outside_flags.UnfusedFallbackMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let whens: Vec<String> = out.json()["rows"].as_array().unwrap().iter().map(|r| r["when"].to_string()).collect();
    assert_eq!(
        whens,
        ["\"not (outside_kernels.FUSED_TOPK == None)\"", "\"outside_kernels.FUSED_TOPK == None\""],
        "{}",
        out.stdout
    );
    assert!(out.json()["unresolved"].as_array().is_some_and(|u| u.is_empty()), "{}", out.stdout);
}

#[test]
fn a_product_with_a_data_size_is_a_size_and_an_augmented_operation_reads_as_one() {
    // `sum_experts(..., M * self.topk, ...)` returns early when the product is 0: no data, or no
    // expert routed to. It read NEVER there, a row of its own; it is left out now, as `M == 0`.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pair_count.PairCountMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    assert_eq!(vacuous_conditions(&out), ["M * self.topk == 0"]);
    // `topk -= num_fused_shared_experts` then `topk > 8`: the atom is the subtraction, where it
    // was named by the statement (`topk -= num_fused_shared_experts > 8`).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.pair_count.WideTopKTwiceMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    let atoms: Vec<String> =
        out.json()["atoms"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect();
    assert!(atoms.contains(&"topk - num_fused_shared_experts > 8".to_string()), "{atoms:?}");
    assert!(!out.stdout.contains("-="), "{}", out.stdout);
}

#[test]
fn an_object_known_by_its_class_holds_its_own_value_over_a_declared_default() {
    // `QuantizationConfig` declares `weight_block_size = None`; `BlockConfig.__init__` sets its
    // own. Read as the default, the method's assert raised everywhere (UNKNOWN, no row), and a
    // path on `activation_scheme == "static"` (default "dynamic") was never taken.
    let assume = ["--assume", "quant_config=gate.declared_default.BlockConfig"];
    let (code, verdict, out) =
        trace("trace/router", &[&["--entry", "gate.declared_default.BlockMoE"][..], &assume].concat());
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())]);
    let (code, verdict, out) =
        trace("trace/router", &[&["--entry", "gate.declared_default.StaticTwiceMoE"][..], &assume].concat());
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(
        rows(&out),
        [
            ("ONCE".into(), 1, "not (quant_config.activation_scheme == \"static\")".into()),
            ("TWICE".into(), 2, "quant_config.activation_scheme == \"static\"".into())
        ]
    );
}

#[test]
fn a_lookup_by_a_key_not_known_finds_an_entry_written_under_one() {
    // `factors[layer_type] = ...` for each type in `set(config.layer_types)`, then
    // `factors[config.layer_types[0]]`: the keys are not known, and the lookup raised
    // `KeyError` in every configuration (transformers 5's whole models read UNKNOWN). It finds
    // the entry, as an assumption listed.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unknown_keys.LayerTypesMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let json = out.json();
    assert_eq!(json["raises"].as_array().map_or(0, Vec::len), 0, "{}", out.stdout);
    let unresolved = json["unresolved"].to_string();
    assert!(unresolved.contains("finds the entry written under a key not known"), "{}", out.stdout);
    // What the entry holds is followed: scaled there and again after, TWICE.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unknown_keys.ScaledEntriesTwiceMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
    // Read back by the key that wrote it: that entry, nothing assumed.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.unknown_keys.SameKeyMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    assert!(!out.json()["unresolved"].to_string().contains("finds the entry"), "{}", out.stdout);
    // Entries from two loops: which one is found is an atom.
    let (_, verdict, out) = trace("trace/router", &["--entry", "gate.unknown_keys.TwoSourcesMoE"]);
    assert_eq!(verdict, "NEVER", "{}", out.stdout);
    assert!(out.json()["unresolved"].to_string().contains("finds one of the entries"), "{}", out.stdout);
    let atom = "outputs[self.config.layer_types[0]] is the key `layer_type`";
    assert_eq!(
        rows(&out),
        [("ONCE".into(), 1, atom.to_string()), ("NEVER".into(), 0, format!("not ({atom})"))],
        "{}",
        out.stdout
    );
}

#[test]
fn a_copy_of_a_config_reads_as_the_config_and_a_deep_copy_copies_what_it_holds() {
    // `layer_config = copy.deepcopy(config)`: its flags were new atoms, apart from the
    // config's, and the branches they correlate read TWICE and NEVER; read from a shallow
    // copy, the factor was no origin (NEVER). Both read as the config where nothing was
    // written into the copy: ONCE.
    for entry in ["DeepCopiedConfigMoE", "ShallowCopiedConfigMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.copies.{entry}")]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert_eq!(out.json()["atoms"].as_array().unwrap().len(), 1, "{entry}: {}", out.stdout);
    }
    // A deep copy's inner object is its own; a shallow copy shares it, so a flag turned on
    // through the copy is the original's (the original was copied unbuilt, and the copy built
    // objects of its own: ONCE).
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copies.DeepCopiedObjectMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.copies.ShallowCopiedObjectTwiceMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
    assert_eq!(rows(&out), [("TWICE".into(), 2, "always".into())]);
}

#[test]
fn layers_built_by_a_function_defined_in_the_constructor_are_built() {
    // `def layer_fn(idx, prefix): return ScaledBlock(config)` handed to `make_layers`: the
    // nested function was not counted as code the constructor runs, so the model was skipped
    // as never seeing the value: NEVER for the model, ONCE for the one that scales again.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.nested_builder.NestedBuilderForCausalLM"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.nested_builder.NestedBuilderTwiceForCausalLM"]);
    assert_eq!((code, verdict.as_str()), (1, "TWICE"), "{}", out.stdout);
}

#[test]
fn a_buffer_nothing_wrote_summed_into_the_output_reads_never() {
    // SGLang 0.5.13's top-1 fast path: the down projection writes into the output and skips
    // the top-k buffer, but with a factor the combine sums that buffer (a `torch.empty` nothing
    // wrote) into the output. Read as unscaled data, the empty buffer times the factor was ONCE.
    for entry in ["TopOneMoE", "TorchCombineTopOneMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.top_one_combine.{entry}")]);
        assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{entry}: {}", out.stdout);
        assert_eq!(
            rows(&out),
            [
                ("ONCE".into(), 1, "not (topk_ids.shape[1] == 1)".into()),
                ("NEVER".into(), 0, "topk_ids.shape[1] == 1".into())
            ],
            "{entry}"
        );
        let json = out.json();
        let never = json["rows"].as_array().unwrap().iter().find(|r| r["verdict"] == "NEVER").unwrap();
        assert_eq!(never["unwritten_at"].as_array().map(Vec::len), Some(1), "{entry}: {}", out.stdout);
        let text = run(&fixture("trace/router"), &["trace", "routed_scaling_factor", "--entry", entry]);
        assert!(text.stdout.contains("to a buffer nothing had written on this path"), "{}", text.stdout);
    }
    // A kernel handed the buffer fills it, though it reads its inputs out of objects; a buffer
    // no call fills holds nothing the code computed.
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filled_buffer.FilledBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{}", out.stdout);
    let (code, verdict, out) = trace("trace/router", &["--entry", "gate.filled_buffer.ForgottenBufferMoE"]);
    assert_eq!((code, verdict.as_str()), (1, "NEVER"), "{}", out.stdout);
    // Fixed (0.5.22): the buffer is written whenever the factor is not 1.
    for entry in ["FixedTopOneMoE", "FixedTorchCombineTopOneMoE"] {
        let (code, verdict, out) = trace("trace/router", &["--entry", &format!("gate.top_one_combine.{entry}")]);
        assert_eq!((code, verdict.as_str()), (0, "ONCE"), "{entry}: {}", out.stdout);
        assert_eq!(rows(&out), [("ONCE".into(), 1, "always".into())], "{entry}");
    }
}
