//! Which characters make words (issue #23): scripts written with spaces between words (Latin,
//! Cyrillic, Greek, Arabic, ...) form *word* runs, while scripts written without them — Chinese,
//! Japanese and Korean (Han, Hiragana, Katakana, Hangul, as Lucene's CJKAnalyzer bigrams them)
//! and the Southeast Asian scripts Thai, Lao, Khmer and Myanmar — form *bigram* runs, which the
//! analyzers cut into overlapping pairs of characters. Also folds fullwidth ASCII (`ＡＰＩ`,
//! `１２３`), common in CJK text, to ASCII, as Lucene's CJKWidthFilter does.

/// What a character contributes to a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharClass {
    /// A letter or digit of a script written with spaces between words.
    Word,
    /// A character of a script written without spaces between words.
    Bigram,
    /// Anything else (spaces, punctuation, symbols).
    Other,
}

/// The class of `character`.
#[inline]
pub fn class_of(character: char) -> CharClass {
    if character.is_ascii() {
        return if character.is_ascii_alphanumeric() {
            CharClass::Word
        } else {
            CharClass::Other
        };
    }
    if is_cjk(character) {
        // CJK punctuation (`、。「」・`) is not alphanumeric; `ー` and `々` are.
        return if character.is_alphanumeric() {
            CharClass::Bigram
        } else {
            CharClass::Other
        };
    }
    if is_southeast_asian(character) {
        // Their vowel signs and tone marks are not alphanumeric but belong to the syllable.
        return if is_southeast_asian_punctuation(character) {
            CharClass::Other
        } else {
            CharClass::Bigram
        };
    }
    if character.is_alphanumeric() {
        CharClass::Word
    } else {
        CharClass::Other
    }
}

/// Han (with radicals and ideographic iteration marks), Hiragana, Katakana (with halfwidth
/// forms) and Hangul (syllables and jamo).
fn is_cjk(character: char) -> bool {
    matches!(character as u32,
        0x1100..=0x11FF // Hangul jamo
        | 0x2E80..=0x2FDF // CJK and Kangxi radicals
        | 0x3005..=0x3007 // 々 〆 〇
        | 0x3021..=0x3029 // Hangzhou numerals
        | 0x3031..=0x3035 // vertical kana repeat marks
        | 0x3038..=0x303C
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xA960..=0xA97F // Hangul jamo extended A
        | 0xAC00..=0xD7FF // Hangul syllables, jamo extended B
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // halfwidth Katakana
        | 0xFFA0..=0xFFDC // halfwidth Hangul
        | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// Thai, Lao, Myanmar and Khmer.
fn is_southeast_asian(character: char) -> bool {
    matches!(character as u32, 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF)
}

/// The punctuation and currency signs of those blocks, which separate runs.
fn is_southeast_asian_punctuation(character: char) -> bool {
    matches!(character as u32,
        0x0E3F | 0x0E4F | 0x0E5A | 0x0E5B // Thai baht, fongman, angkhankhu, khomut
        | 0x0EAF // Lao ellipsis
        | 0x104A..=0x104F // Myanmar section marks
        | 0x17D4..=0x17DB // Khmer punctuation and riel
    )
}

/// `character` with fullwidth ASCII variants (U+FF01..U+FF5E) and the ideographic space folded
/// to ASCII.
pub fn fold_width(character: char) -> char {
    match character as u32 {
        code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFF01 + 0x21).unwrap_or(character),
        0x3000 => ' ',
        _ => character,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_without_spaces_are_bigram_characters() {
        for character in [
            '日', '本', 'の', 'カ', 'ー', '々', '한', 'ก', '่', 'ສ', 'က', 'ក',
        ] {
            assert_eq!(class_of(character), CharClass::Bigram, "{character:?}");
        }
        for character in ['a', 'Z', '7', 'é', 'ß', 'ж', 'λ', 'ع'] {
            assert_eq!(class_of(character), CharClass::Word, "{character:?}");
        }
        for character in [' ', '_', '、', '。', '「', '・', '฿', '๏', '!'] {
            assert_eq!(class_of(character), CharClass::Other, "{character:?}");
        }
    }

    #[test]
    fn fullwidth_ascii_folds_to_ascii() {
        let folded: String = "ＡＰＩ１２３！　x".chars().map(fold_width).collect();
        assert_eq!(folded, "API123! x");
    }
}
