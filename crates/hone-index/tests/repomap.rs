//! Repo map ranking, rendering and budgets, on hand-built outlines.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::collections::BTreeMap;
use std::time::Instant;

use hone_index::analysis::{Analysis, ProjectConfig, analyze_with};
use hone_index::repomap::{
    MAX_SECTION_LINES, RepoMap, RepoMapRequest, estimate_tokens, render_file,
};
use hone_index::{
    Class, ClassKind, Export, FileOutline, Function, Import, ImportOrigin, Language, Property,
    SymbolKind, SymbolOccurrence, SymbolRole, Visibility,
};

fn function(name: &str, params: &[&str], return_type: Option<&str>) -> Function {
    Function {
        name: name.to_string(),
        start_line: 1,
        end_line: 2,
        params: params.iter().map(|param| (*param).to_string()).collect(),
        return_type: return_type.map(str::to_string),
        is_async: false,
        is_exported: true,
        visibility: None,
        is_static: false,
    }
}

fn class(name: &str, kind: ClassKind, methods: Vec<Function>) -> Class {
    Class {
        name: name.to_string(),
        kind,
        start_line: 1,
        end_line: 20,
        methods,
        properties: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        is_exported: true,
        parent: None,
    }
}

fn occurrence(name: &str, role: SymbolRole) -> SymbolOccurrence {
    SymbolOccurrence {
        name: name.to_string(),
        kind: SymbolKind::Function,
        role,
        line: 1,
        column: 1,
    }
}

/// A TypeScript file defining `defines` (as functions) and referencing `uses`.
fn file(defines: &[&str], uses: &[&str]) -> FileOutline {
    let mut outline = FileOutline::empty(Language::TypeScript);
    for name in defines {
        outline
            .functions
            .push(function(name, &["input: string"], Some("Result")));
        outline
            .symbols
            .push(occurrence(name, SymbolRole::Definition));
    }
    for name in uses {
        outline
            .symbols
            .push(occurrence(name, SymbolRole::Reference));
    }
    outline
}

fn analyze(files: &BTreeMap<String, FileOutline>) -> Analysis {
    analyze_with(&ProjectConfig::default(), files)
}

/// `core.ts` defines `createStore`, used by five files; every file defines its own helper.
fn star_project() -> BTreeMap<String, FileOutline> {
    let mut files = BTreeMap::from([("core.ts".to_string(), file(&["createStore"], &[]))]);
    for i in 0..5 {
        let helper = format!("helper{i}");
        files.insert(format!("user{i}.ts"), file(&[&helper], &["createStore"]));
    }
    files.insert("lonely.ts".to_string(), file(&["lonelyThing"], &[]));
    files
}

fn position(ranked: &[hone_index::repomap::RankedFile], path: &str) -> usize {
    ranked.iter().position(|file| file.path == path).unwrap()
}

#[test]
fn a_file_many_others_reference_ranks_above_the_leaves() {
    let files = star_project();
    let ranked = RepoMap::new().rank(&analyze(&files), &RepoMapRequest::default());
    assert_eq!(ranked[0].path, "core.ts");
    assert!(ranked[0].score > ranked[1].score);
    let total: f64 = ranked.iter().map(|file| file.score).sum();
    assert!((total - 1.0).abs() < 1e-6, "scores sum to {total}");
}

#[test]
fn imports_alone_rank_the_imported_file_first() {
    let mut files = BTreeMap::new();
    files.insert(
        "a/shared.ts".to_string(),
        FileOutline::empty(Language::TypeScript),
    );
    for name in ["b.ts", "c.ts", "d.ts"] {
        let mut outline = FileOutline::empty(Language::TypeScript);
        outline.imports.push(Import {
            source: "./a/shared".into(),
            names: Vec::new(),
            line: 1,
            origin: ImportOrigin::Internal,
        });
        files.insert(name.to_string(), outline);
    }
    let ranked = RepoMap::new().rank(&analyze(&files), &RepoMapRequest::default());
    assert_eq!(ranked[0].path, "a/shared.ts");
}

