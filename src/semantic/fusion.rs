//! Query-adaptive fusion of the BM25 hits with the vector hits.
//!
//! - Identifier-like queries (a path, `::`, snake_case or camelCase, digits in a word, a quoted
//!   phrase) and single words stay **lexical-first**: the BM25 order is kept whole and vector
//!   hits only fill the slots BM25 left empty (the exact-first rule of issue #10).
//! - Other queries (natural language) get a **convex blend** of the two scores, each divided by
//!   its list's best (cosines measured from the weakest vector candidate), with a semantic
//!   weight that depends on the query: low when one of its words is rare in the index (BM25
//!   then knows where to look), high when all its words are common or absent (a paraphrase).
//!   A BM25 candidate without a vector (raw tool output is not embedded) keeps its BM25 share
//!   as its semantic one, so not being embedded neither helps nor hurts it.

use std::collections::HashMap;

use crate::search::SearchHit;

/// The semantic weights of natural-language queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusionWeights {
    /// When one of the query's words is rare in the index (document frequency < 1%).
    pub rare: f32,
    /// When all its words are common or absent.
    pub common: f32,
}

impl Default for FusionWeights {
    /// The weights of the research smoke test (`semantic-search.md`, section 6).
    fn default() -> FusionWeights {
        FusionWeights {
            rare: 0.3,
            common: 0.7,
        }
    }
}

/// How a query's two lists are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blend {
    /// BM25 order first; vector hits fill what is left.
    LexicalFirst,
    /// `(1 - w) × bm25 / best bm25 + w × cosine share`.
    Convex { semantic_weight: f32 },
}

