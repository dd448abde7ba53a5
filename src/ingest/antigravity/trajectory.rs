//! `conversations/<uuid>.db`, the SQLite trajectory of the CLI and the 2.0 app: the only place
//! with token usage and exact model ids. Read from a private copy (`ingest::sqlite`). Its blobs
//! are protobuf with no published schema; the fields read here were checked against real
//! databases: `gen_metadata.data` is one model call `{1: chat model {4: usage {2: uncached
//! input, 3: output incl. thinking, 5: cache read, 9: visible output, 10: thinking}, 19: model
//! id, 21: display name}, 2: step indices (planner step first)}`; `trajectory_meta.source` is 17
//! for the CLI, 1 for the app; `trajectory_metadata_blob` `{1: {1: workspace URI}}`.

use std::path::Path;

use rusqlite::Connection;

use super::Product;
use super::home::path_of_file_uri;
use crate::ingest::protowire::{self, message, repeated_varints, text, varint};
use crate::ingest::sqlite::{StoreReadError, classify, open_snapshot};
use crate::model::TokenUsage;

/// One model call the trajectory recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The steps it produced, its planner step first.
    pub steps: Vec<u64>,
    pub usage: TokenUsage,
    /// The exact model id (`gemini-3-flash-a`).
    pub model: Option<String>,
}

/// What the `.db` adds to a conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trajectory {
    pub generations: Vec<Generation>,
    /// `trajectory_meta.source`.
    pub source: Option<i64>,
    pub workspace: Option<String>,
}

impl Trajectory {
    pub fn product(&self) -> Option<Product> {
        match self.source? {
            17 => Some(Product::Cli),
            1 => Some(Product::App),
            _ => None,
        }
    }
}

/// Reads the trajectory facts of `database`.
pub fn read(database: &Path) -> Result<Trajectory, StoreReadError> {
    let snapshot = open_snapshot(database)?;
    read_from(&snapshot.connection).map_err(|error| classify(database, error))
}

fn read_from(connection: &Connection) -> rusqlite::Result<Trajectory> {
    let mut generations = Vec::new();
    let mut statement =
        connection.prepare(include_str!("../../../queries/antigravity_generations.sql"))?;
    let rows = statement.query_map([], |row| row.get::<_, Option<Vec<u8>>>(0))?;
    for data in rows {
        if let Some(generation) = data?.as_deref().and_then(generation_of) {
            generations.push(generation);
        }
    }
    let source = connection
        .query_row(
            include_str!("../../../queries/antigravity_source.sql"),
            [],
            |row| row.get::<_, Option<i64>>(0),
        )
        .unwrap_or(None);
    let workspace = connection
        .query_row(
            include_str!("../../../queries/antigravity_workspace.sql"),
            [],
            |row| row.get::<_, Option<Vec<u8>>>(0),
        )
        .unwrap_or(None)
        .as_deref()
        .and_then(workspace_of);
    Ok(Trajectory {
        generations,
        source,
        workspace,
    })
}

fn generation_of(data: &[u8]) -> Option<Generation> {
    let root = protowire::fields(data)?;
    let chat_model = message(&root, 1)?;
    let usage = message(&chat_model, 4)?;
    let count = |number| varint(&usage, number).and_then(|value| i64::try_from(value).ok());
    let uncached = count(2);
    let output = count(3);
    if uncached.is_none() && output.is_none() {
        return None;
    }
    let cache_read = count(5).unwrap_or(0);
    let input = uncached.unwrap_or(0) + cache_read;
    let reasoning = (count(9).is_some() || count(10).is_some()).then(|| count(10).unwrap_or(0));
    let usage = TokenUsage {
        input: Some(input),
        cached_input: Some(cache_read),
        output,
        reasoning,
        total: None,
    }
    .with_derived_total();
    Some(Generation {
        steps: repeated_varints(&root, 2),
        usage,
        model: text(&chat_model, 19).or_else(|| text(&chat_model, 21)),
    })
}

fn workspace_of(data: &[u8]) -> Option<String> {
    let root = protowire::fields(data)?;
    let uri = message(&root, 1)
        .and_then(|workspace| text(&workspace, 1))
        .or_else(|| text(&root, 7))?;
    Some(path_of_file_uri(&uri))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_gives_usage_steps_and_model() {
        // {1: {4: {1: 1020, 2: 4718, 3: 123, 5: 12200, 9: 37, 10: 86}, 19: "m-a"}, 2: [5, 6]}
        let usage = [
            0x08, 0xfc, 0x07, 0x10, 0xee, 0x24, 0x18, 0x7b, 0x28, 0xa8, 0x5f, 0x48, 0x25, 0x50,
            0x56,
        ];
        let mut chat = vec![0x22, usage.len() as u8];
        chat.extend_from_slice(&usage);
        chat.extend_from_slice(&[0x9a, 0x01, 0x03, b'm', b'-', b'a']);
        let mut root = vec![0x0a, chat.len() as u8];
        root.extend_from_slice(&chat);
        root.extend_from_slice(&[0x12, 0x02, 0x05, 0x06]);
        let generation = generation_of(&root).unwrap();
        assert_eq!(generation.steps, vec![5, 6]);
        assert_eq!(generation.model.as_deref(), Some("m-a"));
        assert_eq!(
            generation.usage,
            TokenUsage {
                input: Some(4718 + 12200),
                cached_input: Some(12200),
                output: Some(123),
                reasoning: Some(86),
                total: Some(4718 + 12200 + 123),
            }
        );
    }
}
