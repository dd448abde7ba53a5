//! One generated call: the tool, its arguments (a valid base with one mutation), the mutation's
//! name (for the tally) and the outcome the contract requires.

use serde_json::{Map, Value};

use super::known::Known;
use super::oracle::Expect;
use super::rng::Rng;
use super::{list_cases, open_cases, search_cases};

pub type Arguments = Map<String, Value>;

/// A mutation: its name and how it edits valid arguments.
pub type Mutation = (&'static str, fn(&mut Rng, &Known, &mut Arguments));

pub struct Case {
    pub tool: &'static str,
    /// An object, or null to send no `arguments` at all.
    pub arguments: Value,
    pub mutation: &'static str,
    pub expect: Expect,
}

/// The next case: the three tools in turn, a mutation drawn uniformly per tool.
pub fn generate(rng: &mut Rng, known: &Known, index: usize) -> Case {
    if rng.one_in(100) {
        return without_arguments(index);
    }
    match index % 3 {
        0 => search_cases::generate(rng, known),
        1 => open_cases::generate(rng, known),
        _ => list_cases::generate(rng, known),
    }
}

/// A `tools/call` with no `arguments`: every tool has a required field.
fn without_arguments(index: usize) -> Case {
    Case {
        tool: ["search_sessions", "open", "list_sessions"][index % 3],
        arguments: Value::Null,
        mutation: "no_arguments",
        expect: Expect::Error(super::oracle::INVALID_REQUEST),
    }
}

/// Applies one mutation drawn from `mutations` to `arguments`; returns its name.
pub fn mutate(
    rng: &mut Rng,
    known: &Known,
    arguments: &mut Arguments,
    mutations: &[Mutation],
) -> &'static str {
    let (name, apply) = rng.pick(mutations);
    apply(rng, known, arguments);
    name
}

/// A real id of any kind.
pub fn any_real_id<'a>(rng: &mut Rng, known: &'a Known) -> &'a str {
    match rng.below(3) {
        0 => rng.pick(&known.sessions).as_str(),
        1 => rng.pick(&known.turns).as_str(),
        _ => rng.pick(&known.events).as_str(),
    }
}
