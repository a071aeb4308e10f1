//! The index tools on a small TypeScript and Python project.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;
use std::sync::Arc;

use hone_index::tools::{SharedIndex, index_tools, repo_map};
use hone_index::{IndexOptions, Indexer};
use hone_tools::{Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind};
use serde_json::{Value, json};

const STORE_TS: &str = "\
import { helper } from \"./util\";
import * as fs from \"fs\";
import lodash from \"lodash\";

export class Store {
  private items: string[] = [];

  add(item: string): void {
    // TODO: validate items
    this.items.push(helper(item));
  }

  count(): number {
    return this.items.length;
  }
}
";

const UTIL_TS: &str = "\
export function helper(value: string): string {
  if (value.length > 3 && value !== \"x\") {
    return value.trim();
  }
  return value;
}
";

const APP_TS: &str = "\
import { Store } from \"./store\";
import { helper } from \"./util\";

export function main(): number {
  const store = new Store();
  store.add(helper(\"a\"));
  return store.count();
}
";

const MODELS_PY: &str = "\
class User:
    def __init__(self, name):
        self.name = name

    def greet(self):
        # FIXME: localise
        return f\"hello {self.name}\"


def make_user(name):
    return User(name)
";

struct Project {
    _dir: tempfile::TempDir,
    context: ToolContext,
    tools: Vec<Arc<dyn Tool>>,
}

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/store.ts", STORE_TS);
    write(root, "src/util.ts", UTIL_TS);
    write(root, "src/app.ts", APP_TS);
    write(root, "py/models.py", MODELS_PY);
    write(root, "README.md", "# demo\n");
    let indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    let index = SharedIndex::new(indexer);
    Project {
        context: ToolContext::new(root).unwrap(),
        tools: index_tools(index),
        _dir: dir,
    }
}

impl Project {
    fn call(&self, name: &str, arguments: Value) -> Result<String, ToolError> {
        let tool = self.tools.iter().find(|tool| tool.name() == name).unwrap();
        match tool.plan(&self.context, &arguments)? {
            Plan::Done(output) => {
                assert!(!output.is_error);
                Ok(output.content)
            }
            other => panic!("{name} planned {other:?}"),
        }
    }

    fn ok(&self, name: &str, arguments: Value) -> String {
        self.call(name, arguments).unwrap()
    }

    fn err(&self, name: &str, arguments: Value) -> ToolError {
        self.call(name, arguments).unwrap_err()
    }
}

#[test]
fn the_ten_tools_are_read_only_with_their_exact_names() {
    let project = project();
    let names: Vec<&str> = project.tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            "get_structure",
            "get_outline",
            "get_function",
            "get_class",
            "find_definition",
            "find_references",
            "get_dependencies",
            "get_dependents",
            "get_complexity",
            "get_todos"
        ]
    );
    for tool in &project.tools {
        assert_eq!(tool.kind(), ToolKind::Read);
        assert_eq!(tool.spec().name, tool.name());
        assert_eq!(tool.spec().parameters["type"], "object");
    }
}

#[test]
fn get_structure_shows_directories_files_and_depth() {
    let project = project();
    let out = project.ok("get_structure", json!({}));
    assert!(
        out.starts_with("./ — 5 files (typescript 3, python 1)"),
        "{out}"
    );
    assert!(out.contains("\n  src/ — 3 files (typescript 3)\n"), "{out}");
    assert!(out.contains("\n    store.ts  16 lines\n"), "{out}");
    assert!(out.contains("\n  README.md"), "{out}");
    let shallow = project.ok("get_structure", json!({"depth": "1"}));
    assert!(!shallow.contains("store.ts"), "{shallow}");
    let inside = project.ok("get_structure", json!({"path": "py"}));
    assert!(
        inside.starts_with("py/ — 1 file (python 1)\n  models.py  11 lines"),
        "{inside}"
    );
    let error = project.err("get_structure", json!({"path": "srcc"}));
    assert_eq!(error.kind, ToolErrorKind::NotFound);
    assert!(error.message.contains("`src`"), "{}", error.message);
}

