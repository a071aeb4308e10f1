//! Import resolution per language, the file graph, entry points and the symbol table, on
//! hand-built outlines (independent of the extractors).
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::collections::BTreeMap;
use std::path::Path;

use hone_index::analysis::{Analysis, EntryReason, ProjectConfig, analyze, analyze_with};
use hone_index::{
    Class, ClassKind, FileOutline, Function, Import, ImportOrigin, ImportedName, Language,
    SymbolKind, SymbolOccurrence, SymbolRole,
};

#[path = "analysis/compiled_languages.rs"]
mod compiled_languages;

/// An import written `source` or `source|name,name`; origin as an extractor would guess
/// from the syntax alone (relative: internal, else external).
fn import(spec: &str, line: usize) -> Import {
    let (source, names) = spec.split_once('|').unwrap_or((spec, ""));
    let names = names.split(',').filter(|name| !name.is_empty());
    Import {
        source: source.to_string(),
        names: names
            .map(|name| ImportedName {
                name: name.to_string(),
                alias: None,
                is_default: false,
            })
            .collect(),
        line: u32::try_from(line).unwrap(),
        origin: if source.starts_with('.') {
            ImportOrigin::Internal
        } else {
            ImportOrigin::External
        },
    }
}

/// A project under construction: root-relative path → outline.
#[derive(Default)]
struct Project(BTreeMap<String, FileOutline>);

impl Project {
    /// Adds `path` importing `imports` (see [`import`]), one per line.
    fn file(self, path: &str, imports: &[&str]) -> Self {
        let mut outline = FileOutline::empty(Language::from_path(path).unwrap_or(Language::Json));
        outline.imports = imports
            .iter()
            .enumerate()
            .map(|(i, spec)| import(spec, i + 1))
            .collect();
        self.outline(path, outline)
    }

    /// Adds files without imports.
    fn files(self, paths: &[&str]) -> Self {
        paths
            .iter()
            .fold(self, |project, path| project.file(path, &[]))
    }

    fn outline(mut self, path: &str, outline: FileOutline) -> Self {
        self.0.insert(path.to_string(), outline);
        self
    }

    /// Analysed without project configuration.
    fn analyze(&self) -> Analysis {
        analyze_with(&ProjectConfig::default(), &self.0)
    }

    /// Analysed with the configuration files under `root`.
    fn analyze_in(&self, root: &Path) -> Analysis {
        analyze(root, &self.0)
    }
}

fn deps<'a>(analysis: &'a Analysis, file: &str) -> Vec<&'a str> {
    analysis
        .dependencies(file)
        .iter()
        .map(String::as_str)
        .collect()
}

/// A temporary project root holding `files` (path, contents).
fn root_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

/// A TypeScript outline with symbol occurrences `(name, role, line)`; capitalised names
/// are classes, others functions.
fn with_symbols(occurrences: &[(&str, SymbolRole, u32)]) -> FileOutline {
    let mut outline = FileOutline::empty(Language::TypeScript);
    for (name, role, line) in occurrences {
        let kind = if name.starts_with(char::is_uppercase) {
            SymbolKind::Class
        } else {
            SymbolKind::Function
        };
        let (name, role, line) = (name.to_string(), *role, *line);
        outline.symbols.push(SymbolOccurrence {
            name,
            kind,
            role,
            line,
            column: 1,
        });
    }
    outline
}

fn function(name: &str) -> Function {
    Function {
        name: name.to_string(),
        start_line: 1,
        end_line: 3,
        params: Vec::new(),
        return_type: None,
        is_async: false,
        is_exported: false,
        visibility: None,
        is_static: false,
    }
}

#[test]
fn typescript_relative_imports_try_extensions_index_files_and_ts_sources_of_js_names() {
    let sources = [
        "./store",
        "./components",
        "../lib/util.js",
        "./data.json",
        "./types",
        "./x",
    ];
    let analysis = Project::default()
        .file("src/app.ts", &sources)
        .files(&["src/store.ts", "src/components/index.tsx", "lib/util.ts"])
        .files(&["src/data.json", "src/types.d.ts"])
        .analyze();
    let expected = [
        "lib/util.ts",
        "src/components/index.tsx",
        "src/data.json",
        "src/store.ts",
        "src/types.d.ts",
    ];
    assert_eq!(deps(&analysis, "src/app.ts"), expected);
}

