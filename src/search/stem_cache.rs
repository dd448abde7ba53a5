//! The English Snowball stemmer of the `text` field, with a cache: each distinct token is
//! stemmed once per tokenizer (an indexing thread's segment, a query), not once per
//! occurrence. Stemming was ~9% of an indexing pass's CPU; a token repeats many times.
//! The stems are exactly those of tantivy's `Stemmer` (the same `frostem` algorithm).

use std::borrow::Cow;
use std::collections::HashMap;

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Distinct tokens kept before the cache starts over (memory stays under a few MB).
const MAX_CACHED_STEMS: usize = 100_000;

/// A [`TokenFilter`] stemming lowercased tokens with the English Snowball algorithm.
#[derive(Clone, Copy, Debug, Default)]
pub struct CachedEnglishStemmer;

impl TokenFilter for CachedEnglishStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner: tokenizer,
            stems: StemCache::default(),
        }
    }
}

/// Stems by token text; `None` when stemming leaves the token as it is.
#[derive(Clone, Default)]
struct StemCache {
    stems: HashMap<Box<str>, Option<Box<str>>, foldhash::fast::RandomState>,
}

impl StemCache {
    /// Replaces `token` by its stem.
    fn stem_in_place(&mut self, token: &mut String) {
        if let Some(stem) = self.stems.get(token.as_str()) {
            if let Some(stem) = stem {
                token.clear();
                token.push_str(stem);
            }
            return;
        }
        let stem = match english().stem(token) {
            Cow::Borrowed(same) if same.len() == token.len() => None,
            stemmed => Some(Box::<str>::from(stemmed.as_ref())),
        };
        if self.stems.len() >= MAX_CACHED_STEMS {
            self.stems.clear();
        }
        let key = Box::<str>::from(token.as_str());
        if let Some(stem) = &stem {
            token.clear();
            token.push_str(stem);
        }
        self.stems.insert(key, stem);
    }
}

fn english() -> frostem::Stemmer {
    frostem::Stemmer::new(frostem::Algorithm::English)
}

#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    inner: T,
    stems: StemCache,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stems: &mut self.stems,
        }
    }
}

pub struct CachedStemmerStream<'a, T> {
    tail: T,
    stems: &'a mut StemCache,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        self.stems.stem_in_place(&mut self.tail.token_mut().text);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{Language, SimpleTokenizer, Stemmer, TextAnalyzer};

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn stems_as_tantivys_stemmer_does_on_first_and_repeated_tokens() {
        let text = "running runs ran connections connected the migrations failed \
                    failing failures generously caresses ponies sky skies 東京 runs running";
        let mut cached = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedEnglishStemmer)
            .build();
        let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(Stemmer::new(Language::English))
            .build();
        let expected = tokens(&mut plain, text);
        assert_eq!(tokens(&mut cached, text), expected);
        // Second pass: every stem now comes from the cache.
        assert_eq!(tokens(&mut cached, text), expected);
        assert_eq!(expected[0], "run");
        assert_eq!(expected[3], "connect");
    }

    #[test]
    fn a_full_cache_starts_over_and_still_stems() {
        let mut cache = StemCache::default();
        for number in 0..MAX_CACHED_STEMS + 10 {
            let mut token = format!("walking{number}");
            cache.stem_in_place(&mut token);
        }
        assert!(cache.stems.len() <= MAX_CACHED_STEMS);
        let mut token = "walking".to_string();
        cache.stem_in_place(&mut token);
        assert_eq!(token, "walk");
        let mut again = "walking".to_string();
        cache.stem_in_place(&mut again);
        assert_eq!(again, "walk");
    }
}
