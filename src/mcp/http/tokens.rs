//! The bearer tokens of `esker serve --http --tokens FILE` (issue #54): the TOML file, each
//! token's name, digest, projects, machines and limits, and the lookup of a request's
//! `Authorization: Bearer` header. Tokens are kept only as SHA-256 digests; the file may hold
//! either the token or its digest.
//!
//! ```toml
//! [[tokens]]
//! name = "alice"
//! sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//! projects = ["/home/alice/src/api", "/srv/checkouts/api"]
//!
//! [[tokens]]
//! name = "auditor"
//! token = "another-long-random-secret"
//! projects = "all"
//! machines = ["build-01", "build-02"]   # only what these machines published (a pulled store)
//!
//! [[tokens]]
//! name = "ci"
//! token = "a-long-random-secret"
//! projects = "all"
//! max_concurrent = 2
//! rate_per_second = 10
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::mcp::http::limits::Limits;

/// The shortest token accepted in plain form (a guessable token is refused at load).
pub const MIN_TOKEN_CHARS: usize = 16;

/// Why the token file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("cannot read the token file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the token file {path} is not valid: {source}")]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("the token file {0} defines no token")]
    Empty(PathBuf),
    #[error("token {0:?}: give exactly one of `token` and `sha256`")]
    Secret(String),
    #[error("token {0:?}: `sha256` must be 64 hexadecimal digits")]
    Digest(String),
    #[error("token {name:?}: a token must be at least {MIN_TOKEN_CHARS} characters")]
    Short { name: String },
    #[error("token {0:?}: `projects` must be \"all\" or a list of project directories")]
    Projects(String),
    #[error("token names must be unique and non-empty: {0:?}")]
    Name(String),
    #[error("tokens {0:?} and {1:?} are the same secret")]
    Duplicate(String, String),
    #[error("token {0:?}: limits must be at least 1")]
    Limit(String),
    #[error("token {0:?}: `machines` must be a non-empty list of machine names")]
    Machines(String),
}

/// What a token may read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Projects {
    /// Every session.
    All,
    /// Sessions run under these directories (sorted, deduplicated).
    Roots(Vec<String>),
}