#[test]
fn javascript_files_prefer_the_file_they_name() {
    let analysis = Project::default()
        .file("web/main.js", &["./legacy", "./view.js", "./lib.mjs"])
        .files(&[
            "web/legacy.jsx",
            "web/view.js",
            "web/view.ts",
            "web/lib.mts",
        ])
        .analyze();
    assert_eq!(
        deps(&analysis, "web/main.js"),
        ["web/legacy.jsx", "web/lib.mts", "web/view.js"]
    );
}

#[test]
fn tsconfig_paths_and_base_url_resolve_aliases_despite_comments_and_trailing_commas() {
    let tsconfig = r#"{
        // aliases
        "compilerOptions": {
            "baseUrl": ".", /* root */
            "paths": { "@/*": ["src/*",], "~config": ["config/index.ts"], },
        },
    }"#;
    let root = root_with(&[("tsconfig.json", tsconfig)]);
    let analysis = Project::default()
        .file(
            "src/app.ts",
            &["@/store", "~config", "components/Button", "react"],
        )
        .files(&["src/store.ts", "config/index.ts", "components/Button.tsx"])
        .analyze_in(root.path());
    let expected = ["components/Button.tsx", "config/index.ts", "src/store.ts"];
    assert_eq!(deps(&analysis, "src/app.ts"), expected);
}

#[test]
fn nested_tsconfigs_govern_their_package_and_follow_extends() {
    let root = root_with(&[
        (
            "tsconfig.base.json",
            r##"{"compilerOptions": {"paths": {"#lib/*": ["./lib/*"]}}}"##,
        ),
        (
            "packages/web/tsconfig.json",
            r#"{"extends": "../../tsconfig.base", "compilerOptions": {"baseUrl": "src"}}"#,
        ),
    ]);
    let main = "packages/web/src/main.ts";
    let analysis = Project::default()
        .file(main, &["#lib/http", "pages/home"])
        .files(&["packages/web/tsconfig.json", "packages/web/src/lib/http.ts"])
        .files(&["packages/web/src/pages/home.tsx"])
        .analyze_in(root.path());
    let expected = [
        "packages/web/src/lib/http.ts",
        "packages/web/src/pages/home.tsx",
    ];
    assert_eq!(deps(&analysis, main), expected);
}

#[test]
fn workspace_packages_resolve_by_package_json_name() {
    let package = r#"{"name": "@acme/ui", "main": "dist/index.js", "source": "src/index.ts"}"#;
    let root = root_with(&[("packages/ui/package.json", package)]);
    let analysis = Project::default()
        .file(
            "apps/web/page.tsx",
            &["@acme/ui", "@acme/ui/button", "@acme/uikit"],
        )
        .files(&["packages/ui/package.json", "packages/ui/src/index.ts"])
        .files(&["packages/ui/src/button.tsx"])
        .analyze_in(root.path());
    let expected = ["packages/ui/src/button.tsx", "packages/ui/src/index.ts"];
    assert_eq!(deps(&analysis, "apps/web/page.tsx"), expected);
}

#[test]
fn python_absolute_imports_find_modules_and_packages() {
    let analysis = Project::default()
        .file(
            "main.py",
            &[
                "app.models|app.models",
                "app|services",
                "app.models|User",
                "requests",
            ],
        )
        .files(&[
            "app/__init__.py",
            "app/models.py",
            "app/services/__init__.py",
        ])
        .files(&["app/services/mail.py"])
        .analyze();
    assert_eq!(
        deps(&analysis, "main.py"),
        ["app/models.py", "app/services/__init__.py"]
    );
}

