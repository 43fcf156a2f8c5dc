//! JSON output: the answer structs serialized as they are (schema in docs/json.md), with a
//! trailing newline. Field order is the struct order, so output is stable.

pub fn to_string<T: serde::Serialize>(answer: &T) -> String {
    let mut out = serde_json::to_string_pretty(answer)
        .unwrap_or_else(|err| format!("{{\"error\": \"cannot serialize: {err}\"}}"));
    out.push('\n');
    out
}
