//! The library's import rule, read from the sources: arrows point down only. Each top-level
//! module of `src/` sits in a layer and may import (`crate::x`, `super::x` reaching the crate
//! root, `use crate::{x, ..}`) only modules of lower layers. A new module must be given a
//! layer here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::manifest_dir;

/// The layers, lowest first.
const LAYERS: &[&[&str]] = &[
    &["model", "config", "heap"],
    &["ids", "resume"],
    &["redact"],
    // Log formats: recognised, read and parsed into the model.
    &["ingest"],
    // Files, generations and commits of Parquet tables.
    &["store"],
    // Readers and writers over a store's generations.
    &["search", "query"],
    &["semantic", "memory"],
    // Opening a store with its search index; one commit (tables, index, memory).
    &["engine"],
    // The indexing pass and the team datasets.
    &["indexer", "team"],
    // The service layer every front end adapts (tools, catalog, envelopes, validation).
    &["service"],
    &["mcp"],
    &["cli"],
    // The web view: over the MCP tools and the CLI's functions.
    &["ui"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top-level modules a file imports, from its text without comments. `module_path` is
/// the file's module (`["store", "commit"]` for `src/store/commit.rs`, `["store"]` for
/// `src/store/mod.rs`), against which `super::` is resolved.
fn imported_modules(text: &str, module_path: &[&str]) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let mut modules = BTreeSet::new();
    for (start, _) in code.match_indices("crate::") {
        let preceded_by_word = code[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if !preceded_by_word {
            modules.extend(names_after(&code[start + "crate::".len()..]));
        }
    }
    for (start, _) in code.match_indices("super::") {
        let preceded_by_path = code[..start].ends_with("::");
        let preceded_by_word = code[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if preceded_by_path || preceded_by_word {
            continue;
        }
        let mut rest = &code[start..];
        let mut depth = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            depth += 1;
            rest = after;
        }
        // `super` of the module `a::b` is `a`; `super` of `a` is the crate root. Inline
        // modules (`mod tests {`) opened before this point add a level.
        let inline_modules = inline_modules_before(&code[..start]);
        if depth >= module_path.len() + inline_modules {
            modules.extend(
                names_after(rest)
                    .into_iter()
                    .filter(|name| layer_of(name).is_some()),
            );
        }
    }
    modules
}

/// How many `mod name {` openings `code` holds (inline modules, in practice `mod tests {` at
/// the end of a file).
fn inline_modules_before(code: &str) -> usize {
    code.match_indices("mod ")
        .filter(|(start, _)| {
            let rest = &code[start + "mod ".len()..];
            let name_end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            name_end > 0 && rest[name_end..].trim_start().starts_with('{')
        })
        .count()
}

/// The module name(s) a path starts with: `query::x` gives `query`, `{query, store::y}`
/// gives both.
fn names_after(path: &str) -> Vec<String> {
    if let Some(group) = path.strip_prefix('{') {
        let mut names = Vec::new();
        let mut depth = 0;
        let mut item = String::new();
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    names.extend(first_name(&item));
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        names.extend(first_name(&item));
        return names;
    }
    first_name(path).into_iter().collect()
}

fn first_name(path: &str) -> Option<String> {
    let name: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// Every `.rs` file under `dir` with its module path relative to `src/`.
fn rust_files(src: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut files = Vec::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path.strip_prefix(src).expect("under src");
                let mut module: Vec<String> = relative
                    .with_extension("")
                    .iter()
                    .map(|part| part.to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|last| last == "mod") {
                    module.pop();
                }
                files.push((path, module));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_module_imports_a_module_above_it() {
    let src = manifest_dir().join("src");
    let mut violations = Vec::new();
    let mut checked = 0;
    for (path, module) in rust_files(&src) {
        let top = module.first().map(String::as_str).unwrap_or_default();
        // The crate root and the binary see everything.
        if matches!(top, "lib" | "main") {
            continue;
        }
        let Some(layer) = layer_of(top) else {
            violations.push(format!("{top}: not in a layer of tests/it/layering.rs"));
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("source is readable");
        let module_path: Vec<&str> = module.iter().map(String::as_str).collect();
        for imported in imported_modules(&text, &module_path) {
            if imported == top {
                continue;
            }
            match layer_of(&imported) {
                Some(imported_layer) if imported_layer < layer => {}
                _ => violations.push(format!("{} imports {imported}", path.display())),
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} files checked");
    assert!(
        violations.is_empty(),
        "upward imports:\n{}",
        violations.join("\n")
    );
}

#[test]
fn imports_are_found_in_every_form() {
    let text = "use crate::query::{table_schema, QueryError};\n\
                use crate::{search::SearchIndex, store::{Store, StoreError}};\n\
                // crate::mcp in a comment\n\
                fn f() { super::super::cli::run(); super::rows::g(); esker_crate::x(); }\n";
    let found = imported_modules(text, &["store", "commit"]);
    let expected: BTreeSet<String> = ["cli", "query", "search", "store"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
    // In `store/mod.rs`, `super::` is the crate root; in its `mod tests {`, `super::super::`.
    let found = imported_modules("use super::query::X;", &["store"]);
    assert_eq!(found, BTreeSet::from(["query".to_string()]));
    let text = "mod tests {\n use super::super::rows::X; use super::super::super::mcp::Y; }";
    let found = imported_modules(text, &["store", "commit"]);
    assert_eq!(found, BTreeSet::from(["mcp".to_string()]));
}