#[test]
fn focusing_a_file_moves_it_up() {
    let files = star_project();
    let analysis = analyze(&files);
    let mut map = RepoMap::new();
    let before = position(
        &map.rank(&analysis, &RepoMapRequest::default()),
        "lonely.ts",
    );
    let request = RepoMapRequest {
        focus_files: vec!["lonely.ts".into()],
        ..RepoMapRequest::default()
    };
    let after = position(&map.rank(&analysis, &request), "lonely.ts");
    assert!(after < before, "{after} < {before}");
    assert_eq!(after, 0);
}

#[test]
fn focusing_an_identifier_moves_its_defining_file_up() {
    let files = star_project();
    let analysis = analyze(&files);
    let mut map = RepoMap::new();
    let before = position(&map.rank(&analysis, &RepoMapRequest::default()), "user3.ts");
    let request = RepoMapRequest {
        focus_identifiers: vec!["helper3".into()],
        ..RepoMapRequest::default()
    };
    let after = position(&map.rank(&analysis, &request), "user3.ts");
    assert!(after < before, "{after} < {before}");
}

/// Sixty files with a few functions each, referencing each other in a chain.
fn many_files() -> BTreeMap<String, FileOutline> {
    (0..60)
        .map(|i| {
            let defines = [
                format!("compute{i}"),
                format!("render{i}"),
                format!("load{i}"),
            ];
            let defines: Vec<&str> = defines.iter().map(String::as_str).collect();
            let uses = [format!("compute{}", (i + 1) % 60), "compute0".to_string()];
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            (format!("src/module{i:02}.ts"), file(&defines, &uses))
        })
        .collect()
}

#[test]
fn maps_stay_within_the_budget_and_grow_with_it() {
    let files = many_files();
    let analysis = analyze(&files);
    let mut map = RepoMap::new();
    let mut previous = 0;
    for budget in [0, 5, 20, 60, 150, 400, 1000, 3000, 100_000] {
        let request = RepoMapRequest {
            budget_tokens: budget,
            ..RepoMapRequest::default()
        };
        let rendered = map.render(&files, &analysis, &request);
        assert!(rendered.tokens <= budget, "{} > {budget}", rendered.tokens);
        assert_eq!(rendered.tokens, estimate_tokens(&rendered.text));
        assert!(rendered.files.len() >= previous, "budget {budget}");
        let shown = rendered.files.len() + rendered.listed.len();
        assert_eq!(shown + rendered.omitted, files.len());
        previous = rendered.files.len();
    }
    assert_eq!(previous, files.len());
}

#[test]
fn the_map_shows_the_best_files_in_path_order_and_counts_the_rest() {
    let files = star_project();
    let analysis = analyze(&files);
    let request = RepoMapRequest {
        budget_tokens: 45,
        ..RepoMapRequest::default()
    };
    let rendered = RepoMap::new().render(&files, &analysis, &request);
    assert_eq!(rendered.files[0], "core.ts");
    assert!(
        rendered
            .text
            .starts_with("core.ts:\n  function createStore(input: string): Result\n")
    );
    assert!(rendered.omitted > 0);
    assert!(
        rendered
            .text
            .ends_with(&format!("… {} more files\n", rendered.omitted))
    );
    let paths: Vec<&str> = rendered
        .text
        .lines()
        .filter(|line| !line.starts_with(' ') && !line.starts_with('…'))
        .map(|line| line.trim_end_matches(':'))
        .collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted);
}

