//! Hostile JSON values and strings: wrong types, numbers at and past every edge, deep nesting,
//! unicode edge cases, blank and huge strings, malformed and well-formed-but-unknown ids.

use serde_json::{Value, json};

use super::rng::Rng;

/// Deepest nesting of a generated argument value. A `tools/call` line nests the arguments
/// three containers deep and serde_json (both ends) stops at 127 nested containers, so 124
/// is the deepest value that still reaches the server; its error envelope echoes it one level
/// deeper still.
pub const DEEPEST: usize = 124;

/// One mebibyte of text.
pub const HUGE: usize = 1 << 20;

/// Unicode edge cases and injection-looking text; none is blank after trimming.
const TRICKY: [&str; 40] = [
    "\u{0}",
    "a\u{0}b",
    "\u{202e}evil\u{202c} text",
    "\u{200f}שלום\u{200e}",
    "مرحبا بالعالم",
    "🦀🔥",
    "👨\u{200d}👩\u{200d}👧\u{200d}👦",
    "🏳\u{fe0f}\u{200d}🌈",
    "e\u{301}\u{302}\u{303}\u{304}",
    "\u{301}",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈",
    "\u{feff}bom",
    "\u{200b}",
    "\u{fffd}",
    "\u{10ffff}",
    "\u{e000}",
    "' OR 1=1 --",
    "\"; DROP TABLE events; --",
    "../../../etc/passwd",
    "%2e%2e%2f%00",
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "\\",
    "\"",
    "a\nb\r\nc\td",
    "AND OR NOT",
    "title:foo",
    "foo~2 bar^3",
    "\"unbalanced",
    "((([[[{{{",
    "*?+-&&||!^~:",
    "\u{1b}[31mred\u{1b}[0m",
    "ｐａｒｑｕｅｔ",
    "İstanbul ß ﬁ",
    "Z\u{334}\u{321}\u{32a}a\u{337}l\u{337}g\u{337}o",
    "null",
    "true",
    "0",
    "NaN",
    "-Infinity",
];

/// Strings that trim to nothing (`char::is_whitespace`, i.e. Unicode White_Space).
const BLANK: [&str; 8] = [
    "",
    " ",
    "\t\n\r ",
    "\u{3000}",
    "\u{a0}\u{2003}",
    "\u{2028}\u{2029}",
    "\u{85}",
    "\u{1680} \u{205f}",
];

/// Text for one grapheme-heavy, wide or plain run of `chars` characters.
pub fn text_of_chars(rng: &mut Rng, chars: usize) -> String {
    match rng.below(4) {
        0 => "x".repeat(chars),
        1 => "🦀".repeat(chars),
        2 if chars > 0 => format!("e{}", "\u{301}".repeat(chars - 1)),
        _ => "é".repeat(chars),
    }
}

/// A non-blank string with unicode edge cases, possibly mixed with a real word.
pub fn tricky_text(rng: &mut Rng, words: &[String]) -> String {
    let mut parts: Vec<String> = (0..rng.between(1, 3))
        .map(|_| (*rng.pick(&TRICKY)).to_owned())
        .collect();
    if !words.is_empty() && rng.one_in(2) {
        parts.push(rng.pick(words).clone());
    }
    parts.join(" ")
}

pub fn blank(rng: &mut Rng) -> String {
    (*rng.pick(&BLANK)).to_owned()
}

/// A one-mebibyte string (plain or 4-byte characters).
pub fn huge_text(rng: &mut Rng) -> String {
    if rng.one_in(2) {
        "q".repeat(HUGE)
    } else {
        "𝔮".repeat(HUGE / 4)
    }
}

/// Arrays or objects nested `depth` deep around `leaf`.
pub fn nested(depth: usize, leaf: Value, as_objects: bool) -> Value {
    (0..depth).fold(leaf, |inner, _| {
        if as_objects {
            json!({ "a": inner })
        } else {
            Value::Array(vec![inner])
        }
    })
}

/// A container (never a string or null) nested up to `deepest` levels, biased to the deepest.
pub fn deep(rng: &mut Rng, deepest: usize) -> Value {
    let depth = if rng.one_in(2) {
        rng.between(deepest - 4, deepest)
    } else {
        rng.between(1, deepest)
    };
    nested(depth, json!("leaf"), rng.one_in(2))
}

/// JSON numbers that are not integers.
const FRACTIONAL_NUMBERS: [&str; 7] = ["2.5", "10.0", "1e1", "-0.0", "1e308", "-1e308", "5e-324"];

/// Strings that merely look like numbers.
const NUMBERISH_STRINGS: [&str; 14] = [
    "10", "NaN", "Infinity", "-0", "0x10", "1_0", " 5", "5 ", "one", "½", "٥", "+5", "-", "1/2",
];

fn fractional_number(rng: &mut Rng) -> Value {
    serde_json::from_str(rng.pick_str(&FRACTIONAL_NUMBERS)).expect("a JSON number")
}

