//! `list_sessions` cases: a valid window (with limit, mode, sort), then one mutation: missing,
//! mistyped, unparsable, reversed or absurd datetimes, bad limits, modes and sorts, and
//! cursors that are garbage, tampered, from another tool, or replayed under another filter.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::cases::{Arguments, Case, Mutation, any_real_id, mutate};
use super::hostile;
use super::known::{EVERYTHING_END, EVERYTHING_START, Known};
use super::oracle::{self, Expect, INVALID_REQUEST};
use super::rng::Rng;
use super::tampering;

const FIELDS: [&str; 6] = [
    "start_datetime",
    "end_datetime",
    "limit",
    "cursor",
    "mode",
    "sort",
];
const MODES: [&str; 4] = ["web_search", "mcp_internal", "tool_calling", "chat"];
const SORTS: [&str; 2] = ["desc", "asc"];

/// Datetimes with an explicit offset: RFC 3339, the ISO 8601 basic offset, fractions, and
/// years at and past the edges of a nanosecond timestamp.
const VALID_DATETIMES: [&str; 16] = [
    "2000-01-01T00:00:00Z",
    "2000-01-01T00:00:01Z",
    "1999-12-31T19:00:00-05:00",
    "2026-03-14T09:00:00-04:00",
    "2026-03-14T13:00:00.123456789+00:00",
    "2026-03-14T13:00:00.5Z",
    "2026-03-14T09:00:00+14:00",
    "2026-03-14T09:00:00-1200",
    "2100-01-01T00:00:00+00:00",
    "2262-04-11T23:47:16Z",
    "9999-12-31T23:59:59.999999999Z",
    "1970-01-01T00:00:00Z",
    "1677-09-21T00:12:44Z",
    "1900-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "2026-01-01T00:00:00+23:59",
];

/// Strings that are not timezone-explicit datetimes.
const INVALID_DATETIMES: [&str; 22] = [
    "",
    " ",
    "yesterday",
    "now",
    "2026-03-14",
    "2026-03-14T09:00:00",
    "2026-03-14 09:00:00",
    "2026-03-14T09:00",
    "2026-02-30T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-03-14T24:00:01Z",
    "2026-03-14T09:00:00+24:00",
    "2026-03-14T09:00:00Z ",
    " 2026-03-14T09:00:00Z",
    "2026-03-14T09:00:00Z\u{0}",
    "２０２６-03-14T09:00:00Z",
    "1710406800",
    "2026-03-14T09:00:00ZZ",
    "2026-03-14T09:00:00+05:30:00",
    "2026-W11-5T09:00:00Z",
    "10000-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
];

/// Other spellings of the instants of [`EVERYTHING_START`] and [`EVERYTHING_END`].
const EQUIVALENT_STARTS: [&str; 4] = [
    EVERYTHING_START,
    "1999-12-31T19:00:00-05:00",
    "2000-01-01T09:00:00.000+09:00",
    "2000-01-01T00:00:00+0000",
];
const EQUIVALENT_ENDS: [&str; 3] = [
    EVERYTHING_END,
    "2100-01-01T00:00:00+00:00",
    "2099-12-31T16:00:00-08:00",
];

/// Where a tampering mutation leaves its verdict for [`generate`] (removed before sending).
const TAMPER_VERDICT: &str = "\u{0}tamper_verdict";