#[test]
fn files_beyond_the_outlines_are_listed_by_path() {
    let files = many_files();
    let analysis = analyze(&files);
    let request = RepoMapRequest {
        budget_tokens: 300,
        ..RepoMapRequest::default()
    };
    let rendered = RepoMap::new().render(&files, &analysis, &request);
    assert!(!rendered.files.is_empty());
    assert!(!rendered.listed.is_empty());
    for path in &rendered.listed {
        assert!(rendered.text.lines().any(|line| line == path), "{path}");
    }
    for path in &rendered.files {
        assert!(rendered.text.contains(&format!("{path}:\n")), "{path}");
    }
    assert_eq!(
        rendered.files.len() + rendered.listed.len() + rendered.omitted,
        files.len()
    );
}

#[test]
fn the_same_input_gives_the_same_map() {
    let files = many_files();
    let analysis = analyze(&files);
    let request = RepoMapRequest {
        focus_files: vec!["src/module07.ts".into()],
        focus_identifiers: vec!["render3".into()],
        budget_tokens: 700,
    };
    let mut cached = RepoMap::new();
    let first = cached.render(&files, &analysis, &request);
    assert_eq!(cached.render(&files, &analysis, &request), first);
    assert_eq!(RepoMap::new().render(&files, &analysis, &request), first);
    assert_eq!(
        RepoMap::new().render(&files, &analyze(&files), &request),
        first
    );
}

#[test]
fn a_changed_graph_is_ranked_again() {
    let mut files = star_project();
    let mut map = RepoMap::new();
    let before = position(
        &map.rank(&analyze(&files), &RepoMapRequest::default()),
        "user4.ts",
    );
    for i in 0..4 {
        let helper = format!("helper{i}");
        files.insert(
            format!("user{i}.ts"),
            file(&[&helper], &["createStore", "helper4"]),
        );
    }
    let after = position(
        &map.rank(&analyze(&files), &RepoMapRequest::default()),
        "user4.ts",
    );
    assert!(after < before, "{after} < {before}");
}

#[test]
fn sections_show_signatures_without_private_members() {
    let mut outline = FileOutline::empty(Language::TypeScript);
    let mut get = function("get", &["key: string"], Some("Promise<Value>"));
    get.is_async = true;
    get.visibility = Some(Visibility::Public);
    let mut hidden = function("evict", &[], None);
    hidden.visibility = Some(Visibility::Private);
    let mut store = class("Store", ClassKind::Class, vec![get, hidden]);
    store.start_line = 3;
    store.extends.push("Base".into());
    store.properties.push(Property {
        name: "size".into(),
        type_annotation: Some("number".into()),
        visibility: Visibility::Public,
        is_static: false,
        is_readonly: true,
        line: 4,
    });
    outline.classes.push(store);
    let mut create = function("createStore", &["opts: Options"], Some("Store"));
    create.start_line = 30;
    outline.functions.push(create);
    outline.exports.push(Export {
        name: "DEFAULTS".into(),
        kind: SymbolKind::Variable,
        line: 40,
    });
    outline.exports.push(Export {
        name: "Store".into(),
        kind: SymbolKind::Class,
        line: 3,
    });
    assert_eq!(
        render_file("src/store.ts", &outline),
        "src/store.ts:\n  class Store extends Base\n    size: number\n    async get(key: string): Promise<Value>\n  \
         function createStore(opts: Options): Store\n  const DEFAULTS\n"
    );
    assert_eq!(
        render_file("README.json", &FileOutline::empty(Language::Json)),
        "README.json\n"
    );
}

