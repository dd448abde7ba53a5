//! Assignments of secrets to secret-looking names: `password=…`, `"api_secret": "…"`,
//! `export AWS_SECRET_ACCESS_KEY=…`, `access_token: "eyJ…\n…"` (a value wrapped over lines), and
//! JSON object entries whose key is such a name.
//!
//! Names come in two tiers. **Strong** names (password, passwd, pwd, secret, api_key,
//! private_key, access/auth/refresh/session token, optionally followed by `key`, `token`,
//! `value`, …) redact any value that is not a placeholder or code. **Weak** names (`*_token`,
//! `*_key`: `github_token`, `service_role_key`, `openkey`) redact only values that look
//! random: the generic high-entropy rule.

use super::MARKER_PREFIX;
use super::context::is_token_byte;
use super::kind::{Finding, SecretKind};
use super::rules::shannon_entropy;

/// Minimum length of an assigned value before it is treated as a secret.
const MIN_ASSIGNED_VALUE_LEN: usize = 4;

/// A quoted value may span lines only when it is a token wrapped over them; this bounds the
/// search for its closing quote.
const MAX_WRAPPED_VALUE_LEN: usize = 16 * 1024;

/// Values for weak names: at least this long and this random (bits per character).
const MIN_RANDOM_VALUE_LEN: usize = 16;
const MIN_RANDOM_VALUE_ENTROPY: f64 = 3.5;

/// Lines of a wrapped token, except the last, are at least this long.
const MIN_WRAPPED_LINE_LEN: usize = 16;

/// How an assigned value was written; decides which validity rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueStyle {
    Quoted,
    Bare,
}

/// The assigned value, as a byte range of the whole text.
#[derive(Debug, Clone, Copy)]
struct AssignedValue<'t> {
    text: &'t str,
    start: usize,
    end: usize,
    style: ValueStyle,
}

/// How much a key name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameTier {
    Strong,
    Weak,
}

/// Allowed continuations of a keyword inside the key (lowercase, `_`/`-`
/// removed): `SECRET_ACCESS_KEY`, `api_key_value`, `PASSWORD`, ...
const KEY_SUFFIXES: &[&str] = &[
    "",
    "accesskey",
    "key",
    "keybase",
    "token",
    "value",
    "str",
    "string",
];

/// Strong keywords as they appear in a normalized (lowercase, no `_`/`-`) key.
const STRONG_KEYWORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "apikey",
    "privatekey",
    "accesstoken",
    "authtoken",
    "refreshtoken",
    "sessiontoken",
];

/// Bytes that end an unquoted value (and may not start one, plus `=`).
fn ends_bare_value(byte: u8) -> bool {
    byte.is_ascii_whitespace() || b"\"'`,;(){}[]<>\\&".contains(&byte)
}

/// `hit` is the range of an assignment trigger literal (any case).
/// Returns where the next trigger may start: after the parsed value, whether or
/// not it was a secret (a rejected value holding blanks only skips the keyword).
pub(super) fn find_assignment_at(
    text: &str,
    hit: std::ops::Range<usize>,
    findings: &mut Vec<Finding<'_>>,
) -> Option<usize> {
    let (keyword, tier) = resolve_keyword(text.as_bytes(), hit)?;
    let value = parse_assignment(text, keyword.end, tier)?;
    let key = assignment_key(text, keyword.start, value.start);
    if tier == NameTier::Weak && key.len() <= 3 && key.eq_ignore_ascii_case("key") {
        return Some(keyword.end);
    }
    if is_secret_value(text, key, value, tier) {
        findings.push(Finding::contextual(
            value.start,
            value.end,
            assignment_kind(key),
        ));
        return Some(value.end);
    }
    // A rejected value holding blanks (`TOKEN='client_secret: "…"'`) may hold an assignment.
    let may_nest = value.text.bytes().any(|byte| byte.is_ascii_whitespace());
    Some(if may_nest { keyword.end } else { value.end })
}

