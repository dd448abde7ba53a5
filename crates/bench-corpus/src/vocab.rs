//! The generator's vocabulary: common prose and code words followed by many synthetic code
//! identifiers, drawn with Zipf-distributed ranks so term frequencies look like real logs
//! (a few very common words, a long tail of rare identifiers).

use crate::rng::Rng;

/// Frequent words of agent conversations, most frequent first.
const COMMON_WORDS: &[&str] = &[
    "the",
    "to",
    "and",
    "a",
    "of",
    "in",
    "is",
    "it",
    "for",
    "that",
    "this",
    "with",
    "on",
    "test",
    "file",
    "i",
    "be",
    "not",
    "error",
    "run",
    "we",
    "function",
    "can",
    "now",
    "fix",
    "use",
    "from",
    "as",
    "are",
    "if",
    "return",
    "let",
    "new",
    "value",
    "code",
    "should",
    "add",
    "data",
    "will",
    "when",
    "check",
    "type",
    "an",
    "by",
    "or",
    "build",
    "change",
    "which",
    "config",
    "all",
    "update",
    "failed",
    "so",
    "line",
    "string",
    "list",
    "call",
    "path",
    "name",
    "tests",
    "query",
    "table",
    "output",
    "missing",
    "was",
    "have",
    "passes",
    "field",
    "user",
    "one",
    "first",
    "there",
    "then",
    "result",
    "import",
    "cargo",
    "make",
    "need",
    "read",
    "write",
    "schema",
    "index",
    "migration",
    "request",
    "response",
    "server",
    "client",
    "module",
    "method",
    "struct",
    "class",
    "before",
    "after",
    "still",
    "works",
    "again",
    "because",
    "instead",
    "default",
    "option",
    "flag",
    "version",
    "commit",
    "branch",
    "merge",
    "review",
    "parse",
    "json",
    "parquet",
    "column",
    "row",
    "batch",
    "cache",
    "timeout",
    "retry",
    "log",
    "warning",
    "panic",
    "thread",
    "async",
    "await",
    "lock",
    "mutex",
    "channel",
    "stream",
    "buffer",
    "bytes",
    "offset",
    "length",
    "count",
    "limit",
    "page",
    "cursor",
    "token",
    "session",
    "turn",
    "event",
    "search",
    "filter",
    "sort",
    "order",
    "group",
    "join",
    "select",
    "insert",
    "delete",
    "null",
    "empty",
    "true",
    "false",
    "some",
    "none",
    "option",
    "result",
    "vec",
    "map",
    "set",
    "key",
    "id",
    "uuid",
    "hash",
    "time",
    "date",
    "utc",
    "format",
    "encode",
    "decode",
    "serialize",
    "deserialize",
    "compile",
    "lint",
    "clippy",
    "fmt",
    "docs",
    "readme",
    "changelog",
    "release",
    "deploy",
    "staging",
    "production",
    "database",
    "postgres",
    "sqlite",
    "redis",
    "docker",
    "kubernetes",
    "pod",
    "service",
    "endpoint",
    "route",
    "handler",
    "middleware",
    "auth",
    "login",
    "password",
    "permission",
    "role",
    "account",
    "customer",
    "order",
    "invoice",
    "payment",
    "email",
    "export",
    "import",
    "csv",
    "pipeline",
    "job",
    "worker",
    "queue",
    "scheduler",
    "cron",
    "flaky",
    "regression",
    "benchmark",
    "latency",
    "throughput",
    "memory",
    "leak",
    "profile",
    "trace",
    "span",
    "metric",
    "dashboard",
    "alert",
];

/// Building blocks of synthetic identifiers.
const MORPHEMES: &[&str] = &[
    "parse", "config", "user", "batch", "row", "index", "writer", "reader", "store", "cache",
    "session", "event", "turn", "query", "plan", "node", "tree", "graph", "edge", "path", "file",
    "dir", "entry", "record", "field", "column", "schema", "table", "page", "cursor", "token",
    "lexer", "span", "frame", "stack", "heap", "pool", "slot", "chunk", "block", "segment",
    "shard", "replica", "leader", "vote", "term", "log", "snapshot", "delta", "patch", "diff",
    "merge", "rebase", "commit", "hook", "trigger", "signal", "socket", "stream", "pipe", "buffer",
    "encoder", "decoder", "codec", "crypto", "cipher", "nonce", "key", "vault", "secret", "auth",
    "grant", "scope", "claim", "policy", "rule", "limit", "quota", "budget", "metric", "gauge",
    "counter", "timer", "clock", "tick", "epoch", "window", "bucket", "filter", "bloom", "sketch",
    "heap", "queue", "deque", "ring", "arena", "alloc", "region", "handle", "ref", "owner",
    "lease", "lock", "latch", "guard", "fence", "barrier", "worker", "task", "job", "stage",
    "step", "phase", "retry", "backoff", "jitter", "probe", "health", "ready", "live",
];

/// Zipf exponent of the rank distribution.
const ZIPF_EXPONENT: f64 = 1.05;
/// Distinct words (common words first, then identifiers).
pub const VOCABULARY_SIZE: usize = 60_000;

