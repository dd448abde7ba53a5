//! White-box tampering with a live `list_sessions` cursor
//! (`lsc1.<fingerprint>.<updated_at nanos>.<rank>.<session id>`): each edit knows whether the
//! result still names a keyset position for the same filter (accepted) or not (rejected).

use super::known::Known;
use super::rng::Rng;

pub struct Tampered {
    pub cursor: String,
    /// Still a position for the same filter: the next page starts after it.
    pub still_valid: bool,
}

/// Ranks beyond this are not a position any listing reaches.
const MAX_RANK: u64 = u32::MAX as u64;

pub fn tamper(rng: &mut Rng, cursor: &str, known: &Known) -> Tampered {
    let parts: Vec<String> = cursor.split('.').map(str::to_owned).collect();
    assert_eq!(parts.len(), 5, "live cursor layout changed: {cursor}");
    match rng.below(8) {
        0 => rejected(reshape(rng, cursor, &parts)),
        1 => with_part(parts, 0, rng.pick_str(&["lsc2", "LSC1", "", "lsc"]), false),
        2 => tamper_fingerprint(rng, parts),
        3 => tamper_nanos(rng, parts),
        4 => tamper_rank(rng, parts),
        5 => tamper_session(rng, parts, known),
        6 => rejected(format!(
            "{cursor}{}",
            rng.pick(&[" ", "\n", "\u{0}", "%20"])
        )),
        _ => rejected(cursor.replacen(':', "%3A", 1)),
    }
}

fn rejected(cursor: String) -> Tampered {
    Tampered {
        cursor,
        still_valid: false,
    }
}

/// Drops, duplicates or adds a part, or prefixes whitespace.
fn reshape(rng: &mut Rng, cursor: &str, parts: &[String]) -> String {
    match rng.below(4) {
        0 => parts[..4].join("."),
        1 => format!("{cursor}.x"),
        2 => format!("{}.{cursor}", parts[0]),
        _ => format!(" {cursor}"),
    }
}

fn with_part(mut parts: Vec<String>, index: usize, value: &str, still_valid: bool) -> Tampered {
    parts[index] = value.to_owned();
    Tampered {
        cursor: parts.join("."),
        still_valid,
    }
}

/// Another fingerprint is another filter; a non-fingerprint is garbage.
fn tamper_fingerprint(rng: &mut Rng, parts: Vec<String>) -> Tampered {
    let fingerprint = parts[1].clone();
    let replacement = match rng.below(3) {
        0 => {
            let first = if fingerprint.starts_with('0') {
                "1"
            } else {
                "0"
            };
            format!("{first}{}", &fingerprint[1..])
        }
        1 => fingerprint[1..].to_owned(),
        _ => "zzzzzzzzzzzzzzzz".to_owned(),
    };
    with_part(parts, 1, &replacement, false)
}

/// Any i64 is a position; anything else is not.
fn tamper_nanos(rng: &mut Rng, parts: Vec<String>) -> Tampered {
    let valid = [
        "0".to_owned(),
        "-1".to_owned(),
        i64::MIN.to_string(),
        i64::MAX.to_string(),
        (rng.next_u64() as i64).to_string(),
    ];
    if rng.one_in(2) {
        let nanos = rng.pick(&valid).clone();
        return with_part(parts, 2, &nanos, true);
    }
    let invalid = *rng.pick(&["x", "", "1.5", "1e9", "9223372036854775808", "١٢", " 1"]);
    with_part(parts, 2, invalid, false)
}

/// Ranks up to [`MAX_RANK`] continue the listing; negative, non-numeric or absurd ranks do not.
fn tamper_rank(rng: &mut Rng, parts: Vec<String>) -> Tampered {
    let rank = match rng.below(6) {
        0 => rng.below(1000).to_string(),
        1 => MAX_RANK.to_string(),
        2 => (MAX_RANK + 1).to_string(),
        3 => u64::MAX.to_string(),
        4 => "18446744073709551616".to_owned(),
        _ => (*rng.pick(&["-1", "x", "", "1.0"])).to_owned(),
    };
    let still_valid = rank.parse::<u64>().is_ok_and(|rank| rank <= MAX_RANK);
    with_part(parts, 3, &rank, still_valid)
}

/// Any well-formed session id is a position (it need not exist); other ids are not.
fn tamper_session(rng: &mut Rng, parts: Vec<String>, known: &Known) -> Tampered {
    match rng.below(4) {
        0 => {
            let session = rng.pick(&known.sessions).clone();
            with_part(parts, 4, &session, true)
        }
        1 => with_part(parts, 4, "session:does-not-exist_0", true),
        2 => {
            let turn = rng.pick(&known.turns).clone();
            with_part(parts, 4, &turn, false)
        }
        _ => with_part(
            parts,
            4,
            rng.pick_str(&["session:", "session:a b", "", "event:x"]),
            false,
        ),
    }
}