/// The kind to redact a JSON object entry's string value with, when its key is a
/// secret-looking name and the value looks like a secret (see [`NameTier`]).
pub(super) fn object_entry_kind(key: &str, value: &str) -> Option<SecretKind> {
    let tier = classify_key(key)?;
    let plausible = match tier {
        NameTier::Strong => {
            !is_placeholder_value(value)
                && !is_working_directory(key, value)
                && (!value.chars().any(char::is_whitespace) || is_wrapped_token(value))
                && !is_type_or_literal_name(value)
                && !repeats_key_keyword(key, value)
        }
        NameTier::Weak => looks_random(value, key),
    };
    plausible.then(|| assignment_kind(key))
}

/// The tier of a whole key name, if it names a secret.
pub(super) fn classify_key(key: &str) -> Option<NameTier> {
    const STEMS: &[&str] = &["pass", "pwd", "secret", "key", "token"];
    if key.len() > 64 || !STEMS.iter().any(|stem| contains_ignore_case(key, stem)) {
        return None;
    }
    let normalized: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let strong = STRONG_KEYWORDS.iter().any(|keyword| {
        normalized
            .match_indices(keyword)
            .any(|(start, _)| KEY_SUFFIXES.contains(&&normalized[start + keyword.len()..]))
    });
    if strong {
        Some(NameTier::Strong)
    } else if normalized.ends_with("token") || (normalized.ends_with("key") && normalized.len() > 3)
    {
        Some(NameTier::Weak)
    } else {
        None
    }
}

/// Extends a trigger literal to the whole keyword: `passw` to `password` or
/// `passwd`, `api`/`private` to `api_key`/`private-key`/`privatekey`, and
/// `token` back to `access_token`, `authtoken`, `refresh-token`, `session_token`
/// (any other `…token`, and `…key`, is a weak name).
fn resolve_keyword(
    bytes: &[u8],
    hit: std::ops::Range<usize>,
) -> Option<(std::ops::Range<usize>, NameTier)> {
    let literal = &bytes[hit.clone()];
    let extend_with = |rests: &[&str]| {
        rests
            .iter()
            .find(|rest| starts_with_ignore_case(&bytes[hit.end..], rest))
            .map(|rest| (hit.start..hit.end + rest.len(), NameTier::Strong))
    };
    if literal.eq_ignore_ascii_case(b"passw") {
        extend_with(&["ord", "d"])
    } else if literal.eq_ignore_ascii_case(b"api") || literal.eq_ignore_ascii_case(b"private") {
        extend_with(&["_key", "-key", "key"])
    } else if literal.eq_ignore_ascii_case(b"token") {
        Some(match token_keyword_start(&bytes[..hit.start]) {
            Some(start) => (start..hit.end, NameTier::Strong),
            None => (hit, NameTier::Weak),
        })
    } else if literal.eq_ignore_ascii_case(b"key") {
        Some((hit, NameTier::Weak))
    } else {
        Some((hit, NameTier::Strong))
    }
}

/// Start of `access`/`auth`/`refresh`/`session` plus optional `_`/`-` right before `token`.
fn token_keyword_start(before: &[u8]) -> Option<usize> {
    let without_separator = match before.last() {
        Some(b'_' | b'-') => &before[..before.len() - 1],
        _ => before,
    };
    ["access", "auth", "refresh", "session"]
        .iter()
        .find(|word| ends_with_ignore_case(without_separator, word))
        .map(|word| without_separator.len() - word.len())
}

fn starts_with_ignore_case(haystack: &[u8], prefix: &str) -> bool {
    haystack
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

fn ends_with_ignore_case(haystack: &[u8], suffix: &str) -> bool {
    haystack
        .len()
        .checked_sub(suffix.len())
        .is_some_and(|start| haystack[start..].eq_ignore_ascii_case(suffix.as_bytes()))
}

/// Parses `<key rest><quote?><blanks><separator><blanks><value>` starting
/// right after the keyword. Separators: `=`, `:`, `:=`, `=>` (not `==`).
/// A weak keyword must end the key (`github_token`, not `token_count`).
fn parse_assignment(text: &str, keyword_end: usize, tier: NameTier) -> Option<AssignedValue<'_>> {
    let bytes = text.as_bytes();
    let key_end = skip_while(bytes, keyword_end, is_token_byte);
    let suffix = &bytes[keyword_end..key_end];
    let suffix_allowed = match tier {
        NameTier::Strong => is_allowed_key_suffix(suffix),
        NameTier::Weak => suffix.is_empty(),
    };
    if !suffix_allowed {
        return None;
    }
    let mut position = skip_key_closing_quote(bytes, key_end);
    position = skip_while(bytes, position, |byte| byte == b' ' || byte == b'\t');
    position = skip_separator(bytes, position)?;
    position = skip_while(bytes, position, |byte| byte == b' ' || byte == b'\t');
    parse_value(text, position)
}