/// Any JSON value that is not a string and not null.
pub fn non_string(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!(true),
        1 => json!(false),
        2 => json!(rng.next_u64() as i64),
        3 => fractional_number(rng),
        4 => json!(["session:x"]),
        5 => json!({ "id": "session:x" }),
        6 => json!([]),
        _ => json!({}),
    }
}

/// Any JSON value that is not an integer number and not null.
pub fn non_integer(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => fractional_number(rng),
        1 => json!(true),
        2 => json!([5]),
        3 => json!({ "value": 5 }),
        4 => json!(""),
        _ => json!(rng.pick(&NUMBERISH_STRINGS)),
    }
}

/// Integers outside `min..=max`, including the extremes of i64 and u64.
pub fn out_of_range(rng: &mut Rng, min: i64, max: i64) -> Value {
    match rng.below(7) {
        0 => json!(min - 1),
        1 => json!(max + 1),
        2 => json!(i64::MIN),
        3 => json!(i64::MAX),
        4 => json!(u64::MAX),
        5 => json!(-(rng.between(1, 1_000_000) as i64)),
        _ => json!(max + 1 + rng.below(1 << 40) as i64),
    }
}

/// Any JSON value that is not an array and not null.
pub fn non_array(rng: &mut Rng) -> Value {
    match rng.below(5) {
        0 => json!("user_input"),
        1 => json!("user_input,tool_call"),
        2 => json!(3),
        3 => json!(true),
        _ => json!({ "0": "user_input" }),
    }
}

/// Unknown field names, some a hair away from real ones.
const FIELD_NAMES: [&str; 16] = [
    "",
    "Query",
    "QUERY",
    "query ",
    " id",
    "n_hits\u{0}",
    "within_id\u{200b}",
    "__proto__",
    "constructor",
    "limit",
    "n_hits",
    "query",
    "id",
    "page",
    "𝔮𝔲𝔢𝔯𝔶",
    "$where",
];

/// A field name not in `allowed` (sometimes 10k characters long).
pub fn unknown_field(rng: &mut Rng, allowed: &[&str]) -> String {
    if rng.one_in(10) {
        return "f".repeat(10_000);
    }
    loop {
        let name = *rng.pick(&FIELD_NAMES);
        if !allowed.contains(&name) {
            return name.to_owned();
        }
    }
}

/// A value of any shape, for fields the server must not look at.
pub fn any_value(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => non_string(rng),
        1 => json!(tricky_text(rng, &["word".to_owned()])),
        2 => Value::Null,
        _ => deep(rng, DEEPEST),
    }
}

const ID_PREFIXES: [&str; 3] = ["session:", "turn:", "event:"];
const ID_BODY_CHARS: &[u8] = b"ABCDEFabcdef0123456789_-xyzXYZ";

/// Ids that break the grammar `^(session|turn|event):[A-Za-z0-9_-]{1,256}$` (and are not blank).
pub fn malformed_id(rng: &mut Rng, real_id: &str) -> String {
    let body = real_id.split_once(':').map_or(real_id, |(_, body)| body);
    match rng.below(20) {
        0 => (*rng.pick(&ID_PREFIXES)).to_owned(),
        1 => format!("message:{body}"),
        2 => body.to_owned(),
        3 => real_id.to_uppercase(),
        4 => format!(" {real_id}"),
        5 => format!("{real_id}\n"),
        6 => format!("{real_id}\u{0}"),
        7 => format!("turn:turn_../../{body}"),
        8 => format!("../{real_id}"),
        9 => "session:' OR 1=1 --".to_owned(),
        10 => real_id.replacen(':', "%3A", 1),
        11 => format!("event:evt_%41%42{body}"),
        12 => format!("{}{}", rng.pick(&ID_PREFIXES), "a".repeat(257)),
        13 => format!("event:{}", "a".repeat(10_000)),
        14 => format!("{real_id}:{body}"),
        15 => real_id.replacen(':', "::", 1),
        16 => format!("{}é{body}", rng.pick(&ID_PREFIXES)),
        17 => format!("{real_id}\u{202e}"),
        18 => format!("{}{}", rng.pick(&ID_PREFIXES), tricky_text(rng, &[])),
        _ => tricky_text(rng, &[]),
    }
}

/// Grammatical ids that name nothing: random bodies, wrong hash lengths, changed case.
pub fn well_formed_id(rng: &mut Rng, kind_prefix: &str, real_id: &str) -> String {
    let real_body = real_id.split_once(':').map_or(real_id, |(_, body)| body);
    let length = rng.between(1, 64);
    let body = match rng.below(6) {
        0 => random_body(rng, length),
        1 => format!("turn_{}", random_hex(rng, length.min(40))),
        2 => real_body.to_uppercase(),
        3 => format!("{real_body}0"),
        4 => random_body(rng, 256),
        _ => (*rng.pick(&["-", "_", "0", "---", "evt_", "ses_01J9DOESNOTEXIST"])).to_owned(),
    };
    format!("{kind_prefix}{body}")
}

fn random_body(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|_| char::from(*rng.pick(ID_BODY_CHARS)))
        .collect()
}

fn random_hex(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|_| char::from(*rng.pick(b"0123456789abcdefABCDEF")))
        .collect()
}
