//! `esker model install`: puts a static model into `<data_dir>/models/static/`.
//!
//! By default the pinned PyPI wheel of WordLlama (`pip download`, one registry download, no
//! model hub) is fetched, its sha256 checked against the pin, and its token table and tokenizer
//! unpacked into the model2vec layout. `--from-file` takes the same wheel already downloaded
//! (checked the same way) or a model2vec directory (`tokenizer.json` + `model.safetensors`,
//! e.g. a model distilled locally), recorded as the user's own.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use super::SemanticError;
use super::model_files::{Origin, TOKENIZER_FILE, WEIGHTS_FILE, model_dir, write_model_dir};

/// The pinned wheel: what is downloaded, what it must hash to, and where the files are in it.
pub struct PinnedWheel {
    pub requirement: &'static str,
    pub sha256: &'static str,
    pub weights: &'static str,
    pub tokenizer: &'static str,
    pub name: &'static str,
    pub licence: &'static str,
}

/// WordLlama 0.4.0.post1 (PyPI, MIT): the `l2_supercat` 256-d token table (32000 × 256, F16)
/// and its Llama-2 BPE tokenizer.
pub const WORDLLAMA: PinnedWheel = PinnedWheel {
    requirement: "wordllama==0.4.0.post1",
    sha256: "42c2c88907ace0b0681ac6f9092d6a300a6409a5d2d61071a3fb5e7159370c97",
    weights: "wordllama/weights/l2_supercat_256.safetensors",
    tokenizer: "wordllama/tokenizers/l2_supercat_tokenizer_config.json",
    name: "WordLlama l2_supercat_256 (static token embeddings, 256-d)",
    licence: "MIT (wordllama package); the codebook was trained from the token embeddings of \
              LLaMA 2 70B and phi-3 medium, so the Llama 2 Community License may bear on it",
};

/// Downloads the pinned wheel with pip into a temporary directory and installs it.
pub fn install_from_pip(data_dir: &Path) -> Result<Origin, SemanticError> {
    let download = tempfile::tempdir().map_err(SemanticError::io(std::env::temp_dir()))?;
    let status = pip_command()
        .args(["download", "--no-deps", "--only-binary=:all:"])
        .args([
            "--python-version",
            "3.11",
            "--platform",
            "manylinux2014_x86_64",
        ])
        .arg("--dest")
        .arg(download.path())
        .arg(WORDLLAMA.requirement)
        // pip's progress is a log: stderr, like every log of esker's.
        .stdout(std::process::Stdio::from(std::io::stderr()))
        .status()
        .map_err(|error| {
            SemanticError::Install(format!(
                "cannot run pip ({error}); download {} yourself and pass it with --from-file",
                WORDLLAMA.requirement
            ))
        })?;
    if !status.success() {
        return Err(SemanticError::Install(format!(
            "pip download {} failed ({status})",
            WORDLLAMA.requirement
        )));
    }
    let wheel = find_wheel(download.path())?;
    install_wheel(data_dir, &wheel)
}

/// `$ESKER_PIP` (a command, e.g. `pip3`) or `python3 -m pip`.
fn pip_command() -> Command {
    match std::env::var("ESKER_PIP") {
        Ok(pip) if !pip.trim().is_empty() => Command::new(pip),
        _ => {
            let mut command = Command::new("python3");
            command.args(["-m", "pip"]);
            command
        }
    }
}

fn find_wheel(dir: &Path) -> Result<PathBuf, SemanticError> {
    let entries = std::fs::read_dir(dir).map_err(SemanticError::io(dir))?;
    entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .ok_or_else(|| SemanticError::Install("pip downloaded no wheel".to_owned()))
}

/// Installs from a local file: the pinned wheel, or a model2vec directory.
pub fn install_from_file(data_dir: &Path, path: &Path) -> Result<Origin, SemanticError> {
    if path.is_dir() {
        return install_directory(data_dir, path);
    }
    install_wheel(data_dir, path)
}

/// Checks the wheel against the pin and unpacks its two files.
fn install_wheel(data_dir: &Path, wheel: &Path) -> Result<Origin, SemanticError> {
    let bytes = std::fs::read(wheel).map_err(SemanticError::io(wheel))?;
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    if digest != WORDLLAMA.sha256 {
        return Err(SemanticError::Install(format!(
            "{} has sha256 {digest}, not the pinned {} of {}",
            wheel.display(),
            WORDLLAMA.sha256,
            WORDLLAMA.requirement
        )));
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|error| SemanticError::Install(format!("{}: {error}", wheel.display())))?;
    let mut member = |name: &str| -> Result<Vec<u8>, SemanticError> {
        let mut file = archive
            .by_name(name)
            .map_err(|error| SemanticError::Install(format!("{name}: {error}")))?;
        let mut out = Vec::new();
        file.read_to_end(&mut out)
            .map_err(|error| SemanticError::Install(format!("{name}: {error}")))?;
        Ok(out)
    };
    let weights = member(WORDLLAMA.weights)?;
    let tokenizer = member(WORDLLAMA.tokenizer)?;
    write_model_dir(
        &model_dir(data_dir),
        &tokenizer,
        &weights,
        WORDLLAMA.name,
        &format!(
            "PyPI {} (sha256 {})",
            WORDLLAMA.requirement, WORDLLAMA.sha256
        ),
        WORDLLAMA.licence,
    )
}

/// Copies a model2vec directory's tokenizer and weights.
fn install_directory(data_dir: &Path, source: &Path) -> Result<Origin, SemanticError> {
    let read = |file: &str| {
        let path = source.join(file);
        std::fs::read(&path).map_err(SemanticError::io(path))
    };
    let tokenizer = read(TOKENIZER_FILE)?;
    let weights = read(WEIGHTS_FILE)?;
    write_model_dir(
        &model_dir(data_dir),
        &tokenizer,
        &weights,
        "local static model",
        &format!("local directory {}", source.display()),
        "as given by the user",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::model_files::{embedding_safetensors, load_model, word_piece_tokenizer};

    #[test]
    fn a_directory_installs_and_a_wrong_wheel_is_refused() {
        let source = tempfile::tempdir().expect("temp dir");
        let words = ["alpha", "beta"];
        let table: Vec<f32> = (0..3 * 4).map(|i| (i % 5) as f32 - 2.0).collect();
        std::fs::write(
            source.path().join(TOKENIZER_FILE),
            word_piece_tokenizer(&words),
        )
        .unwrap();
        std::fs::write(
            source.path().join(WEIGHTS_FILE),
            embedding_safetensors(&table, 3, 4),
        )
        .unwrap();
        let data_dir = tempfile::tempdir().expect("temp dir");
        let origin = install_from_file(data_dir.path(), source.path()).expect("installs");
        assert!(origin.source.starts_with("local directory"));
        let (model, loaded) = load_model(&model_dir(data_dir.path())).expect("loads");
        assert_eq!((model.dim(), loaded), (4, origin));

        let fake_wheel = source.path().join("wordllama-0.4.0.post1-py3-none-any.whl");
        std::fs::write(&fake_wheel, b"PK not the pinned wheel").unwrap();
        let error = install_from_file(data_dir.path(), &fake_wheel).unwrap_err();
        assert!(error.to_string().contains("not the pinned"), "{error}");
    }
}
