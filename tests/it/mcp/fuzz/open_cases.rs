//! `open` cases: a real id, then every malformed, blank, mistyped, unknown or oversized shape.

use serde_json::{Value, json};

use super::cases::{Arguments, Case, Mutation, any_real_id, mutate};
use super::hostile;
use super::known::Known;
use super::oracle;
use super::rng::Rng;

/// The fields open accepts (`sessions` is exercised by `mcp::chains`).
const FIELDS: [&str; 4] = ["id", "sessions", "limit", "cursor"];

const MUTATIONS: [Mutation; 11] = [
    ("valid", |_, _, _| {}),
    ("unknown_field", |rng, _, arguments| {
        arguments.insert(
            hostile::unknown_field(rng, &FIELDS),
            hostile::any_value(rng),
        );
    }),
    ("id:missing", |_, _, arguments| {
        arguments.remove("id");
    }),
    ("id:null", |_, _, arguments| {
        arguments.insert("id".into(), Value::Null);
    }),
    ("id:wrong_type", |rng, _, arguments| {
        arguments.insert("id".into(), hostile::non_string(rng));
    }),
    ("id:deep", |rng, _, arguments| {
        arguments.insert("id".into(), hostile::deep(rng, hostile::DEEPEST));
    }),
    ("id:blank", |rng, _, arguments| {
        arguments.insert("id".into(), json!(hostile::blank(rng)));
    }),
    ("id:malformed", |rng, known, arguments| {
        let real = any_real_id(rng, known);
        let id = hostile::malformed_id(rng, real);
        arguments.insert("id".into(), json!(id));
    }),
    ("id:unknown", |rng, known, arguments| {
        let prefix = *rng.pick(&["session:", "turn:", "event:"]);
        let real = any_real_id(rng, known);
        let id = hostile::well_formed_id(rng, prefix, real);
        arguments.insert("id".into(), json!(id));
    }),
    ("id:kind_swapped", |rng, known, arguments| {
        let real = any_real_id(rng, known);
        let body = real.split_once(':').map_or(real, |(_, body)| body);
        let prefix = *rng.pick(&["session:", "turn:", "event:"]);
        arguments.insert("id".into(), json!(format!("{prefix}{body}")));
    }),
    ("id:huge", |rng, _, arguments| {
        let prefix = *rng.pick(&["session:", "turn:", "event:", ""]);
        let id = format!("{prefix}{}", hostile::huge_text(rng));
        arguments.insert("id".into(), json!(id));
    }),
];

pub fn generate(rng: &mut Rng, known: &Known) -> Case {
    let mut arguments = Arguments::new();
    arguments.insert("id".into(), json!(any_real_id(rng, known)));
    let mutation = mutate(rng, known, &mut arguments, &MUTATIONS);
    let expect = oracle::combine(&[
        oracle::known_fields(&arguments, &FIELDS),
        oracle::open_id(arguments.get("id"), known),
    ]);
    Case {
        tool: "open",
        arguments: Value::Object(arguments),
        mutation,
        expect,
    }
}