/// One token of the file, resolved.
#[derive(Debug, Clone)]
pub struct TokenSpec {
    /// Who the token is, in request logs.
    pub name: String,
    /// SHA-256 of the token.
    pub digest: [u8; 32],
    pub projects: Projects,
    /// The machines whose published sessions the token may read (sorted, deduplicated);
    /// `None`: every machine.
    pub machines: Option<Vec<String>>,
    pub limits: Limits,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    #[serde(default)]
    tokens: Vec<TokenEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    name: String,
    token: Option<String>,
    sha256: Option<String>,
    projects: ProjectsEntry,
    machines: Option<Vec<String>>,
    max_concurrent: Option<u32>,
    rate_per_second: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ProjectsEntry {
    Word(String),
    Roots(Vec<String>),
}

/// Reads the token file at `path`; `defaults` are the limits of a token that sets none.
pub fn load(path: &Path, defaults: Limits) -> Result<Vec<TokenSpec>, TokenError> {
    let text = std::fs::read_to_string(path).map_err(|source| TokenError::Read {
        path: path.to_owned(),
        source,
    })?;
    let file: TokenFile = toml::from_str(&text).map_err(|source| TokenError::Parse {
        path: path.to_owned(),
        source,
    })?;
    if file.tokens.is_empty() {
        return Err(TokenError::Empty(path.to_owned()));
    }
    let specs = file
        .tokens
        .into_iter()
        .map(|entry| resolve(entry, defaults))
        .collect::<Result<Vec<_>, _>>()?;
    check_unique(&specs)?;
    Ok(specs)
}

fn resolve(entry: TokenEntry, defaults: Limits) -> Result<TokenSpec, TokenError> {
    let name = entry.name.trim().to_owned();
    if name.is_empty() {
        return Err(TokenError::Name(entry.name));
    }
    let digest = match (entry.token, entry.sha256) {
        (Some(token), None) if token.chars().count() < MIN_TOKEN_CHARS => {
            return Err(TokenError::Short { name });
        }
        (Some(token), None) => digest_of(&token),
        (None, Some(hex)) => parse_digest(&hex).ok_or_else(|| TokenError::Digest(name.clone()))?,
        _ => return Err(TokenError::Secret(name)),
    };
    let projects = match entry.projects {
        ProjectsEntry::Word(word) if word == "all" => Projects::All,
        ProjectsEntry::Roots(mut roots) if !roots.is_empty() => {
            roots.sort();
            roots.dedup();
            Projects::Roots(roots)
        }
        _ => return Err(TokenError::Projects(name)),
    };
    let machines = match entry.machines {
        None => None,
        Some(mut machines) => {
            if machines.is_empty() || machines.iter().any(|machine| machine.trim().is_empty()) {
                return Err(TokenError::Machines(name));
            }
            machines.sort();
            machines.dedup();
            Some(machines)
        }
    };
    let limits = Limits {
        max_concurrent: entry.max_concurrent.unwrap_or(defaults.max_concurrent),
        rate_per_second: entry.rate_per_second.unwrap_or(defaults.rate_per_second),
    };
    if limits.max_concurrent == 0 || limits.rate_per_second == 0 {
        return Err(TokenError::Limit(name));
    }
    Ok(TokenSpec {
        name,
        digest,
        projects,
        machines,
        limits,
    })
}

fn check_unique(specs: &[TokenSpec]) -> Result<(), TokenError> {
    let mut names = HashSet::new();
    for (index, spec) in specs.iter().enumerate() {
        if !names.insert(spec.name.as_str()) {
            return Err(TokenError::Name(spec.name.clone()));
        }
        if let Some(twin) = specs[..index]
            .iter()
            .find(|other| other.digest == spec.digest)
        {
            return Err(TokenError::Duplicate(twin.name.clone(), spec.name.clone()));
        }
    }
    Ok(())
}

/// SHA-256 of a token.
pub fn digest_of(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A token's digest as the file's `sha256` spells it (lowercase hex).
pub fn hex_digest(token: &str) -> String {
    digest_of(token)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn parse_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut digest = [0u8; 32];
    for (index, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16).ok()?;
    }
    Some(digest)
}

/// The token of an `Authorization` header value (`Bearer <token>`, scheme case-insensitive).
pub fn bearer_token(authorization: &str) -> Option<&str> {
    let (scheme, token) = authorization.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The index of the spec whose digest is `token`'s. Every digest is compared whole, without
/// stopping at the first differing byte or the first match.
pub fn find(digests: &[[u8; 32]], token: &str) -> Option<usize> {
    let presented = digest_of(token);
    let mut found = None;
    for (index, digest) in digests.iter().enumerate() {
        let difference = digest
            .iter()
            .zip(presented.iter())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b));
        if difference == 0 {
            found = Some(index);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULTS: Limits = Limits {
        max_concurrent: 8,
        rate_per_second: 50,
    };

    fn load_text(text: &str) -> Result<Vec<TokenSpec>, TokenError> {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        load(file.path(), DEFAULTS)
    }

    #[test]
    fn a_token_is_known_by_its_digest_whether_the_file_gives_it_or_its_digest() {
        let digest = hex_digest("0123456789abcdef-bob");
        let specs = load_text(&format!(
            r#"
            [[tokens]]
            name = "alice"
            token = "0123456789abcdef-alice"
            projects = ["/b", "/a", "/a"]
            max_concurrent = 2

            [[tokens]]
            name = "bob"
            sha256 = "{digest}"
            projects = "all"
            "#
        ))
        .unwrap();
        assert_eq!(
            specs[0].projects,
            Projects::Roots(vec!["/a".into(), "/b".into()])
        );
        assert_eq!(specs[0].limits.max_concurrent, 2);
        assert_eq!(specs[0].limits.rate_per_second, 50);
        assert_eq!(specs[1].projects, Projects::All);
        assert_eq!(specs[1].machines, None);
        let digests: Vec<[u8; 32]> = specs.iter().map(|spec| spec.digest).collect();
        assert_eq!(find(&digests, "0123456789abcdef-alice"), Some(0));
        assert_eq!(find(&digests, "0123456789abcdef-bob"), Some(1));
        assert_eq!(find(&digests, "0123456789abcdef-eve"), None);
    }

    #[test]
    fn unusable_entries_are_refused_with_the_token_named() {
        let cases = [
            (
                r#"name = "a"
                projects = "all""#,
                "exactly one of",
            ),
            (
                r#"name = "a"
                token = "short"
                projects = "all""#,
                "at least 16",
            ),
            (
                r#"name = "a"
                sha256 = "abc"
                projects = "all""#,
                "64 hexadecimal",
            ),
            (
                r#"name = "a"
                token = "0123456789abcdef"
                projects = "everything""#,
                "\"all\" or a list",
            ),
            (
                r#"name = "a"
                token = "0123456789abcdef"
                projects = []"#,
                "\"all\" or a list",
            ),
            (
                r#"name = "a"
                token = "0123456789abcdef"
                projects = "all"
                rate_per_second = 0"#,
                "at least 1",
            ),
            (
                r#"name = "a"
                token = "0123456789abcdef"
                projects = "all"
                machines = []"#,
                "non-empty list of machine names",
            ),
            (
                r#"name = "a"
                token = "0123456789abcdef"
                projects = "all"
                machines = ["ok", " "]"#,
                "non-empty list of machine names",
            ),
        ];
        for (entry, message) in cases {
            let error = load_text(&format!("[[tokens]]\n{entry}\n")).unwrap_err();
            assert!(error.to_string().contains(message), "{entry}: {error}");
        }
        let twice = "[[tokens]]\nname = \"a\"\ntoken = \"0123456789abcdef\"\nprojects = \"all\"\n";
        let error = load_text(&format!("{twice}{}", twice.replace("\"a\"", "\"b\""))).unwrap_err();
        assert!(matches!(error, TokenError::Duplicate(..)), "{error}");
        assert!(matches!(load_text("").unwrap_err(), TokenError::Empty(_)));
    }

    #[test]
    fn a_token_may_name_the_machines_it_reads() {
        let specs = load_text(
            r#"
            [[tokens]]
            name = "auditor"
            token = "0123456789abcdef-auditor"
            projects = ["/srv/api"]
            machines = ["build-02", "build-01", "build-02"]
            "#,
        )
        .unwrap();
        assert_eq!(
            specs[0].machines,
            Some(vec!["build-01".to_owned(), "build-02".to_owned()])
        );
    }

    #[test]
    fn the_bearer_scheme_is_read_case_insensitively() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