/// Whether `text` reads as an identifier, a path, an error string or a single word.
pub fn is_identifier_like(text: &str) -> bool {
    if text.contains('"') || text.contains('\u{201c}') {
        return true;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() < 2 || words.iter().any(|word| word_is_identifier_like(word))
}

fn word_is_identifier_like(word: &str) -> bool {
    // A command-line flag, a variable.
    if word.len() > 1 && (word.starts_with('-') || word.starts_with('$')) {
        return true;
    }
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    if word.contains("::") || word.contains('/') || word.contains('\\') || word.contains('_') {
        return true;
    }
    let inner_dot = word
        .char_indices()
        .any(|(at, c)| c == '.' && at > 0 && at + 1 < word.len());
    let has_digit = word.chars().any(|c| c.is_ascii_digit());
    let camel = word
        .chars()
        .zip(word.chars().skip(1))
        .any(|(left, right)| left.is_lowercase() && right.is_uppercase());
    inner_dot || has_digit || camel || word.contains('(') || word.contains('=')
}

/// The blend of a query: lexical-first for identifiers, else convex with the weight its
/// rarest word decides (`has_rare_word`).
pub fn blend_for(text: &str, has_rare_word: bool, weights: FusionWeights) -> Blend {
    if is_identifier_like(text) {
        return Blend::LexicalFirst;
    }
    let semantic_weight = if has_rare_word {
        weights.rare
    } else {
        weights.common
    };
    Blend::Convex { semantic_weight }
}

/// The fused hits, best first, at most `limit`. `lexical` is in BM25 order with the cosine of
/// each hit when it has a vector; `semantic` is in cosine order.
pub fn fuse(
    blend: Blend,
    lexical: Vec<(SearchHit, Option<f32>)>,
    semantic: Vec<(SearchHit, f32)>,
    limit: usize,
) -> Vec<SearchHit> {
    match blend {
        Blend::LexicalFirst => lexical_first(lexical, semantic, limit),
        Blend::Convex { semantic_weight } => convex(semantic_weight, lexical, semantic, limit),
    }
}

fn lexical_first(
    lexical: Vec<(SearchHit, Option<f32>)>,
    semantic: Vec<(SearchHit, f32)>,
    limit: usize,
) -> Vec<SearchHit> {
    let mut hits: Vec<SearchHit> = lexical
        .into_iter()
        .map(|(hit, _)| hit)
        .take(limit)
        .collect();
    let floor = hits.last().map_or(f32::INFINITY, |hit| hit.raw_score);
    for (mut hit, cosine) in semantic {
        if hits.len() >= limit {
            break;
        }
        if hits.iter().any(|kept| kept.event_id == hit.event_id) {
            continue;
        }
        // Below every BM25 hit, in cosine order.
        hit.raw_score = cosine.max(0.0).min(floor * 0.99);
        hits.push(hit);
    }
    hits
}

fn convex(
    semantic_weight: f32,
    lexical: Vec<(SearchHit, Option<f32>)>,
    semantic: Vec<(SearchHit, f32)>,
    limit: usize,
) -> Vec<SearchHit> {
    let best_lexical = lexical
        .iter()
        .map(|(hit, _)| hit.raw_score)
        .fold(0.0f32, f32::max);
    let best_cosine = semantic.first().map_or(0.0, |(_, cosine)| *cosine);
    let weakest_cosine = semantic.last().map_or(0.0, |(_, cosine)| *cosine);
    let cosine_share = |cosine: f32| {
        let span = best_cosine - weakest_cosine;
        if span <= f32::EPSILON {
            return if cosine >= best_cosine && best_cosine > 0.0 {
                1.0
            } else {
                0.0
            };
        }
        ((cosine - weakest_cosine) / span).clamp(0.0, 1.0)
    };
    let lexical_share = |score: f32| {
        if best_lexical > 0.0 {
            score / best_lexical
        } else {
            0.0
        }
    };
    let mut fused: Vec<(SearchHit, f32)> = Vec::with_capacity(lexical.len() + semantic.len());
    let mut position: HashMap<String, usize> = HashMap::new();
    for (hit, cosine) in lexical {
        let lexical_part = lexical_share(hit.raw_score);
        let semantic_part = cosine.map_or(lexical_part, cosine_share);
        let score = (1.0 - semantic_weight) * lexical_part + semantic_weight * semantic_part;
        position.insert(hit.event_id.clone(), fused.len());
        fused.push((hit, score));
    }
    for (hit, cosine) in semantic {
        if position.contains_key(&hit.event_id) {
            continue;
        }
        let score = semantic_weight * cosine_share(cosine);
        fused.push((hit, score));
    }
    fused.sort_by(|(left, left_score), (right, right_score)| {
        right_score
            .total_cmp(left_score)
            .then_with(|| right.timestamp_micros.cmp(&left.timestamp_micros))
            .then_with(|| left.event_id.cmp(&right.event_id))
    });
    // Scores on BM25's scale, so `search_sessions`' normalised score reads as before.
    let scale = if best_lexical > 0.0 {
        best_lexical
    } else {
        1.0
    };
    fused
        .into_iter()
        .take(limit)
        .map(|(mut hit, score)| {
            hit.raw_score = score * scale;
            hit
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f32) -> SearchHit {
        SearchHit {
            event_id: id.into(),
            session_id: format!("session:{id}"),
            turn_id: format!("turn:{id}"),
            raw_score: score,
            timestamp_micros: None,
            location: crate::search::EventLocation {
                session_id: format!("session:{id}"),
                source: "codex".into(),
                month: "2026-01".into(),
                seq: 0,
            },
        }
    }

    fn ids(hits: &[SearchHit]) -> Vec<&str> {
        hits.iter().map(|hit| hit.event_id.as_str()).collect()
    }

    #[test]
    fn identifiers_paths_quotes_and_single_words_are_lexical_first() {
        for text in [
            "src/search/mod.rs",
            "search::hybrid",
            "entityManagerFactory not created",
            "supports_websockets flag",
            "\"connection refused\"",
            "failed with 403",
            "docker compose up -d",
            "clippy",
        ] {
            assert!(is_identifier_like(text), "{text}");
            assert_eq!(
                blend_for(text, false, FusionWeights::default()),
                Blend::LexicalFirst
            );
        }
        for text in [
            "where did we fix the flaky login test",
            "cross-platform static server",
        ] {
            assert!(!is_identifier_like(text), "{text}");
        }
        let weights = FusionWeights::default();
        assert_eq!(
            blend_for("flaky login test", true, weights),
            Blend::Convex {
                semantic_weight: weights.rare
            }
        );
    }

    #[test]
    fn lexical_first_keeps_the_bm25_order_and_fills_empty_slots() {
        let lexical = vec![(hit("a", 9.0), Some(0.1)), (hit("b", 4.0), None)];
        let semantic = vec![
            (hit("c", 0.0), 0.9),
            (hit("a", 0.0), 0.8),
            (hit("d", 0.0), 0.5),
        ];
        let fused = fuse(Blend::LexicalFirst, lexical.clone(), semantic.clone(), 3);
        assert_eq!(ids(&fused), ["a", "b", "c"]);
        assert!(fused[2].raw_score < fused[1].raw_score);
        assert_eq!(
            ids(&fuse(Blend::LexicalFirst, lexical, semantic, 2)),
            ["a", "b"]
        );
    }

    #[test]
    fn the_convex_blend_lets_a_close_vector_hit_pass_a_weak_word_match() {
        let lexical = vec![
            (hit("common_word", 5.0), Some(0.05)),
            (hit("tool_output", 4.0), None),
        ];
        let semantic = vec![
            (hit("paraphrase", 0.0), 0.60),
            (hit("common_word", 0.0), 0.05),
            (hit("unrelated", 0.0), 0.02),
        ];
        let position =
            |hits: &[SearchHit], id: &str| hits.iter().position(|hit| hit.event_id == id);
        let leaning_semantic = Blend::Convex {
            semantic_weight: 0.7,
        };
        let fused = fuse(leaning_semantic, lexical.clone(), semantic.clone(), 10);
        assert_eq!(fused.len(), 4, "{:?}", ids(&fused));
        assert!(position(&fused, "paraphrase") < position(&fused, "common_word"));
        assert_eq!(
            ids(&fused)[0],
            "tool_output",
            "no vector: its BM25 share stands for both"
        );
        let leaning_lexical = Blend::Convex {
            semantic_weight: 0.3,
        };
        let fused = fuse(leaning_lexical, lexical, semantic, 10);
        assert_eq!(
            ids(&fused)[..3],
            ["tool_output", "common_word", "paraphrase"]
        );
        assert!(
            fused
                .windows(2)
                .all(|pair| pair[0].raw_score >= pair[1].raw_score)
        );
    }

    #[test]
    fn without_lexical_hits_the_vector_order_is_kept() {
        let semantic = vec![
            (hit("x", 0.0), 0.5),
            (hit("y", 0.0), 0.4),
            (hit("z", 0.0), 0.1),
        ];
        let fused = fuse(
            Blend::Convex {
                semantic_weight: 0.7,
            },
            Vec::new(),
            semantic,
            2,
        );
        assert_eq!(ids(&fused), ["x", "y"]);
    }
}