fn skip_while(bytes: &[u8], start: usize, keep_going: impl Fn(u8) -> bool) -> usize {
    bytes[start..]
        .iter()
        .position(|&byte| !keep_going(byte))
        .map_or(bytes.len(), |offset| start + offset)
}

fn is_allowed_key_suffix(rest: &[u8]) -> bool {
    if rest.len() > 16 {
        return false;
    }
    let normalized: Vec<u8> = rest
        .iter()
        .filter(|&&byte| byte != b'_' && byte != b'-')
        .map(u8::to_ascii_lowercase)
        .collect();
    KEY_SUFFIXES
        .iter()
        .any(|suffix| suffix.as_bytes() == normalized.as_slice())
}

fn skip_key_closing_quote(bytes: &[u8], position: usize) -> usize {
    match bytes.get(position..) {
        Some([b'\\', b'"' | b'\'', ..]) => position + 2,
        Some([b'"' | b'\'', ..]) => position + 1,
        _ => position,
    }
}

fn skip_separator(bytes: &[u8], position: usize) -> Option<usize> {
    match bytes.get(position..)? {
        [b':', b'=', ..] | [b'=', b'>', ..] => Some(position + 2),
        [b'=', b'=', ..] => None,
        [b':' | b'=', ..] => Some(position + 1),
        _ => None,
    }
}

fn parse_value(text: &str, start: usize) -> Option<AssignedValue<'_>> {
    let bytes = text.as_bytes();
    let (content_start, content_end, style) = match bytes.get(start..)? {
        [b'\\', b'"', ..] => (
            start + 2,
            escaped_quoted_end(bytes, start + 2)?,
            ValueStyle::Quoted,
        ),
        [b'"', ..] => (
            start + 1,
            double_quoted_end(bytes, start + 1)?,
            ValueStyle::Quoted,
        ),
        [b'\'', ..] => (
            start + 1,
            single_quoted_end(bytes, start + 1)?,
            ValueStyle::Quoted,
        ),
        [first, ..] if !ends_bare_value(*first) && *first != b'=' => (
            start,
            skip_while(bytes, start, |byte| !ends_bare_value(byte)),
            ValueStyle::Bare,
        ),
        _ => return None,
    };
    Some(AssignedValue {
        text: text.get(content_start..content_end)?,
        start: content_start,
        end: content_end,
        style,
    })
}

/// End of a `"…"` value whose content starts at `start` (backslash escapes
/// allowed; raw newlines only within [`MAX_WRAPPED_VALUE_LEN`]): the offset of the closing quote.
fn double_quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let limit = (start + MAX_WRAPPED_VALUE_LEN).min(bytes.len());
    let mut position = start;
    while position < limit {
        match bytes[position] {
            b'"' => return Some(position),
            b'\\' => position += 2,
            _ => position += 1,
        }
    }
    None
}

/// End of a `\"…\"` value (inside an encoded JSON string) whose content starts at `start`:
/// the offset of the closing `\"`. Other escapes (`\n`) are part of the value; a bare `"`
/// ends the encoded string, so the value is not closed.
fn escaped_quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let limit = (start + MAX_WRAPPED_VALUE_LEN).min(bytes.len());
    let mut position = start;
    while position < limit {
        match bytes[position] {
            b'"' => return None,
            b'\\' if bytes.get(position + 1) == Some(&b'"') => return Some(position),
            b'\\' => position += 2,
            _ => position += 1,
        }
    }
    None
}

/// End of a `'…'` value (no escapes), within [`MAX_WRAPPED_VALUE_LEN`].
fn single_quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let limit = (start + MAX_WRAPPED_VALUE_LEN).min(bytes.len());
    bytes[start..limit]
        .iter()
        .position(|&byte| byte == b'\'')
        .map(|offset| start + offset)
}