/// A ranked vocabulary with a Zipf sampler.
pub struct Vocabulary {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Default for Vocabulary {
    fn default() -> Vocabulary {
        Vocabulary::new()
    }
}

impl Vocabulary {
    pub fn new() -> Vocabulary {
        let words: Vec<String> = (0..VOCABULARY_SIZE).map(word_at_rank).collect();
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY_SIZE)
            .map(|rank| {
                total += 1.0 / (rank as f64).powf(ZIPF_EXPONENT);
                total
            })
            .collect();
        Vocabulary { words, cumulative }
    }

    /// The word at 0-based frequency rank `rank`.
    pub fn word(&self, rank: usize) -> &str {
        &self.words[rank.min(VOCABULARY_SIZE - 1)]
    }

    /// A Zipf-distributed word.
    pub fn sample<'a>(&'a self, rng: &mut Rng) -> &'a str {
        let total = self.cumulative[VOCABULARY_SIZE - 1];
        let target = rng.unit() * total;
        let rank = self.cumulative.partition_point(|&value| value < target);
        self.word(rank)
    }

    /// A sentence of `words` Zipf words, capitalised, ending with a period.
    pub fn sentence(&self, rng: &mut Rng, words: usize) -> String {
        let mut text = String::with_capacity(words * 8);
        for index in 0..words.max(1) {
            let word = self.sample(rng);
            if index == 0 {
                let mut characters = word.chars();
                if let Some(first) = characters.next() {
                    text.extend(first.to_uppercase());
                    text.push_str(characters.as_str());
                }
            } else {
                text.push(' ');
                text.push_str(word);
            }
        }
        text.push('.');
        text
    }

    /// A few sentences of prose.
    pub fn prose(&self, rng: &mut Rng, sentences: usize) -> String {
        (0..sentences.max(1))
            .map(|_| {
                let words = rng.between(5, 18) as usize;
                self.sentence(rng, words)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// One line of code-like text.
    pub fn code_line(&self, rng: &mut Rng) -> String {
        let a = self.sample(rng);
        let b = self.sample(rng);
        let c = self.sample(rng);
        match rng.below(6) {
            0 => format!("    let {a} = {b}.{c}()?;"),
            1 => format!("fn {a}_{b}(input: &{c}) -> Result<(), Error> {{"),
            2 => format!(
                "src/{a}/{b}.rs:{}:{}: {c}",
                rng.between(1, 900),
                rng.between(1, 80)
            ),
            3 => format!("test {a}::{b}_{c} ... ok"),
            4 => format!("    // {}", self.sentence(rng, 6)),
            _ => format!("{a} {b} {c} {}", rng.between(0, 99_999)),
        }
    }

    /// A tool output of about `bytes` bytes: code and log lines, newline separated.
    pub fn output(&self, rng: &mut Rng, bytes: usize) -> String {
        let mut text = String::with_capacity(bytes + 64);
        while text.len() < bytes {
            text.push_str(&self.code_line(rng));
            text.push('\n');
        }
        text
    }

    /// A shell command.
    pub fn command(&self, rng: &mut Rng) -> String {
        let a = self.sample(rng);
        let b = self.sample(rng);
        match rng.below(5) {
            0 => format!("cargo test {a}_{b}"),
            1 => format!("rg -n \"{a}\" src/{b}"),
            2 => format!("sed -n 1,120p src/{a}/{b}.rs"),
            3 => format!("python -m pytest tests/test_{a}.py -q -k {b}"),
            _ => format!("git diff -- src/{a}.rs"),
        }
    }
}

/// Common words first, then identifiers composed from morphemes in three styles.
fn word_at_rank(rank: usize) -> String {
    if let Some(word) = COMMON_WORDS.get(rank) {
        return (*word).to_owned();
    }
    let index = rank - COMMON_WORDS.len();
    let base = MORPHEMES.len();
    let first = MORPHEMES[index % base];
    let second = MORPHEMES[(index / base) % base];
    let third = (index / (base * base)) % (base + 1);
    let mut parts = vec![first, second];
    if third > 0 {
        parts.push(MORPHEMES[third - 1]);
    }
    match index % 3 {
        0 => parts.join("_"),
        1 => parts.iter().map(|part| capitalised(part)).collect(),
        _ => format!(
            "{}{}",
            parts[0],
            parts[1..]
                .iter()
                .map(|part| capitalised(part))
                .collect::<String>()
        ),
    }
}

fn capitalised(word: &str) -> String {
    let mut characters = word.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_ranks_dominate_samples() {
        let vocabulary = Vocabulary::new();
        let mut rng = Rng::new(1);
        let samples: Vec<&str> = (0..2000).map(|_| vocabulary.sample(&mut rng)).collect();
        let the = samples.iter().filter(|word| **word == "the").count();
        assert!(the > 100, "'the' drawn {the} times");
        assert_ne!(vocabulary.word(10_000), vocabulary.word(10_001));
    }
}