const MUTATIONS: [Mutation; 25] = [
    ("valid", |_, _, _| {}),
    ("unknown_field", |rng, _, arguments| {
        arguments.insert(
            hostile::unknown_field(rng, &FIELDS),
            hostile::any_value(rng),
        );
    }),
    ("datetime:missing", |rng, _, arguments| {
        arguments.remove(*rng.pick(&["start_datetime", "end_datetime"]));
    }),
    ("datetime:null", |rng, _, arguments| {
        arguments.insert(pick_bound(rng), Value::Null);
    }),
    ("datetime:wrong_type", |rng, _, arguments| {
        arguments.insert(pick_bound(rng), hostile::non_string(rng));
    }),
    ("datetime:deep", |rng, _, arguments| {
        arguments.insert(pick_bound(rng), hostile::deep(rng, hostile::DEEPEST));
    }),
    ("datetime:unparsable", |rng, _, arguments| {
        let text = match rng.below(6) {
            0 => hostile::tricky_text(rng, &[]),
            1 if rng.one_in(4) => hostile::huge_text(rng),
            _ => (*rng.pick(&INVALID_DATETIMES)).to_owned(),
        };
        arguments.insert(pick_bound(rng), json!(text));
    }),
    ("window:reversed_or_empty", |rng, _, arguments| {
        let (early, late) = ordered_pair(rng);
        let (start, end) = if rng.one_in(3) {
            (late, late)
        } else {
            (late, early)
        };
        set_window(arguments, start, end);
    }),
    ("window:absurd_years", |rng, _, arguments| {
        let start = *rng.pick(&[
            "0001-01-01T00:00:00Z",
            "1677-09-21T00:12:44Z",
            "1900-01-01T00:00:00Z",
        ]);
        let end = *rng.pick(&["2262-04-11T23:47:16Z", "9999-12-31T23:59:59.999999999Z"]);
        set_window(arguments, start, end);
    }),
    ("limit:wrong_type", |rng, _, arguments| {
        arguments.insert("limit".into(), hostile::non_integer(rng));
    }),
    ("limit:out_of_range", |rng, _, arguments| {
        arguments.insert("limit".into(), hostile::out_of_range(rng, 1, 50));
    }),
    ("limit:edge", |rng, _, arguments| {
        arguments.insert("limit".into(), json!(rng.pick(&[1, 50])));
    }),
    ("mode:invalid", |rng, _, arguments| {
        arguments.insert(
            "mode".into(),
            bad_choice(rng, &["unknown", "CHAT", "chat ", "all", ""]),
        );
    }),
    ("sort:invalid", |rng, _, arguments| {
        arguments.insert(
            "sort".into(),
            bad_choice(rng, &["newest", "DESC", "ascending", "", "-1"]),
        );
    }),
    ("mode_and_sort:null", |_, _, arguments| {
        arguments.insert("mode".into(), Value::Null);
        arguments.insert("sort".into(), Value::Null);
    }),
    ("cursor:null", |_, _, arguments| {
        arguments.insert("cursor".into(), Value::Null);
    }),
    ("cursor:wrong_type", |rng, _, arguments| {
        let value = if rng.one_in(2) {
            hostile::non_string(rng)
        } else {
            hostile::deep(rng, hostile::DEEPEST)
        };
        arguments.insert("cursor".into(), value);
    }),
    ("cursor:garbage", |rng, _, arguments| {
        let text = match rng.below(5) {
            0 => hostile::tricky_text(rng, &[]),
            1 => hostile::blank(rng),
            2 if rng.one_in(4) => hostile::huge_text(rng),
            3 => "lsc1".to_owned(),
            _ => "bHNjMS4wMTIzNDU2Nzg5YWJjZGVm".to_owned(),
        };
        arguments.insert("cursor".into(), json!(text));
    }),
    ("cursor:other_tool", |rng, known, arguments| {
        let text = match rng.below(3) {
            0 => any_real_id(rng, known).to_owned(),
            1 => format!("{{\"next_cursor\":\"{}\"}}", known.cursors[0].cursor),
            _ => "null".to_owned(),
        };
        arguments.insert("cursor".into(), json!(text));
    }),
    ("cursor:valid", |rng, known, arguments| {
        apply_live_cursor(rng, known, arguments);
    }),
    ("cursor:changed_filter", |rng, known, arguments| {
        apply_live_cursor(rng, known, arguments);
        change_filter(rng, arguments);
    }),
    ("cursor:tampered", |rng, known, arguments| {
        apply_live_cursor(rng, known, arguments);
        let cursor = arguments["cursor"].as_str().unwrap_or_default().to_owned();
        let tampered = tampering::tamper(rng, &cursor, known);
        arguments.insert("cursor".into(), json!(tampered.cursor));
        arguments.insert(TAMPER_VERDICT.into(), json!(tampered.still_valid));
    }),
    ("mode:valid", |rng, _, arguments| {
        arguments.insert("mode".into(), json!(rng.pick(&MODES)));
    }),
    ("sort:valid", |rng, _, arguments| {
        arguments.insert("sort".into(), json!(rng.pick(&SORTS)));
    }),
    ("window:same_instant_other_offsets", |rng, _, arguments| {
        set_window(
            arguments,
            rng.pick_str(&EQUIVALENT_STARTS),
            rng.pick_str(&EQUIVALENT_ENDS),
        );
    }),
];

pub fn generate(rng: &mut Rng, known: &Known) -> Case {
    let mut arguments = valid_arguments(rng);
    let mutation = mutate(rng, known, &mut arguments, &MUTATIONS);
    // A tampered cursor's verdict comes from the tampering, not from the cursor text.
    let cursor = match arguments.remove(TAMPER_VERDICT) {
        Some(Value::Bool(false)) => Expect::Error(INVALID_REQUEST),
        Some(_) => Expect::Success,
        None => cursor_verdict(&arguments, known),
    };
    let expect = oracle::combine(&[
        oracle::known_fields(&arguments, &FIELDS),
        window_verdict(&arguments),
        oracle::integer_in(arguments.get("limit"), 1, 50),
        oracle::choice(arguments.get("mode"), &MODES),
        oracle::choice(arguments.get("sort"), &SORTS),
        cursor,
    ]);
    Case {
        tool: "list_sessions",
        arguments: Value::Object(arguments),
        mutation,
        expect,
    }
}

/// A window of two valid datetimes in order, sometimes with a limit, mode and sort.
fn valid_arguments(rng: &mut Rng) -> Arguments {
    let (start, end) = ordered_pair(rng);
    let mut arguments = Arguments::new();
    set_window(&mut arguments, start, end);
    if rng.one_in(2) {
        arguments.insert("limit".into(), json!(rng.between(1, 50)));
    }
    if rng.one_in(4) {
        arguments.insert("mode".into(), json!(rng.pick(&MODES)));
    }
    if rng.one_in(3) {
        arguments.insert("sort".into(), json!(rng.pick(&SORTS)));
    }
    arguments
}