#[test]
fn each_language_renders_in_its_own_syntax() {
    let mut python = FileOutline::empty(Language::Python);
    let mut model = class(
        "User",
        ClassKind::Class,
        vec![function("save", &["self", "force: bool"], Some("None"))],
    );
    model.extends.push("Model".into());
    python.classes.push(model);
    assert_eq!(
        render_file("m.py", &python),
        "m.py:\n  class User(Model)\n    def save(force: bool) -> None\n"
    );

    let mut rust = FileOutline::empty(Language::Rust);
    let mut display = class(
        "Store",
        ClassKind::Impl,
        vec![function("fmt", &["&self"], Some("fmt::Result"))],
    );
    display.implements.push("Display".into());
    let mut new = function("new", &[], Some("Self"));
    new.visibility = Some(Visibility::Public);
    rust.classes
        .push(class("Store", ClassKind::Struct, Vec::new()));
    rust.classes.push(display);
    rust.classes
        .push(class("Store", ClassKind::Impl, vec![new]));
    assert_eq!(
        render_file("src/store.rs", &rust),
        "src/store.rs:\n  struct Store\n  impl Display for Store\n  impl Store\n    fn new() -> Self\n"
    );

    let mut go = FileOutline::empty(Language::Go);
    go.classes
        .push(class("Server", ClassKind::Struct, Vec::new()));
    go.functions
        .push(function("Listen", &["addr string"], Some("error")));
    assert_eq!(
        render_file("s.go", &go),
        "s.go:\n  type Server struct\n  func Listen(addr string) error\n"
    );

    let mut java = FileOutline::empty(Language::Java);
    let mut get = function("get", &["String key"], Some("Value"));
    get.is_static = true;
    java.classes
        .push(class("Cache", ClassKind::Interface, vec![get]));
    assert_eq!(
        render_file("C.java", &java),
        "C.java:\n  interface Cache\n    static Value get(String key)\n"
    );
}