#[test]
fn python_relative_imports_start_from_the_files_package() {
    let imports = [
        ".|utils",
        "..models|User",
        "..|config",
        ".|helper_function",
        "....far",
    ];
    let analysis = Project::default()
        .file("app/api/views.py", &imports)
        .files(&["app/__init__.py", "app/api/__init__.py", "app/api/utils.py"])
        .files(&["app/models.py", "app/config.py"])
        .analyze();
    let expected = [
        "app/api/__init__.py",
        "app/api/utils.py",
        "app/config.py",
        "app/models.py",
    ];
    assert_eq!(deps(&analysis, "app/api/views.py"), expected);
}

#[test]
fn python_package_roots_below_the_project_root_and_src_layouts_resolve() {
    let analysis = Project::default()
        .file("backend/app/main.py", &["app.core.db"])
        .file("tests/test_mod.py", &["pkg.mod|run"])
        .file("scripts/tool.py", &["helpers"])
        .files(&["backend/app/__init__.py", "backend/app/core/__init__.py"])
        .files(&[
            "backend/app/core/db.py",
            "src/pkg/__init__.py",
            "src/pkg/mod.py",
        ])
        .files(&["scripts/helpers.py"])
        .analyze();
    assert_eq!(
        deps(&analysis, "backend/app/main.py"),
        ["backend/app/core/db.py"]
    );
    assert_eq!(deps(&analysis, "tests/test_mod.py"), ["src/pkg/mod.py"]);
    assert_eq!(deps(&analysis, "scripts/tool.py"), ["scripts/helpers.py"]);
}

#[test]
fn edges_are_sorted_without_self_imports_and_dependents_mirror_them() {
    let analysis = Project::default()
        .file("a.ts", &["./c", "./a", "./b"])
        .file("b.ts", &["./c", "./c"])
        .files(&["c.ts"])
        .analyze();
    let edges: Vec<(&str, &str, u32)> = analysis
        .edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str(), e.line))
        .collect();
    let expected = [
        ("a.ts", "b.ts", 3),
        ("a.ts", "c.ts", 1),
        ("b.ts", "c.ts", 1),
        ("b.ts", "c.ts", 2),
    ];
    assert_eq!(edges, expected);
    assert_eq!(analysis.dependents("c.ts"), ["a.ts", "b.ts"]);
    let fans = |file: &str| (analysis.files[file].fan_in, analysis.files[file].fan_out);
    assert_eq!((fans("a.ts"), fans("c.ts")), ((0, 2), (2, 0)));
    assert!(analysis.dependents("unknown.ts").is_empty());
}

#[test]
fn resolved_imports_become_internal() {
    let root = root_with(&[(
        "tsconfig.json",
        r#"{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}"#,
    )]);
    let Project(mut files) = Project::default()
        .file("src/app.ts", &["@/store", "react"])
        .files(&["src/store.ts"]);
    let analysis = analyze(root.path(), &files);
    let origins = |files: &BTreeMap<String, FileOutline>| -> Vec<(ImportOrigin, ImportOrigin)> {
        let imports = &files["src/app.ts"].imports;
        imports
            .iter()
            .map(|i| (i.origin, analysis.origin_of("src/app.ts", i)))
            .collect()
    };
    use ImportOrigin::{External, Internal};
    assert_eq!(
        origins(&files),
        [(External, Internal), (External, External)]
    );
    analysis.upgrade_origins(&mut files);
    assert_eq!(
        origins(&files),
        [(Internal, Internal), (External, External)]
    );
}

#[test]
fn hubs_are_the_files_with_most_dependents() {
    let mut project = Project::default()
        .files(&["core.ts", "util.ts"])
        .file("leaf.ts", &["./core"]);
    for i in 0..4 {
        project = project.file(&format!("user{i}.ts"), &["./core", "./util"]);
    }
    let analysis = project.file("only_util.ts", &["./util"]).analyze();
    assert_eq!(analysis.hubs, ["core.ts", "util.ts"]);
}

