//! What turns text into vectors: the installed static model (in-process) or an embeddings
//! endpoint. Every vector it returns is L2-normalised, so a dot product is a cosine.

use std::path::Path;

use model2vec_rs::model::StaticModel;

use super::endpoint::Endpoint;
use super::model_files::{is_installed, load_model, model_dir};
use super::{SemanticError, SemanticSettings};

/// Tokens of a text that count (model2vec's default): a long event is embedded by its start.
const MAX_TOKENS: usize = 512;

/// Texts embedded per endpoint request.
const ENDPOINT_BATCH: usize = 64;

/// An embedding model and the key that names its vectors.
#[derive(Debug, Clone)]
pub struct Embedder {
    kind: EmbedderKind,
    key: String,
}

#[derive(Debug, Clone)]
enum EmbedderKind {
    Static(StaticModel),
    Endpoint(Endpoint),
}

impl Embedder {
    /// The embedder `settings` choose for `data_dir`: the endpoint when one is given, else the
    /// installed model; `None` when there is neither (search stays lexical).
    pub fn for_settings(
        data_dir: &Path,
        settings: &SemanticSettings,
    ) -> Result<Option<Embedder>, SemanticError> {
        if let Some(url) = &settings.embeddings_url {
            return Ok(Some(Embedder::endpoint(Endpoint::new(
                url,
                &settings.embeddings_model,
            ))));
        }
        if !is_installed(data_dir) {
            return Ok(None);
        }
        Embedder::installed(&model_dir(data_dir)).map(Some)
    }

    /// The static model installed in `dir`.
    pub fn installed(dir: &Path) -> Result<Embedder, SemanticError> {
        let (model, origin) = load_model(dir)?;
        Ok(Embedder {
            kind: EmbedderKind::Static(model),
            key: origin.key,
        })
    }

    /// An endpoint; its vectors are named by its model.
    pub fn endpoint(endpoint: Endpoint) -> Embedder {
        let model: String = endpoint
            .model()
            .chars()
            .map(|character| {
                if character.is_ascii_alphanumeric() || character == '.' || character == '-' {
                    character
                } else {
                    '_'
                }
            })
            .collect();
        Embedder {
            key: format!("endpoint-{model}"),
            kind: EmbedderKind::Endpoint(endpoint),
        }
    }

    /// Names the vectors of this model (their sidecar directory).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The normalised vectors of `texts`, in order.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, SemanticError> {
        let mut vectors = match &self.kind {
            EmbedderKind::Static(model) => {
                model.encode_with_args(texts, Some(MAX_TOKENS), texts.len().max(1))
            }
            EmbedderKind::Endpoint(endpoint) => {
                let mut vectors = Vec::with_capacity(texts.len());
                for batch in texts.chunks(ENDPOINT_BATCH) {
                    vectors.extend(endpoint.embed(batch)?);
                }
                vectors
            }
        };
        vectors.iter_mut().for_each(|vector| normalize(vector));
        Ok(vectors)
    }

    /// The normalised vector of a search query.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, SemanticError> {
        let mut vector = match &self.kind {
            EmbedderKind::Static(model) => model.encode_single(text),
            EmbedderKind::Endpoint(endpoint) => endpoint.embed_query(text)?,
        };
        normalize(&mut vector);
        Ok(vector)
    }
}

/// Scales `vector` to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
    if norm > 1e-12 {
        vector.iter_mut().for_each(|value| *value /= norm);
    }
}