/// The full key: the keyword extended left over identifier characters and
/// right up to (not including) any quote, space or separator.
fn assignment_key(text: &str, keyword_start: usize, value_start: usize) -> &str {
    let bytes = text.as_bytes();
    let mut key_start = keyword_start;
    while key_start > 0 && is_key_byte(bytes[key_start - 1]) {
        key_start -= 1;
    }
    let key_end = text[keyword_start..value_start]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(value_start, |offset| keyword_start + offset);
    &text[key_start..key_end]
}

fn is_key_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' || byte == b'.'
}

pub(super) fn assignment_kind(key: &str) -> SecretKind {
    let key_has = |word: &str| contains_ignore_case(key, word);
    if key_has("pass") || key_has("pwd") {
        SecretKind::Password
    } else if key_has("aws") && key_has("secret") {
        SecretKind::AwsSecretKey
    } else {
        SecretKind::Secret
    }
}

fn is_secret_value(text: &str, key: &str, value: AssignedValue<'_>, tier: NameTier) -> bool {
    if is_placeholder_value(value.text) || is_working_directory(key, value.text) {
        return false;
    }
    if tier == NameTier::Weak {
        return looks_random(value.text, key) && !is_followed_by_code(text, value);
    }
    match value.style {
        ValueStyle::Quoted => {
            (!value.text.chars().any(char::is_whitespace) || is_wrapped_token(value.text))
                && !is_type_or_literal_name(value.text)
        }
        ValueStyle::Bare => !is_code_expression(text, key, value),
    }
}

/// A token wrapped over lines: runs of token characters separated by line breaks (real or
/// JSON-escaped `\n`, with optional indentation), every line but the last at least
/// [`MIN_WRAPPED_LINE_LEN`] long.
pub(super) fn is_wrapped_token(value: &str) -> bool {
    let unescaped = value.replace("\\r", "").replace("\\n", "\n");
    let lines: Vec<&str> = unescaped
        .split('\n')
        .map(|line| line.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\r'))
        .filter(|line| !line.is_empty())
        .collect();
    let is_token_line = |line: &&str| {
        line.bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"+/=_.-".contains(&byte))
    };
    lines.len() >= 2
        && lines.iter().all(is_token_line)
        && lines[..lines.len() - 1]
            .iter()
            .all(|line| line.len() >= MIN_WRAPPED_LINE_LEN)
}

/// Values that are clearly not a secret whatever their context: shorter than
/// 4 characters, masks (`****`, `xxxx`), variable references (`$VAR`,
/// `${VAR}`, `%s`), placeholders (`<password>`, `{{ var }}`) and markers.
pub(super) fn is_placeholder_value(value: &str) -> bool {
    const PLACEHOLDER_STARTS: &[&str] = &["$", "%", "<", "{{", MARKER_PREFIX];
    value.len() < MIN_ASSIGNED_VALUE_LEN
        || PLACEHOLDER_STARTS
            .iter()
            .any(|start| value.starts_with(start))
        || is_single_repeated_char(value)
        || value.ends_with("...")
        || value.ends_with('…')
        || is_placeholder_words(value)
        || is_path(value)
}

/// Words-only values naming a placeholder: `your-api-key-here`, `mock-token`, `changeme`,
/// `user-provided-api-key`.
fn is_placeholder_words(value: &str) -> bool {
    const WORDS: &[&str] = &[
        "your",
        "here",
        "example",
        "sample",
        "placeholder",
        "changeme",
        "dummy",
        "mock",
        "fake",
        "xxx",
        "replace",
        "api-key",
        "api_key",
        "apikey",
        "-token",
        "_token",
    ];
    let words_only = value
        .bytes()
        .all(|byte| byte.is_ascii_alphabetic() || b"-_ .".contains(&byte));
    let lowercase = value.to_ascii_lowercase();
    words_only && WORDS.iter().any(|word| lowercase.contains(word))
}

/// `/Users/me/.ssh/id_rsa`, `~/.config/key`, `./secrets.json`, `C:\keys\a.pem`: a file, not
/// its content.
fn is_path(value: &str) -> bool {
    let bytes = value.as_bytes();
    value.starts_with('/')
        || value.starts_with("~/")
        || value.starts_with("./")
        || value.starts_with("../")
        || (bytes.len() > 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":\\")
}

