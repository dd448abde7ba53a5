//! Moraine's harness names for esker's sources (`claude` → `claude-code`, `gemini` →
//! `gemini-cli`; `codex` and any source esker does not rename keep their name), and back, for the
//! `harness` fields and filters of the Moraine tools.

/// esker source → Moraine harness, for the sources whose names differ or coincide.
const HARNESS_OF_SOURCE: [(&str, &str); 3] = [
    ("codex", "codex"),
    ("claude", "claude-code"),
    ("gemini", "gemini-cli"),
];

/// The Moraine harness name of an esker source.
pub fn harness_of(source: &str) -> &str {
    HARNESS_OF_SOURCE
        .iter()
        .find(|(known, _)| *known == source)
        .map_or(source, |(_, harness)| harness)
}

/// The esker source a Moraine harness name stands for; `None` when no source has that
/// harness (`claude` is a source whose harness is `claude-code`, so no source is harness
/// `claude`).
pub fn source_of_harness(harness: &str) -> Option<&str> {
    if let Some((source, _)) = HARNESS_OF_SOURCE
        .iter()
        .find(|(_, known)| *known == harness)
    {
        return Some(source);
    }
    let renamed_source = HARNESS_OF_SOURCE
        .iter()
        .any(|(source, known)| *source == harness && *known != harness);
    (!renamed_source).then_some(harness)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_map_to_moraine_harness_names_and_back() {
        for (source, harness) in [
            ("codex", "codex"),
            ("claude", "claude-code"),
            ("gemini", "gemini-cli"),
            ("opencode", "opencode"),
        ] {
            assert_eq!(harness_of(source), harness);
            assert_eq!(source_of_harness(harness), Some(source));
        }
        assert_eq!(source_of_harness("claude"), None);
        assert_eq!(source_of_harness("gemini"), None);
    }
}
