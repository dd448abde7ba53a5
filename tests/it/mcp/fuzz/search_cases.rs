//! `search_sessions` cases: a valid request (random query, scope, types, hit count), then one
//! mutation of one field: wrong types, blank/huge/unicode queries, malformed or unknown or
//! event scopes, bad event type lists, out-of-range hit counts, unknown fields.

use serde_json::{Value, json};

use super::cases::{Arguments, Case, Mutation, any_real_id, mutate};
use super::hostile;
use super::known::Known;
use super::oracle::{self, SEARCHABLE_TYPES};
use super::rng::Rng;

const FIELDS: [&str; 6] = [
    "query",
    "within_id",
    "event_types",
    "n_hits",
    "harness",
    "source",
];

/// Event type names outside the searchable vocabulary.
const UNSUPPORTED_TYPES: [&str; 12] = [
    "unknown",
    "debug_trace",
    "USER_INPUT",
    "User_Input",
    " user_input",
    "user_input ",
    "user-input",
    "",
    "tool_calls",
    "\u{0}",
    "user_input\u{200b}",
    "ｕｓｅｒ_input",
];

const MUTATIONS: [Mutation; 26] = [
    ("valid", |_, _, _| {}),
    ("unknown_field", |rng, _, arguments| {
        arguments.insert(
            hostile::unknown_field(rng, &FIELDS),
            hostile::any_value(rng),
        );
    }),
    ("query:missing", |_, _, arguments| {
        arguments.remove("query");
    }),
    ("query:null", |_, _, arguments| {
        arguments.insert("query".into(), Value::Null);
    }),
    ("query:wrong_type", |rng, _, arguments| {
        arguments.insert("query".into(), hostile::non_string(rng));
    }),
    ("query:deep", |rng, _, arguments| {
        arguments.insert("query".into(), hostile::deep(rng, hostile::DEEPEST));
    }),
    ("query:blank", |rng, _, arguments| {
        arguments.insert("query".into(), json!(hostile::blank(rng)));
    }),
    ("query:unicode", |rng, known, arguments| {
        arguments.insert(
            "query".into(),
            json!(hostile::tricky_text(rng, &known.words)),
        );
    }),
    ("query:length_edge", |rng, _, arguments| {
        let chars = *rng.pick(&[4095, 4096, 4097, 5000]);
        let padding = hostile::blank(rng);
        let text = format!("{padding}{}{padding}", hostile::text_of_chars(rng, chars));
        arguments.insert("query".into(), json!(text));
    }),
    ("query:huge", |rng, _, arguments| {
        arguments.insert("query".into(), json!(hostile::huge_text(rng)));
    }),
    ("within_id:null", |_, _, arguments| {
        arguments.insert("within_id".into(), Value::Null);
    }),
    ("within_id:wrong_type", |rng, _, arguments| {
        arguments.insert("within_id".into(), hostile::non_string(rng));
    }),
    ("within_id:deep", |rng, _, arguments| {
        arguments.insert("within_id".into(), hostile::deep(rng, hostile::DEEPEST));
    }),
    ("within_id:blank", |rng, _, arguments| {
        arguments.insert("within_id".into(), json!(hostile::blank(rng)));
    }),
    ("within_id:malformed", |rng, known, arguments| {
        let real = any_real_id(rng, known);
        let id = hostile::malformed_id(rng, real);
        arguments.insert("within_id".into(), json!(id));
    }),
    ("within_id:unknown", |rng, known, arguments| {
        let prefix = *rng.pick(&["session:", "turn:", "event:"]);
        let real = any_real_id(rng, known);
        let id = hostile::well_formed_id(rng, prefix, real);
        arguments.insert("within_id".into(), json!(id));
    }),
    ("within_id:event", |rng, known, arguments| {
        arguments.insert("within_id".into(), json!(rng.pick(&known.events)));
    }),
    ("event_types:wrong_type", |rng, _, arguments| {
        arguments.insert("event_types".into(), hostile::non_array(rng));
    }),
    ("event_types:empty", |_, _, arguments| {
        arguments.insert("event_types".into(), json!([]));
    }),
    ("event_types:non_string_entry", |rng, _, arguments| {
        let intruder = match rng.below(3) {
            0 => Value::Null,
            1 => hostile::non_string(rng),
            // One level inside the list: the deepest that still reaches the server.
            _ => hostile::deep(rng, hostile::DEEPEST - 1),
        };
        arguments.insert("event_types".into(), types_with(rng, intruder));
    }),
    ("event_types:unsupported", |rng, _, arguments| {
        let name = match rng.below(8) {
            0 => hostile::tricky_text(rng, &[]),
            1 if rng.one_in(4) => hostile::huge_text(rng),
            _ => (*rng.pick(&UNSUPPORTED_TYPES)).to_owned(),
        };
        arguments.insert("event_types".into(), types_with(rng, json!(name)));
    }),
    ("event_types:duplicates", |rng, _, arguments| {
        let name = *rng.pick(&SEARCHABLE_TYPES);
        arguments.insert("event_types".into(), types_with(rng, json!(name)));
    }),
    ("n_hits:wrong_type", |rng, _, arguments| {
        arguments.insert("n_hits".into(), hostile::non_integer(rng));
    }),
    ("n_hits:out_of_range", |rng, _, arguments| {
        arguments.insert("n_hits".into(), hostile::out_of_range(rng, 1, 50));
    }),
    ("n_hits:edge", |rng, _, arguments| {
        arguments.insert("n_hits".into(), json!(rng.pick(&[1, 50])));
    }),
    ("n_hits:deep", |rng, _, arguments| {
        arguments.insert("n_hits".into(), hostile::deep(rng, hostile::DEEPEST));
    }),
];