fn is_single_repeated_char(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|first| chars.all(|c| c == first))
}

/// `PWD=/home/me` and `OLDPWD=/tmp` are working directories, not passwords.
fn is_working_directory(key: &str, value: &str) -> bool {
    let key_is_pwd = key
        .len()
        .checked_sub(3)
        .and_then(|start| key.get(start..))
        .is_some_and(|end| end.eq_ignore_ascii_case("pwd"));
    key_is_pwd && (value.starts_with('/') || value.starts_with('~'))
}

/// The generic high-entropy rule: a value assigned to a weak name is a secret only when it
/// reads as random — long, of token characters, with letters and digits, high Shannon
/// entropy, and not a UUID; hex digests count only for `…token` names (a `cache_key` or
/// `primary_key` often holds a hash).
pub(super) fn looks_random(value: &str, key: &str) -> bool {
    let bytes = value.as_bytes();
    let token_chars = bytes
        .iter()
        .all(|byte| byte.is_ascii_alphanumeric() || b"+/=_.~-".contains(byte));
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    let has_letter = bytes.iter().any(u8::is_ascii_alphabetic);
    let is_hex = bytes.iter().all(u8::is_ascii_hexdigit);
    let hex_allowed = key.to_ascii_lowercase().ends_with("token");
    (MIN_RANDOM_VALUE_LEN..=1024).contains(&bytes.len())
        && token_chars
        && has_digit
        && has_letter
        && !is_uuid(value)
        && (hex_allowed || !is_hex)
        && shannon_entropy(bytes) >= MIN_RANDOM_VALUE_ENTROPY
}

/// `8-4-4-4-12` hex digits.
pub(super) fn is_uuid(value: &str) -> bool {
    let groups: Vec<&str> = value.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_followed_by_code(text: &str, value: AssignedValue<'_>) -> bool {
    value.style == ValueStyle::Bare
        && matches!(text.as_bytes().get(value.end), Some(b'(' | b'[' | b'<'))
}

/// Unquoted values that are code rather than data: a call or index
/// (`getenv(`, `os.environ[`), a generic type (`Secret<`), a dotted path
/// (`args.password`, `env::var`), a type or literal name (`String`, `None`),
/// or an identifier that repeats the key's keyword (`password=password`).
fn is_code_expression(text: &str, key: &str, value: AssignedValue<'_>) -> bool {
    is_followed_by_code(text, value)
        || is_dotted_identifier_path(value.text)
        || is_type_or_literal_name(value.text)
        || repeats_key_keyword(key, value.text)
}

fn is_identifier(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `args.password`, `process.env.DB_PASSWORD`, `env::var`: identifier
/// segments without digits (a digit, as in `ya29.a0Af`, suggests a token).
fn is_dotted_identifier_path(value: &str) -> bool {
    let is_code_segment =
        |part: &str| is_identifier(part) && !part.bytes().any(|b| b.is_ascii_digit());
    (value.contains('.') && value.split('.').all(is_code_segment))
        || (value.contains("::") && value.split("::").all(is_code_segment))
}

fn is_type_or_literal_name(value: &str) -> bool {
    const NAMES: &[&str] = &[
        "string",
        "&str",
        "str",
        "bool",
        "boolean",
        "number",
        "integer",
        "int",
        "bytes",
        "object",
        "text",
        "varchar",
        "char",
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "option",
        "secret",
        "secretstr",
        "secretstring",
        "password",
        "impl",
        "self",
        "this",
        "void",
        "unknown",
        "never",
        "redacted",
        "hidden",
        "masked",
        "value",
        "await",
        "async",
        "new",
        "function",
        "fn",
        "yield",
        "return",
        "typeof",
    ];
    NAMES.iter().any(|name| value.eq_ignore_ascii_case(name))
}

/// `password=password`, `api_key: apiKey`, `secret=new_secret`.
fn repeats_key_keyword(key: &str, value: &str) -> bool {
    const STEMS: &[&str] = &["pass", "pwd", "secret", "key", "token"];
    is_identifier(value)
        && STEMS
            .iter()
            .any(|stem| contains_ignore_case(value, stem) && contains_ignore_case(key, stem))
}

/// ASCII case-insensitive substring test; `needle` is lowercase ASCII.
fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}
