//! A `USER_INPUT` record's content: only its `<USER_REQUEST>` block is the user's words;
//! `<ADDITIONAL_METADATA>` (local time, IDE documents and browser state, expanded `@[path]`
//! mentions) and `<USER_SETTINGS_CHANGE>` (model switches) are context the harness added.

/// A prompt split into the user's words and the context around them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prompt {
    /// The text of the `<USER_REQUEST>` blocks (the whole content when it has no blocks).
    pub request: String,
    /// Everything else, when there is any.
    pub context: Option<String>,
    /// The model display name a `Model Selection` settings change switched to.
    pub model: Option<String>,
}

const REQUEST_OPEN: &str = "<USER_REQUEST>";
const REQUEST_CLOSE: &str = "</USER_REQUEST>";

/// Splits a `USER_INPUT` content.
pub fn split(content: &str) -> Prompt {
    let model = selected_model(content);
    if !content.contains(REQUEST_OPEN) {
        let bare = !content.trim_start().starts_with('<');
        return Prompt {
            request: if bare {
                content.trim().to_string()
            } else {
                String::new()
            },
            context: (!bare).then(|| content.trim().to_string()),
            model,
        };
    }
    let mut requests = Vec::new();
    let mut context = String::new();
    let mut rest = content;
    while let Some(open) = rest.find(REQUEST_OPEN) {
        context.push_str(&rest[..open]);
        let after_open = &rest[open + REQUEST_OPEN.len()..];
        // A cut (compact) record may lack the closing tag: the rest is the request.
        let (request, after) = match after_open.find(REQUEST_CLOSE) {
            Some(close) => (
                &after_open[..close],
                &after_open[close + REQUEST_CLOSE.len()..],
            ),
            None => (after_open, ""),
        };
        requests.push(request.trim());
        rest = after;
    }
    context.push_str(rest);
    let context = context.trim();
    Prompt {
        request: requests
            .into_iter()
            .filter(|request| !request.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        context: (!context.is_empty()).then(|| context.to_string()),
        model,
    }
}

/// "The user changed setting `Model Selection` from None to Gemini 3.5 Flash (Medium). No
/// need to comment…" → `Gemini 3.5 Flash (Medium)`.
fn selected_model(content: &str) -> Option<String> {
    let after_setting = content.split_once("`Model Selection` from ")?.1;
    let after_to = after_setting.split_once(" to ")?.1;
    let end = [". ", ".\n", "\n"]
        .iter()
        .filter_map(|stop| after_to.find(stop))
        .min()
        .unwrap_or(after_to.len());
    let model = after_to[..end].trim().trim_end_matches('.').trim();
    (!model.is_empty() && model != "None").then(|| model.to_string())
}

/// IDE prompts describe the editor: `Active Document:` or `Browser State:`.
pub fn has_editor_state(content: &str) -> bool {
    content.contains("\nActive Document:") || content.contains("\nBrowser State:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_request_and_reads_the_model_switch() {
        let content = "<USER_REQUEST>\nfix the login bug\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\n\
            The current local time is: 2026-06-16T21:39:31+05:30.\n</ADDITIONAL_METADATA>\n\
            <USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from None to Gemini 3.5 \
            Flash (Medium). No need to comment on this change.\n</USER_SETTINGS_CHANGE>";
        let prompt = split(content);
        assert_eq!(prompt.request, "fix the login bug");
        assert_eq!(prompt.model.as_deref(), Some("Gemini 3.5 Flash (Medium)"));
        let context = prompt.context.unwrap();
        assert!(context.starts_with("<ADDITIONAL_METADATA>"), "{context}");
        assert!(!context.contains("fix the login bug"));
    }

    #[test]
    fn a_cut_request_keeps_its_words_and_bare_text_is_the_prompt() {
        let cut = split("<USER_REQUEST>\nrefactor the parser\n<truncated 120 bytes>");
        assert_eq!(cut.request, "refactor the parser\n<truncated 120 bytes>");
        assert_eq!(split("just words").request, "just words");
        let only_context = split("<ADDITIONAL_METADATA>\ntime\n</ADDITIONAL_METADATA>");
        assert_eq!(only_context.request, "");
        assert!(only_context.context.is_some());
        assert_eq!(split("plain").model, None);
    }

    #[test]
    fn editor_state_marks_ide_prompts() {
        assert!(has_editor_state(
            "<ADDITIONAL_METADATA>\nActive Document: c:\\x.py (LANGUAGE_PYTHON)\n"
        ));
        assert!(!has_editor_state("<ADDITIONAL_METADATA>\ntime\n"));
    }
}
