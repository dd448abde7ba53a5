//! Terminal presentation shared by the commands: colour only when the stream is a terminal
//! (never with `NO_COLOR`, always with `CLICOLOR_FORCE` or `--color always`), the palette,
//! relative and absolute times, token counts and text cut to a few lines.

use anstyle::{AnsiColor, Style};
use chrono::{DateTime, Utc};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub const TITLE: Style = Style::new().bold();
pub const DIM: Style = Style::new().dimmed();
pub const SOURCE: Style = AnsiColor::Cyan.on_default();
pub const PROJECT: Style = AnsiColor::Magenta.on_default();
pub const MATCH: Style = AnsiColor::Yellow.on_default().bold();
pub const COMMAND: Style = AnsiColor::Green.on_default();
pub const NOTICE: Style = AnsiColor::Yellow.on_default();
pub const USER: Style = AnsiColor::Blue.on_default().bold();
pub const ASSISTANT: Style = AnsiColor::Green.on_default().bold();
pub const TOOL: Style = AnsiColor::Cyan.on_default();
pub const ERROR: Style = AnsiColor::Red.on_default();

/// Whether stdout gets colour (a terminal, no `NO_COLOR`, or forced).
pub fn stdout_colors() -> bool {
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

/// Whether stderr gets colour.
pub fn stderr_colors() -> bool {
    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
}

/// `text` in `style` when colour is on, else as is.
pub fn paint(style: Style, text: &str, colors: bool) -> String {
    if colors && !text.is_empty() {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_owned()
    }
}

/// Parses an RFC 3339 timestamp as the tools emit it.
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|time| time.with_timezone(&Utc))
}

/// `2026-04-30 13:05 UTC`.
pub fn absolute_time(time: DateTime<Utc>) -> String {
    time.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// `5 minutes ago`, `3 days ago`, `in 2 hours` relative to `now`.
pub fn relative_time(time: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (now - time).num_seconds();
    let magnitude = seconds.unsigned_abs();
    let (count, unit) = match magnitude {
        0..60 => return "just now".to_owned(),
        60..3_600 => (magnitude / 60, "minute"),
        3_600..86_400 => (magnitude / 3_600, "hour"),
        86_400..2_592_000 => (magnitude / 86_400, "day"),
        2_592_000..31_536_000 => (magnitude / 2_592_000, "month"),
        _ => (magnitude / 31_536_000, "year"),
    };
    let plural = if count == 1 { "" } else { "s" };
    if seconds >= 0 {
        format!("{count} {unit}{plural} ago")
    } else {
        format!("in {count} {unit}{plural}")
    }
}

/// `1h 05m`, `12m`, `40s`.
pub fn duration_text(seconds: i64) -> String {
    let seconds = seconds.max(0);
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3_600 => format!("{}m", seconds / 60),
        _ => format!("{}h {:02}m", seconds / 3_600, (seconds % 3_600) / 60),
    }
}

/// `1,234,567`.
pub fn thousands(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value < 0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// The first `max_lines` lines of `text` and how many were left out.
pub fn first_lines(text: &str, max_lines: usize) -> (Vec<&str>, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.len().min(max_lines);
    (lines[..shown].to_vec(), lines.len() - shown)
}

/// Columns `text` takes on a terminal (wide characters count two).
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` on one line, cut to `max_width` terminal columns with `…`.
pub fn one_line(text: &str, max_width: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if width(&flat) <= max_width {
        return flat;
    }
    let mut cut = String::new();
    let mut used = 0;
    for character in flat.chars() {
        let character_width = UnicodeWidthChar::width(character).unwrap_or(0);
        if used + character_width > max_width.saturating_sub(1) {
            break;
        }
        used += character_width;
        cut.push(character);
    }
    cut.push('…');
    cut
}

/// `text` with every case-insensitive occurrence of the query's words painted as a match.
pub fn highlight(text: &str, query: &str, colors: bool) -> String {
    if !colors {
        return text.to_owned();
    }
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.len() >= 2)
        .map(str::to_lowercase)
        .collect();
    let mut painted = String::with_capacity(text.len());
    let mut word_start: Option<usize> = None;
    let flush = |painted: &mut String, word: &str| {
        let lowered = word.to_lowercase();
        if words
            .iter()
            .any(|query_word| lowered.starts_with(query_word.as_str()))
        {
            painted.push_str(&paint(MATCH, word, true));
        } else {
            painted.push_str(word);
        }
    };
    for (index, character) in text.char_indices() {
        if character.is_alphanumeric() {
            word_start.get_or_insert(index);
            continue;
        }
        if let Some(start) = word_start.take() {
            flush(&mut painted, &text[start..index]);
        }
        painted.push(character);
    }
    if let Some(start) = word_start {
        flush(&mut painted, &text[start..]);
    }
    painted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_read_naturally() {
        let now = parse_time("2026-05-10T12:00:00Z").unwrap();
        let at = |text| relative_time(parse_time(text).unwrap(), now);
        assert_eq!(at("2026-05-10T11:59:30Z"), "just now");
        assert_eq!(at("2026-05-10T11:00:00Z"), "1 hour ago");
        assert_eq!(at("2026-05-07T12:00:00Z"), "3 days ago");
        assert_eq!(at("2026-05-10T14:00:00Z"), "in 2 hours");
    }

    #[test]
    fn numbers_and_text_are_shortened_for_people() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(duration_text(3_900), "1h 05m");
        assert_eq!(one_line("a\n  b c", 4), "a b…");
        assert_eq!(one_line("已改成全局方案了", 7), "已改成…");
        assert_eq!(width("已改"), 4);
        assert_eq!(first_lines("1\n2\n3", 2), (vec!["1", "2"], 1));
    }

    #[test]
    fn highlighting_paints_query_words_only_with_colour() {
        assert_eq!(
            highlight("Fix the migration", "migration", false),
            "Fix the migration"
        );
        let painted = highlight("Fix the migration", "migration", true);
        assert!(painted.contains("\u{1b}["));
        assert!(painted.starts_with("Fix the "));
    }
}