#[test]
fn get_outline_lists_members_with_line_ranges() {
    let project = project();
    let out = project.ok("get_outline", json!({"path": "src/store.ts"}));
    assert!(
        out.starts_with("src/store.ts (typescript, 16 lines)\n"),
        "{out}"
    );
    assert!(out.contains("imports: ./util, fs, lodash"), "{out}");
    assert!(out.contains("class Store  [lines 5–16]"), "{out}");
    assert!(
        out.contains("  add(item: string) -> void  [lines 8–11]"),
        "{out}"
    );
    assert!(out.contains("1 TODO comments"), "{out}");
    let py = project.ok("get_outline", json!({"path": "py/models.py"}));
    assert!(
        py.contains("function make_user(name)  [lines 10–11]"),
        "{py}"
    );
    let error = project.err("get_outline", json!({"path": "README.md"}));
    assert!(error.message.contains("read_file"), "{}", error.message);
    let error = project.err("get_outline", json!({"path": "src"}));
    assert!(
        error.message.contains("is a directory"),
        "{}",
        error.message
    );
    let error = project.err("get_outline", json!({}));
    assert!(
        error.message.contains("get_outline {path}"),
        "{}",
        error.message
    );
}

#[test]
fn get_function_and_get_class_show_numbered_source() {
    let project = project();
    let out = project.ok(
        "get_function",
        json!({"path": "src/util.ts", "name": "helper"}),
    );
    assert!(
        out.starts_with(
            "src/util.ts: helper(value: string) -> string  [lines 1–6]\n1│ export function helper"
        ),
        "{out}"
    );
    assert!(out.ends_with("6│ }"), "{out}");
    let method = project.ok(
        "get_function",
        json!({"path": "src/store.ts", "name": "Store.count"}),
    );
    assert!(
        method.contains("13│   count(): number {\n14│     return this.items.length;\n15│   }"),
        "{method}"
    );
    let bare = project.ok(
        "get_function",
        json!({"path": "py/models.py", "name": "greet"}),
    );
    assert!(bare.contains("User.greet(self)"), "{bare}");
    let error = project.err(
        "get_function",
        json!({"path": "src/store.ts", "name": "remove"}),
    );
    assert_eq!(error.kind, ToolErrorKind::NotFound);
    assert!(error.message.contains("`Store.add`"), "{}", error.message);
    assert!(
        error.message.contains("find_definition"),
        "{}",
        error.message
    );

    let class = project.ok("get_class", json!({"path": "py/models.py", "name": "User"}));
    assert!(
        class.starts_with("py/models.py: class User  [lines 1–7]\n1│ class User:\n"),
        "{class}"
    );
    assert!(class.contains("6│         # FIXME: localise"), "{class}");
    let error = project.err("get_class", json!({"path": "py/models.py", "name": "Usr"}));
    assert!(error.message.contains("`User`"), "{}", error.message);
}

#[test]
fn find_definition_and_references_locate_symbols() {
    let project = project();
    let out = project.ok("find_definition", json!({"symbol": "helper"}));
    assert!(
        out.starts_with(
            "1 definition of `helper`:\nsrc/util.ts:1  function  export function helper"
        ),
        "{out}"
    );
    let method = project.ok("find_definition", json!({"symbol": "Store.count"}));
    assert!(
        method.contains("src/store.ts:13  method  count(): number {"),
        "{method}"
    );
    let error = project.err("find_definition", json!({"symbol": "helpe"}));
    assert!(
        error.message.contains("`helper` (src/util.ts:1)"),
        "{}",
        error.message
    );

    let refs = project.ok("find_references", json!({"symbol": "helper"}));
    assert!(refs.contains("src/app.ts:6:"), "{refs}");
    assert!(refs.contains("src/store.ts:10:"), "{refs}");
    let none = project.ok("find_references", json!({"symbol": "main"}));
    assert!(none.starts_with("no references to `main`"), "{none}");
    let error = project.err("find_references", json!({"symbol": "nothing_like_it"}));
    assert!(error.message.contains("search_files"), "{}", error.message);
}