#[test]
fn entry_points_come_from_names_main_functions_and_unimported_files() {
    let mut java = FileOutline::empty(Language::Java);
    let main_method = Function {
        is_static: true,
        ..function("main")
    };
    java.classes.push(Class {
        name: "Tool".into(),
        kind: ClassKind::Class,
        start_line: 1,
        end_line: 9,
        methods: vec![main_method],
        properties: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        is_exported: true,
        parent: None,
    });
    let mut script = FileOutline::empty(Language::Python);
    script.functions.push(function("main"));
    let analysis = Project::default()
        .files(&["src/main.rs", "web/util.ts"])
        .file("web/index.ts", &["./barrel"])
        .file("web/barrel/index.ts", &["../util"])
        .file("web/check.test.ts", &["./util"])
        .outline("scripts/run.py", script)
        .outline("tools/Tool.java", java)
        .analyze();
    let entries: Vec<(&str, EntryReason)> = analysis
        .entry_points
        .iter()
        .map(|entry| (entry.file.as_str(), entry.reason))
        .collect();
    let expected = [
        ("scripts/run.py", EntryReason::MainFunction),
        ("src/main.rs", EntryReason::ConventionalName),
        ("tools/Tool.java", EntryReason::MainFunction),
        ("web/check.test.ts", EntryReason::Unimported),
        ("web/index.ts", EntryReason::ConventionalName),
    ];
    assert_eq!(entries, expected);
}

#[test]
fn file_facts_carry_the_outline_measures() {
    let mut outline = FileOutline::empty(Language::Python);
    outline.imports.push(import("b", 1));
    outline.functions.push(function("f"));
    outline.metrics.lines = 12;
    outline.metrics.complexity = 3;
    let analysis = Project::default()
        .outline("a.py", outline)
        .files(&["b.py"])
        .analyze();
    let facts = &analysis.files["a.py"];
    assert_eq!(
        (
            facts.metrics.lines,
            facts.metrics.complexity,
            facts.function_count
        ),
        (12, 3, 1)
    );
    assert_eq!(facts.language, Language::Python);
    assert_eq!(facts.dependencies, ["b.py"]);
}

#[test]
fn the_symbol_table_finds_definitions_and_references() {
    use SymbolRole::{Definition, Reference};
    let store = with_symbols(&[("Store", Definition, 3), ("createStore", Definition, 9)]);
    let app = with_symbols(&[
        ("createStore", Reference, 4),
        ("createStore", Reference, 8),
        ("Store", Reference, 2),
    ]);
    let analysis = Project::default()
        .outline("src/store.ts", store)
        .outline("src/app.ts", app)
        .analyze();
    let table = &analysis.symbols;
    let definition = table.definitions("Store").next().unwrap();
    assert_eq!(
        (definition.file, definition.line, definition.kind),
        ("src/store.ts", 3, SymbolKind::Class)
    );
    let lines: Vec<u32> = table
        .references("createStore")
        .map(|site| site.line)
        .collect();
    assert_eq!(lines, [4, 8]);
    assert_eq!(table.files_defining("createStore"), ["src/store.ts"]);
    assert_eq!(table.files_referencing("createStore"), ["src/app.ts"]);
    assert_eq!(
        table.defined_names_matching("store"),
        ["Store", "createStore"]
    );
    assert_eq!(table.definitions("missing").count(), 0);
    assert_eq!(
        (table.len(), table.names().collect::<Vec<_>>()),
        (2, vec!["Store", "createStore"])
    );
}

#[test]
fn analysis_is_deterministic_and_round_trips_through_json() {
    let project = Project::default()
        .file("a.ts", &["./b", "./c"])
        .file("b.ts", &["./c"])
        .files(&["c.ts"]);
    let first = project.analyze();
    assert_eq!(project.analyze(), first);
    let json = serde_json::to_string(&first).unwrap();
    assert_eq!(serde_json::from_str::<Analysis>(&json).unwrap(), first);
}

#[test]
fn a_loaded_config_gives_the_same_result_as_analyze() {
    let root = root_with(&[("go.mod", "module example.com/m\n")]);
    let Project(files) = Project::default()
        .file("main.go", &["example.com/m/pkg"])
        .files(&["pkg/pkg.go"]);
    let config = ProjectConfig::load(root.path(), &files);
    assert_eq!(analyze_with(&config, &files), analyze(root.path(), &files));
    assert_eq!(
        deps(&analyze_with(&config, &files), "main.go"),
        ["pkg/pkg.go"]
    );
}
