//! Import resolution in Rust, Go, C and Java projects.

use super::*;

#[test]
fn rust_mod_declarations_find_sibling_and_nested_module_files() {
    // The extractor records `mod name;` as an internal import of `name`.
    let analysis = Project::default()
        .file("src/lib.rs", &["parse", "model", "tests"])
        .file("src/parse.rs", &["rust"])
        .files(&["src/model/mod.rs", "src/parse/rust.rs"])
        .analyze();
    assert_eq!(
        deps(&analysis, "src/lib.rs"),
        ["src/model/mod.rs", "src/parse.rs"]
    );
    assert_eq!(deps(&analysis, "src/parse.rs"), ["src/parse/rust.rs"]);
}

#[test]
fn rust_use_paths_walk_crate_super_and_self_to_the_deepest_module() {
    let uses = [
        "crate::analysis::graph|FileFacts",
        "crate|Language",
        "crate|model,parse",
        "self::rank|RankGraph",
        "std::collections|BTreeMap",
    ];
    let analysis = Project::default()
        .file("src/repomap/mod.rs", &uses)
        .file(
            "src/analysis/graph.rs",
            &["super::paths|file_name", "super::super|model"],
        )
        .files(&[
            "src/lib.rs",
            "src/model.rs",
            "src/parse/mod.rs",
            "src/analysis/mod.rs",
        ])
        .files(&["src/analysis/paths.rs", "src/repomap/rank.rs"])
        .analyze();
    let expected = [
        "src/analysis/graph.rs",
        "src/lib.rs",
        "src/model.rs",
        "src/parse/mod.rs",
        "src/repomap/rank.rs",
    ];
    assert_eq!(deps(&analysis, "src/repomap/mod.rs"), expected);
    assert_eq!(
        deps(&analysis, "src/analysis/graph.rs"),
        ["src/analysis/paths.rs", "src/model.rs"]
    );
}

#[test]
fn rust_workspace_crates_resolve_by_their_cargo_name() {
    let root = root_with(&[(
        "crates/foo-bar/Cargo.toml",
        "[package]\nname = \"foo-bar\"\n",
    )]);
    let main = "crates/app/src/main.rs";
    let analysis = Project::default()
        .file(
            main,
            &["foo_bar::store|Store", "foo_bar|foo_bar", "serde|Serialize"],
        )
        .files(&["crates/foo-bar/src/lib.rs", "crates/foo-bar/src/store.rs"])
        .analyze_in(root.path());
    assert_eq!(
        deps(&analysis, main),
        ["crates/foo-bar/src/lib.rs", "crates/foo-bar/src/store.rs"]
    );
}

#[test]
fn go_imports_of_the_module_reach_every_non_test_file_of_the_package() {
    let root = root_with(&[("go.mod", "module github.com/acme/app // app\n\ngo 1.22\n")]);
    let imports = [
        "github.com/acme/app/internal/store",
        "github.com/other/lib",
        "fmt",
    ];
    let analysis = Project::default()
        .file("cmd/app/main.go", &imports)
        .files(&["internal/store/store.go", "internal/store/cache.go"])
        .files(&["internal/store/store_test.go"])
        .analyze_in(root.path());
    let expected = ["internal/store/cache.go", "internal/store/store.go"];
    assert_eq!(deps(&analysis, "cmd/app/main.go"), expected);
}

#[test]
fn go_modules_named_without_a_domain_resolve_despite_a_builtin_origin() {
    let root = root_with(&[("go.mod", "module myapp\n")]);
    let mut main = FileOutline::empty(Language::Go);
    for spec in ["myapp/store", "fmt"] {
        main.imports.push(Import {
            origin: ImportOrigin::Builtin,
            ..import(spec, 1)
        });
    }
    let analysis = Project::default()
        .outline("main.go", main)
        .files(&["store/store.go"])
        .analyze_in(root.path());
    assert_eq!(deps(&analysis, "main.go"), ["store/store.go"]);
}

#[test]
fn c_includes_resolve_next_to_the_file_then_from_the_root_then_by_suffix() {
    let analysis = Project::default()
        .file(
            "src/net/conn.c",
            &["conn.h", "src/common.h", "util/log.h", "stdio.h"],
        )
        .files(&["src/net/conn.h", "src/common.h", "include/util/log.h"])
        .files(&["other/util/log.hpp"])
        .analyze();
    let expected = ["include/util/log.h", "src/common.h", "src/net/conn.h"];
    assert_eq!(deps(&analysis, "src/net/conn.c"), expected);
}

#[test]
fn java_imports_find_classes_under_any_source_root() {
    let imports = [
        "com.acme.store|Store",
        "com.acme.util.Strings|trim",
        "com.acme.model|*",
        "com.acme.store.Store|Entry",
        "com.acme.util.Numbers|*",
        "java.util|List",
    ];
    let java = |path: &str| format!("src/main/java/com/acme/{path}.java");
    let app = java("App");
    let expected = [
        "model/Order",
        "model/User",
        "store/Store",
        "util/Numbers",
        "util/Strings",
    ];
    let expected: Vec<String> = expected.iter().map(|path| java(path)).collect();
    let paths: Vec<&str> = expected.iter().map(String::as_str).collect();
    let analysis = Project::default()
        .file(&app, &imports)
        .files(&paths)
        .files(&["src/test/java/com/acme/store/Store.java"])
        .analyze();
    assert_eq!(deps(&analysis, &app), paths);
}
