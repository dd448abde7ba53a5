//! The installed static model: `<data_dir>/models/static/` in the model2vec layout
//! (`tokenizer.json`, `model.safetensors`, `config.json`) plus `origin.json` saying where the
//! weights came from, under which licence, and the key that names their vectors.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use model2vec_rs::model::StaticModel;
use safetensors::tensor::{Dtype, TensorView};
use sha2::{Digest, Sha256};

use super::SemanticError;

pub const TOKENIZER_FILE: &str = "tokenizer.json";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const CONFIG_FILE: &str = "config.json";
pub const ORIGIN_FILE: &str = "origin.json";

/// Where the weights came from, recorded at install.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    /// What the model is (`wordllama l2_supercat_256`).
    pub name: String,
    /// Where it was taken from (`PyPI wordllama==0.4.0.post1`, a local path).
    pub source: String,
    /// The licence of the weights as far as known.
    pub licence: String,
    /// Names the vectors this model makes: `static-` + the first 16 hex digits of the sha256
    /// of the weights and the tokenizer. Another model gets other vectors.
    pub key: String,
}

/// The model directory of a data dir.
pub fn model_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join("static")
}

/// The key of a model: a hash of its weights and tokenizer.
pub fn model_key(weights: &[u8], tokenizer: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(weights);
    hasher.update(tokenizer);
    let digest = hasher.finalize();
    let hex: String = digest[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("static-{hex}")
}

/// Writes a model directory from a tokenizer JSON and safetensors weights.
pub fn write_model_dir(
    dir: &Path,
    tokenizer: &[u8],
    weights: &[u8],
    name: &str,
    source: &str,
    licence: &str,
) -> Result<Origin, SemanticError> {
    std::fs::create_dir_all(dir).map_err(SemanticError::io(dir))?;
    let origin = Origin {
        name: name.to_owned(),
        source: source.to_owned(),
        licence: licence.to_owned(),
        key: model_key(weights, tokenizer),
    };
    let write = |file: &str, bytes: &[u8]| {
        let path = dir.join(file);
        std::fs::write(&path, bytes).map_err(SemanticError::io(path))
    };
    write(TOKENIZER_FILE, tokenizer)?;
    write(WEIGHTS_FILE, weights)?;
    write(CONFIG_FILE, br#"{"normalize": true}"#)?;
    let origin_json = serde_json::to_vec_pretty(&origin).expect("origin serializes");
    write(ORIGIN_FILE, &origin_json)?;
    Ok(origin)
}

/// Whether `data_dir` has an installed model.
pub fn is_installed(data_dir: &Path) -> bool {
    model_dir(data_dir).join(ORIGIN_FILE).is_file()
}

/// Reads the origin of the installed model.
pub fn read_origin(dir: &Path) -> Result<Origin, SemanticError> {
    let path = dir.join(ORIGIN_FILE);
    let bytes = std::fs::read(&path).map_err(SemanticError::io(&path))?;
    serde_json::from_slice(&bytes).map_err(|error| SemanticError::Model {
        path,
        message: error.to_string(),
    })
}

/// Loads the model of `dir`, its embedding table quantised to int8 (one scale per row).
pub fn load_model(dir: &Path) -> Result<(StaticModel, Origin), SemanticError> {
    let origin = read_origin(dir)?;
    let read = |file: &str| {
        let path = dir.join(file);
        std::fs::read(&path).map_err(SemanticError::io(path))
    };
    let model = StaticModel::from_bytes(
        read(TOKENIZER_FILE)?,
        read(WEIGHTS_FILE)?,
        read(CONFIG_FILE)?,
        Some(true),
    )
    .map_err(|error| SemanticError::Model {
        path: dir.to_path_buf(),
        message: format!("{error:#}"),
    })?;
    Ok((model.quantize_int8(), origin))
}

/// A WordPiece tokenizer JSON (the `tokenizers` format, lowercasing BERT normalizer) over
/// `words`; id 0 is `[UNK]`, word `i` gets id `i + 1`.
pub fn word_piece_tokenizer(words: &[&str]) -> Vec<u8> {
    let mut vocab = serde_json::Map::new();
    vocab.insert("[UNK]".into(), 0.into());
    for (index, word) in words.iter().enumerate() {
        vocab.insert((*word).to_owned(), (index + 1).into());
    }
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": true,
            "handle_chinese_chars": true,
            "strip_accents": null,
            "lowercase": true
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null,
        "decoder": null,
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": vocab
        }
    });
    serde_json::to_vec(&tokenizer).expect("tokenizer serializes")
}

/// Safetensors bytes of one F32 tensor `embeddings` of `rows` x `dim`.
pub fn embedding_safetensors(table: &[f32], rows: usize, dim: usize) -> Vec<u8> {
    let bytes: Vec<u8> = table.iter().flat_map(|value| value.to_le_bytes()).collect();
    let view = TensorView::new(Dtype::F32, vec![rows, dim], &bytes).expect("table shape");
    let tensors: HashMap<String, TensorView<'_>> = HashMap::from([("embeddings".into(), view)]);
    safetensors::serialize(tensors, &None).expect("safetensors serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random table over a few words: the loader takes the generated tokenizer and weights.
    #[test]
    fn a_generated_model_loads_and_embeds_words_by_their_rows() {
        let words = ["flaky", "login", "test", "readme"];
        let dim = 8;
        let mut table = vec![0.0f32; (words.len() + 1) * dim];
        let mut state = 7u32;
        for value in table.iter_mut().skip(dim) {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *value = (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let tokenizer = word_piece_tokenizer(&words);
        let weights = embedding_safetensors(&table, words.len() + 1, dim);
        let written = write_model_dir(dir.path(), &tokenizer, &weights, "t", "test", "none")
            .expect("written");
        let (model, origin) = load_model(dir.path()).expect("loads");
        assert_eq!(origin, written);
        assert!(origin.key.starts_with("static-"));
        assert_eq!(model.dim(), dim);
        let flaky = model.encode_single("Flaky");
        let row = &table[dim..2 * dim];
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        for (got, want) in flaky.iter().zip(row) {
            assert!((got - want / norm).abs() < 0.02, "{flaky:?} vs {row:?}");
        }
        let unknown = model.encode_single("zebra");
        assert!(
            unknown.iter().all(|x| x.abs() < 1e-6),
            "unknown words add nothing"
        );
    }
}
