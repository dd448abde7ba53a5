//! Checks a response against a [`Shape`]: every JSON object in it is found by its path (keys
//! joined by `.`, `[]` for each element of an array), and its key set must be one of the sets
//! declared for that path. An object at a path the shape does not declare fails too, unless
//! it lies under one of the shape's free-form paths (tool arguments, payload details), so a
//! field added anywhere shows up here before it reaches a peer's client.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

/// The keys one object may carry.
#[derive(Debug, Clone, Copy)]
pub struct Object {
    /// Where the object sits: `""` for the response itself, `data.results[].event`...
    pub path: &'static str,
    /// The keys the seed lists for it: all required.
    pub seed: &'static [&'static str],
    /// esker's additions, each documented in docs/MCP.md: required as well (esker always
    /// sends them).
    pub esker: &'static [&'static str],
    /// Keys that appear only in some answers (a cut turn's markers, an optional hint).
    pub optional: &'static [&'static str],
}

impl Object {
    /// Exactly the seed's keys.
    pub const fn seed(path: &'static str, seed: &'static [&'static str]) -> Object {
        Object {
            path,
            seed,
            esker: &[],
            optional: &[],
        }
    }

    /// The seed's keys and esker's documented additions.
    pub const fn with(
        path: &'static str,
        seed: &'static [&'static str],
        esker: &'static [&'static str],
    ) -> Object {
        Object {
            path,
            seed,
            esker,
            optional: &[],
        }
    }

    /// Adds esker's documented additions to an object of the seed's keys.
    pub const fn with_esker(self, esker: &'static [&'static str]) -> Object {
        Object { esker, ..self }
    }

    /// Adds keys that appear in some answers only.
    pub const fn optional(self, optional: &'static [&'static str]) -> Object {
        Object { optional, ..self }
    }

    fn admits(&self, keys: &BTreeSet<&str>) -> bool {
        let required = self.seed.iter().chain(self.esker);
        let allowed: HashSet<&str> = required.clone().chain(self.optional).copied().collect();
        required.into_iter().all(|key| keys.contains(key))
            && keys.iter().all(|key| allowed.contains(key))
    }
}

/// The objects of one kind of answer (several [`Object`]s of one path are alternatives).
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub name: &'static str,
    pub objects: &'static [Object],
    /// Paths whose contents are free-form (arguments, payloads, metadata): not walked.
    pub free: &'static [&'static str],
}

/// The declared paths a series of checks met, to tell a table that no answer exercises.
#[derive(Debug, Default)]
pub struct Seen {
    paths: HashSet<(&'static str, &'static str)>,
}

impl Seen {
    /// Fails naming every declared path of `shapes` no checked answer held, except `absent`
    /// (objects the test corpus cannot produce, each explained by the caller).
    pub fn assert_every_path_met(&self, shapes: &[&Shape], absent: &[&str]) {
        let mut missing = Vec::new();
        for shape in shapes {
            for object in shape.objects {
                let key = (shape.name, object.path);
                if !self.paths.contains(&key) && !absent.contains(&object.path) {
                    missing.push(format!("{}: {}", shape.name, object.path));
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(
            missing.is_empty(),
            "declared objects no answer held: {missing:?}"
        );
    }
}

/// Checks `value` against `shape`, recording the paths met in `seen`.
pub fn check(shape: &Shape, value: &Value, seen: &mut Seen) {
    let mut objects = Vec::new();
    collect(value, String::new(), &mut objects);
    for (path, keys) in objects {
        if is_free(shape, &path) {
            continue;
        }
        let declared: Vec<&Object> = shape
            .objects
            .iter()
            .filter(|object| object.path == path)
            .collect();
        assert!(
            !declared.is_empty(),
            "{}: an object at `{path}` that no contract declares: keys {keys:?}\nin {value:#}",
            shape.name
        );
        assert!(
            declared.iter().any(|object| object.admits(&keys)),
            "{}: `{path}` has keys {keys:?}, the contract wants {:?}",
            shape.name,
            declared
                .iter()
                .map(|object| (object.seed, object.esker, object.optional))
                .collect::<Vec<_>>()
        );
        seen.paths.insert((shape.name, declared[0].path));
    }
}

fn is_free(shape: &Shape, path: &str) -> bool {
    shape.free.iter().any(|free| {
        path == *free
            || path
                .strip_prefix(free)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    })
}

fn collect<'a>(value: &'a Value, path: String, out: &mut Vec<(String, BTreeSet<&'a str>)>) {
    match value {
        Value::Object(fields) => {
            out.push((path.clone(), fields.keys().map(String::as_str).collect()));
            for (key, child) in fields {
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                collect(child, child_path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect(item, format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}