fn pick_bound(rng: &mut Rng) -> String {
    (*rng.pick(&["start_datetime", "end_datetime"])).to_owned()
}

fn set_window(arguments: &mut Arguments, start: &str, end: &str) {
    arguments.insert("start_datetime".into(), json!(start));
    arguments.insert("end_datetime".into(), json!(end));
}

/// The instant of a datetime from [`VALID_DATETIMES`] or the equivalents; `None` otherwise.
fn instant(text: &str) -> Option<DateTime<Utc>> {
    let listed = VALID_DATETIMES.contains(&text)
        || EQUIVALENT_STARTS.contains(&text)
        || EQUIVALENT_ENDS.contains(&text);
    let parsed = DateTime::parse_from_rfc3339(text)
        .or_else(|_| DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f%z"));
    listed.then(|| parsed.expect("listed datetimes parse").with_timezone(&Utc))
}

/// Two valid datetimes, strictly earlier first.
fn ordered_pair(rng: &mut Rng) -> (&'static str, &'static str) {
    loop {
        let first = *rng.pick(&VALID_DATETIMES);
        let second = *rng.pick(&VALID_DATETIMES);
        match (instant(first), instant(second)) {
            (Some(a), Some(b)) if a < b => return (first, second),
            (Some(a), Some(b)) if b < a => return (second, first),
            _ => {}
        }
    }
}

/// Both bounds present, timezone-explicit, and end strictly after start.
fn window_verdict(arguments: &Arguments) -> Expect {
    let bound = |name: &str| {
        arguments
            .get(name)
            .and_then(Value::as_str)
            .and_then(instant)
    };
    match (bound("start_datetime"), bound("end_datetime")) {
        (Some(start), Some(end)) if end > start => Expect::Success,
        _ => Expect::Error(INVALID_REQUEST),
    }
}

/// A string cursor must be one of the live cursors, replayed with the same window instants,
/// sort and mode.
fn cursor_verdict(arguments: &Arguments, known: &Known) -> Expect {
    let Some(cursor) = arguments.get("cursor").filter(|value| !value.is_null()) else {
        return Expect::Success;
    };
    let live = known
        .cursors
        .iter()
        .find(|live| cursor.as_str() == Some(live.cursor.as_str()));
    let same_filter = |sort: &str| {
        let text = |name: &str| arguments.get(name).and_then(Value::as_str).unwrap_or("");
        instant(text("start_datetime")) == instant(EVERYTHING_START)
            && instant(text("end_datetime")) == instant(EVERYTHING_END)
            && arguments.get("mode").is_none_or(Value::is_null)
            && arguments
                .get("sort")
                .and_then(Value::as_str)
                .unwrap_or("desc")
                == sort
    };
    match live {
        Some(live) if same_filter(live.sort) => Expect::Success,
        _ => Expect::Error(INVALID_REQUEST),
    }
}

/// The live cursor's own filter (in any spelling), with a valid limit or none.
fn apply_live_cursor(rng: &mut Rng, known: &Known, arguments: &mut Arguments) {
    let live = rng.pick(&known.cursors);
    arguments.clear();
    set_window(
        arguments,
        rng.pick_str(&EQUIVALENT_STARTS),
        rng.pick_str(&EQUIVALENT_ENDS),
    );
    arguments.insert("cursor".into(), json!(live.cursor));
    match (live.sort, rng.below(3)) {
        ("desc", 0) => {}
        ("desc", 1) => _ = arguments.insert("sort".into(), Value::Null),
        (sort, _) => _ = arguments.insert("sort".into(), json!(sort)),
    }
    if rng.one_in(2) {
        arguments.insert("limit".into(), json!(rng.between(1, 50)));
    }
}

/// Changes the sort, the mode or one bound of the window.
fn change_filter(rng: &mut Rng, arguments: &mut Arguments) {
    match rng.below(4) {
        0 => {
            let flipped = match arguments.get("sort").and_then(Value::as_str) {
                Some("asc") => "desc",
                _ => "asc",
            };
            arguments.insert("sort".into(), json!(flipped));
        }
        1 => _ = arguments.insert("mode".into(), json!(rng.pick(&MODES))),
        2 => _ = arguments.insert("start_datetime".into(), json!("2000-01-01T00:00:01Z")),
        _ => _ = arguments.insert("end_datetime".into(), json!("2262-04-11T23:47:16Z")),
    }
}

/// A non-null value that is not one of the choices.
fn bad_choice(rng: &mut Rng, names: &[&str]) -> Value {
    match rng.below(4) {
        0 => hostile::non_string(rng),
        1 => json!(hostile::tricky_text(rng, &[])),
        _ => json!(rng.pick(names)),
    }
}
