//! An OpenAI-compatible embeddings endpoint (`POST …/embeddings`, `{"model", "input": [...]}` →
//! `{"data": [{"index", "embedding"}]}`), such as a local Ollama's `http://localhost:11434/v1`.
//! Plain HTTP only (no TLS in this build): meant for endpoints on the user's own machine.

use std::time::Duration;

use serde_json::{Value, json};

use super::SemanticError;

/// How long one batch of texts may take at the indexer.
const BATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a query's embedding may take: well inside `search_sessions`' 5 s deadline, so a
/// hung endpoint leaves the answer lexical instead of late.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// A client of one endpoint and model.
#[derive(Clone)]
pub struct Endpoint {
    /// The full `…/embeddings` URL.
    url: String,
    model: String,
    agent: ureq::Agent,
    query_agent: ureq::Agent,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// A client of `url` (the embeddings URL itself, or its base: `/embeddings` is appended
    /// unless the path already ends with it).
    pub fn new(url: &str, model: &str) -> Endpoint {
        let trimmed = url.trim_end_matches('/');
        let url = if trimmed.ends_with("/embeddings") {
            trimmed.to_owned()
        } else {
            format!("{trimmed}/embeddings")
        };
        let agent_with = |timeout: Duration| -> ureq::Agent {
            ureq::Agent::config_builder()
                .timeout_global(Some(timeout))
                .build()
                .into()
        };
        Endpoint {
            url,
            model: model.to_owned(),
            agent: agent_with(BATCH_TIMEOUT),
            query_agent: agent_with(QUERY_TIMEOUT),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// The embeddings of `texts`, in order.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, SemanticError> {
        self.embed_with(&self.agent, texts)
    }

    /// The embedding of a search query (a short timeout).
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, SemanticError> {
        let mut vectors = self.embed_with(&self.query_agent, &[text.to_owned()])?;
        Ok(vectors.pop().unwrap_or_default())
    }

    fn embed_with(
        &self,
        agent: &ureq::Agent,
        texts: &[String],
    ) -> Result<Vec<Vec<f32>>, SemanticError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let body = json!({"model": self.model, "input": texts});
        let response: Value = agent
            .post(&self.url)
            .send_json(&body)
            .map_err(|error| self.error(error.to_string()))?
            .into_body()
            .read_json()
            .map_err(|error| self.error(error.to_string()))?;
        let vectors =
            parse_embeddings(&response, texts.len()).map_err(|message| self.error(message))?;
        Ok(vectors)
    }

    fn error(&self, message: String) -> SemanticError {
        SemanticError::Endpoint {
            url: self.url.clone(),
            message,
        }
    }
}

/// The vectors of an embeddings response, ordered by `index` (entries without one keep their
/// position).
fn parse_embeddings(response: &Value, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    let data = response["data"]
        .as_array()
        .ok_or_else(|| "the response has no `data` array".to_owned())?;
    if data.len() != expected {
        return Err(format!("{} embeddings for {expected} inputs", data.len()));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (position, entry) in data.iter().enumerate() {
        let index = entry["index"]
            .as_u64()
            .map_or(position, |index| index as usize);
        let values = entry["embedding"]
            .as_array()
            .ok_or_else(|| "an entry has no `embedding` array".to_owned())?;
        let vector = values
            .iter()
            .map(|value| value.as_f64().map(|number| number as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| "an embedding holds a non-number".to_owned())?;
        let slot = vectors
            .get_mut(index)
            .ok_or_else(|| format!("embedding index {index} out of range"))?;
        *slot = Some(vector);
    }
    vectors
        .into_iter()
        .map(|vector| vector.ok_or_else(|| "an input got no embedding".to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_the_embeddings_path_once() {
        let base = Endpoint::new("http://localhost:11434/v1/", "m");
        assert_eq!(base.url(), "http://localhost:11434/v1/embeddings");
        let full = Endpoint::new("http://h:1/v1/embeddings", "m");
        assert_eq!(full.url(), "http://h:1/v1/embeddings");
    }

    #[test]
    fn responses_are_ordered_by_index_and_checked() {
        let response = json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]});
        assert_eq!(
            parse_embeddings(&response, 2).unwrap(),
            vec![vec![1.0, 0.0], vec![0.0, 1.0]]
        );
        assert!(parse_embeddings(&response, 3).is_err());
        assert!(parse_embeddings(&json!({"error": "x"}), 1).is_err());
        assert!(parse_embeddings(&json!({"data": [{"embedding": ["a"]}]}), 1).is_err());
    }
}