pub fn generate(rng: &mut Rng, known: &Known) -> Case {
    let mut arguments = valid_arguments(rng, known);
    let mutation = mutate(rng, known, &mut arguments, &MUTATIONS);
    let expect = oracle::combine(&[
        oracle::known_fields(&arguments, &FIELDS),
        oracle::query(arguments.get("query")),
        oracle::within_id(arguments.get("within_id"), known),
        oracle::event_types(arguments.get("event_types")),
        oracle::integer_in(arguments.get("n_hits"), 1, 50),
    ]);
    Case {
        tool: "search_sessions",
        arguments: Value::Object(arguments),
        mutation,
        expect,
    }
}

/// A request that must succeed: a matching or unicode query, maybe a real scope, maybe a
/// non-empty type list, maybe a hit count.
fn valid_arguments(rng: &mut Rng, known: &Known) -> Arguments {
    let mut arguments = Arguments::new();
    let query = match rng.below(3) {
        0 => hostile::tricky_text(rng, &known.words),
        1 => format!("  {} {}\n", rng.pick(&known.words), rng.pick(&known.words)),
        _ => rng.pick(&known.words).clone(),
    };
    arguments.insert("query".into(), json!(query));
    match rng.below(4) {
        0 => _ = arguments.insert("within_id".into(), json!(rng.pick(&known.sessions))),
        1 => _ = arguments.insert("within_id".into(), json!(rng.pick(&known.turns))),
        _ => {}
    }
    if rng.one_in(2) {
        arguments.insert("event_types".into(), types_with(rng, json!("tool_call")));
    }
    if rng.one_in(2) {
        arguments.insert("n_hits".into(), json!(rng.between(1, 50)));
    }
    arguments
}

/// Some searchable type names in random order with `extra` at a random position.
fn types_with(rng: &mut Rng, extra: Value) -> Value {
    let mut names: Vec<Value> = (0..rng.below(4))
        .map(|_| json!(rng.pick(&SEARCHABLE_TYPES)))
        .collect();
    let position = rng.below(names.len() + 1);
    names.insert(position, extra);
    Value::Array(names)
}