#[test]
fn long_sections_are_capped() {
    let names: Vec<String> = (0..100).map(|i| format!("f{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let section = render_file("big.ts", &file(&names, &[]));
    assert_eq!(section.lines().count(), MAX_SECTION_LINES + 1);
    assert!(section.ends_with(&format!("  … {} more\n", 100 - (MAX_SECTION_LINES - 1))));
}

#[test]
fn a_file_that_exports_shows_only_its_exported_surface() {
    let mut outline = FileOutline::empty(Language::Rust);
    let mut helper = function("helper", &[], None);
    helper.is_exported = false;
    let mut private_type = class("Cache", ClassKind::Struct, Vec::new());
    private_type.is_exported = false;
    outline.functions.push(function("run", &[], None));
    outline.functions.push(helper);
    outline
        .functions
        .push(function("tests::it_works", &[], None));
    outline.classes.push(private_type);
    outline.classes.push(class(
        "Cache",
        ClassKind::Impl,
        vec![function("get", &[], None)],
    ));
    assert_eq!(
        render_file("src/lib.rs", &outline),
        "src/lib.rs:\n  fn run()\n"
    );
    // Without exports (a binary's main.rs), everything outside tests is shown.
    for function in &mut outline.functions {
        function.is_exported = false;
    }
    assert_eq!(
        render_file("src/main.rs", &outline),
        "src/main.rs:\n  struct Cache\n  impl Cache\n    fn get()\n  fn run()\n  fn helper()\n"
    );
}

#[test]
fn long_types_and_commented_bodies_are_shortened() {
    let mut outline = FileOutline::empty(Language::Rust);
    let mut error = class("Error", ClassKind::Enum, Vec::new());
    let variant = |name: &str, ty: &str| Property {
        name: name.into(),
        type_annotation: Some(ty.into()),
        visibility: Visibility::Public,
        is_static: false,
        is_readonly: false,
        line: 2,
    };
    error.properties.push(variant("Io", "(std::io::Error)"));
    error
        .properties
        .push(variant("Parse", "{ /// Where. line: u32, }"));
    let long = format!("Vec<{}>", "Option<String>, ".repeat(10));
    error.properties.push(variant("Many", &long));
    outline.classes.push(error);
    let section = render_file("e.rs", &outline);
    let lines: Vec<&str> = section.lines().collect();
    assert_eq!(
        lines[2..4],
        ["    Io: (std::io::Error)", "    Parse: { … }"]
    );
    assert!(
        lines[4].ends_with('…') && lines[4].chars().count() < 100,
        "{}",
        lines[4]
    );
}

#[test]
fn classes_show_a_dozen_members_at_most() {
    let methods: Vec<Function> = (0..20)
        .map(|i| function(&format!("m{i}"), &[], None))
        .collect();
    let mut outline = FileOutline::empty(Language::TypeScript);
    outline
        .classes
        .push(class("Big", ClassKind::Class, methods));
    let section = render_file("big.ts", &outline);
    assert_eq!(section.lines().count(), 2 + 12);
    assert!(section.ends_with("    … 9 more\n"));
}

#[test]
fn an_empty_project_gives_an_empty_map() {
    let files = BTreeMap::new();
    let rendered = RepoMap::new().render(&files, &analyze(&files), &RepoMapRequest::default());
    assert_eq!(
        (rendered.text.as_str(), rendered.tokens, rendered.omitted),
        ("", 0, 0)
    );
}

/// A synthetic project: `count` files in 30 directories, each with a class, functions,
/// imports of neighbours and references to names defined elsewhere.
fn synthetic_project(count: usize) -> BTreeMap<String, FileOutline> {
    (0..count)
        .map(|i| {
            let path = format!("src/dir{}/file{i}.ts", i % 30);
            let mut outline = FileOutline::empty(Language::TypeScript);
            let mut methods = Vec::new();
            for m in 0..5 {
                methods.push(function(
                    &format!("method{m}"),
                    &["a: A", "b: B"],
                    Some("C"),
                ));
            }
            outline
                .classes
                .push(class(&format!("Class{i}"), ClassKind::Class, methods));
            for f in 0..8 {
                let name = format!("function{i}x{f}");
                outline
                    .functions
                    .push(function(&name, &["input: string"], Some("Output")));
                outline
                    .symbols
                    .push(occurrence(&name, SymbolRole::Definition));
            }
            for r in 0..40 {
                let target = (i * 7 + r * 13) % count;
                outline.symbols.push(occurrence(
                    &format!("function{target}x{}", r % 8),
                    SymbolRole::Reference,
                ));
                outline.symbols.push(occurrence(
                    &format!("method{}", r % 5),
                    SymbolRole::Reference,
                ));
            }
            for k in 1..=6 {
                let target = (i + k * 31) % count;
                outline.imports.push(Import {
                    source: format!("../dir{}/file{target}", target % 30),
                    names: Vec::new(),
                    line: 1,
                    origin: ImportOrigin::Internal,
                });
            }
            (path, outline)
        })
        .collect()
}

/// Timing goals on a warm index; run with `cargo test --release -- --ignored`.
#[test]
#[ignore = "timing; meaningful in release builds only"]
fn a_map_of_1500_files_builds_within_the_time_goals() {
    let files = synthetic_project(1500);
    let started = Instant::now();
    let first = analyze(&files);
    let first_time = started.elapsed();
    // Steady state: the indexer re-analyses after every update, with memory already mapped.
    drop(first);
    let started = Instant::now();
    let analysis = analyze(&files);
    let analyzed = started.elapsed();
    let mut map = RepoMap::new();
    let started = Instant::now();
    let cold = map.render(&files, &analysis, &RepoMapRequest::default());
    let cold_time = started.elapsed();
    let started = Instant::now();
    let focused = RepoMapRequest {
        focus_files: vec!["src/dir3/file3.ts".into()],
        ..RepoMapRequest::default()
    };
    map.render(&files, &analysis, &focused);
    let focus_time = started.elapsed();
    let started = Instant::now();
    map.render(&files, &analysis, &focused);
    let warm_time = started.elapsed();
    eprintln!(
        "edges {} · analyze {first_time:?} then {analyzed:?} · map cold {cold_time:?} · new focus {focus_time:?} · cached {warm_time:?} · {} files shown",
        analysis.edges.len(),
        cold.files.len()
    );
    assert!(analyzed.as_millis() < 100, "analyze took {analyzed:?}");
    assert!(cold_time.as_millis() < 300, "map took {cold_time:?}");
}