#[test]
fn dependencies_and_dependents_follow_imports() {
    let project = project();
    let out = project.ok("get_dependencies", json!({"path": "src/store.ts"}));
    assert!(
        out.starts_with("src/store.ts imports 1 project files:\n  src/util.ts  (line 1: ./util)"),
        "{out}"
    );
    assert!(out.contains("external: lodash (line 3)"), "{out}");
    assert!(out.contains("standard library: fs (line 2)"), "{out}");
    let dependents = project.ok("get_dependents", json!({"path": "src/util.ts"}));
    assert!(
        dependents.starts_with("2 project files import src/util.ts:\n"),
        "{dependents}"
    );
    assert!(
        dependents.contains("  src/app.ts  (line 2: ./util)"),
        "{dependents}"
    );
    let none = project.ok("get_dependents", json!({"path": "src/app.ts"}));
    assert!(
        none.starts_with("no project file imports src/app.ts"),
        "{none}"
    );
    let error = project.err("get_dependents", json!({"path": "src/utils.ts"}));
    assert!(error.message.contains("`src/util.ts`"), "{}", error.message);
}

#[test]
fn get_complexity_ranks_files_or_details_one() {
    let project = project();
    let top = project.ok("get_complexity", json!({}));
    assert!(
        top.starts_with("most complex of 4 source files in the project"),
        "{top}"
    );
    let first = top.lines().nth(1).unwrap();
    assert!(first.ends_with("src/util.ts"), "{top}");
    let one = project.ok("get_complexity", json!({"path": "src/store.ts"}));
    assert!(one.starts_with("src/store.ts: complexity "), "{one}");
    assert!(
        one.contains("lines  Store.add(item: string) -> void  [lines 8–11]"),
        "{one}"
    );
    let dir = project.ok("get_complexity", json!({"path": "py"}));
    assert!(
        dir.starts_with("most complex of 1 source files in py"),
        "{dir}"
    );
}

#[test]
fn get_todos_lists_comments_and_tools_see_new_edits() {
    let project = project();
    let out = project.ok("get_todos", json!({}));
    assert!(out.contains("py/models.py:6  FIXME: localise"), "{out}");
    assert!(
        out.contains("src/store.ts:9  TODO: validate items"),
        "{out}"
    );
    let one = project.ok("get_todos", json!({"path": "src/util.ts"}));
    assert_eq!(one, "no TODO, FIXME, HACK or XXX comments in src/util.ts");
    // Each call brings the index up to date first.
    write(
        project.context.root(),
        "src/util.ts",
        "// HACK: temporary\nexport function helper2(): void {}\n",
    );
    let after = project.ok("get_todos", json!({"path": "src"}));
    assert!(after.contains("src/util.ts:1  HACK: temporary"), "{after}");
    let defined = project.ok("find_definition", json!({"symbol": "helper2"}));
    assert!(defined.contains("src/util.ts:2"), "{defined}");
}

#[test]
fn the_repo_map_focuses_on_the_prompt() {
    let project = project();
    let _ = project.ok("get_structure", json!({}));
    let indexer = Indexer::open(project.context.root(), &IndexOptions::default()).unwrap();
    let map = repo_map(&indexer, "Fix `make_user` in py/models.py, please.", 8000).unwrap();
    assert!(map.contains("py/models.py:"), "{map}");
    assert!(map.contains("src/store.ts:"), "{map}");
}

#[test]
fn the_repo_map_from_the_store_matches_one_from_full_outlines() {
    use hone_index::repomap::{RepoMap, RepoMapRequest};
    use hone_index::tools::repo_map_for;

    let project = project();
    let _ = project.ok("get_structure", json!({}));
    let indexer = Indexer::open(project.context.root(), &IndexOptions::default()).unwrap();
    for (budget, focus) in [(8000, vec!["make_user".to_string()]), (60, Vec::new())] {
        let request = RepoMapRequest {
            focus_files: Vec::new(),
            focus_identifiers: focus,
            budget_tokens: budget,
        };
        let outlines = indexer.store().outlines().unwrap();
        let analysis = hone_index::analysis::analyze(indexer.root(), &outlines);
        let expected = RepoMap::new().render(&outlines, &analysis, &request);
        let from_store = repo_map_for(&indexer, &request).unwrap();
        assert_eq!(from_store, expected);
        assert!(!from_store.files.is_empty() || budget < 100);
    }
}
