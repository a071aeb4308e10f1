//! Project configuration the import resolvers need: TypeScript/JavaScript path aliases,
//! JavaScript workspace packages, Go modules and Rust crate names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::jsonc;
use super::paths::{ancestors, child, file_name, join, parent};
use crate::model::FileOutline;

/// How many `extends` links of a tsconfig are followed.
const MAX_EXTENDS: usize = 5;

/// Module resolution settings read from the project's configuration files.
///
/// [`ProjectConfig::load`] reads them from disk; [`super::analyze_with`] then resolves
/// without touching the file system. Keep one and reload it when
/// [`ProjectConfig::is_config_file`] says a changed file matters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectConfig {
    /// Directory of a tsconfig/jsconfig → its alias settings.
    ts: BTreeMap<String, TsOptions>,
    /// Workspace packages, longest name first.
    js_packages: Vec<JsPackage>,
    /// Go modules, longest module path first.
    go_modules: Vec<GoModule>,
    /// Rust crate name (`-` folded to `_`) → its `src` directory.
    rust_crates: BTreeMap<String, String>,
}

/// tsconfig `paths`: each pattern (`@/*`) with its substitutions (`src/*`).
pub(crate) type PathPatterns = Vec<(String, Vec<String>)>;

/// `baseUrl` and `paths` of one tsconfig/jsconfig, after following `extends`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TsOptions {
    /// `baseUrl`, root-relative.
    pub(crate) base_url: Option<String>,
    /// The directory `paths` substitutions are relative to.
    pub(crate) paths_base: String,
    /// `paths` patterns and their substitutions, in file order.
    pub(crate) paths: PathPatterns,
}

/// A package of a JavaScript workspace (a `package.json` with a name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsPackage {
    /// The package name (`@acme/ui`).
    pub(crate) name: String,
    /// Its directory.
    pub(crate) dir: String,
    /// Its entry file as declared (`source`, `types`, `module` or `main`), root-relative.
    pub(crate) entry: Option<String>,
}

/// A Go module: its path from `go.mod` and its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GoModule {
    /// `github.com/acme/app`.
    pub(crate) path: String,
    /// Directory of the `go.mod`.
    pub(crate) dir: String,
}

impl ProjectConfig {
    /// Reads the configuration of the project at `root`: the root `tsconfig.json` or
    /// `jsconfig.json` and nested ones among `files`, `package.json` names, `go.mod` files
    /// above Go sources, and `Cargo.toml` names of crates with a `src/lib.rs`. Unreadable or
    /// malformed files are skipped.
    pub fn load(root: &Path, files: &BTreeMap<String, FileOutline>) -> Self {
        let read = |relative: &str| std::fs::read_to_string(root.join(relative)).ok();
        let mut config = Self::default();
        config.load_ts(&read, files);
        config.load_js_packages(&read, files);
        config.load_go(&read, files);
        config.load_rust(root, &read, files);
        config
    }

    /// Whether a change to `path` can change what [`ProjectConfig::load`] reads.
    pub fn is_config_file(path: &str) -> bool {
        let name = file_name(path);
        matches!(
            name,
            "jsconfig.json" | "package.json" | "go.mod" | "Cargo.toml"
        ) || (name.starts_with("tsconfig") && name.ends_with(".json"))
    }

    /// The alias settings governing `file` (from the nearest configured directory).
    pub(crate) fn ts_options(&self, file: &str) -> Option<&TsOptions> {
        ancestors(file).find_map(|dir| self.ts.get(dir))
    }

    /// Workspace packages, longest name first.
    pub(crate) fn js_packages(&self) -> &[JsPackage] {
        &self.js_packages
    }

    /// Go modules, longest path first.
    pub(crate) fn go_modules(&self) -> &[GoModule] {
        &self.go_modules
    }

    /// The `src` directory of the workspace crate called `name`.
    pub(crate) fn rust_crate(&self, name: &str) -> Option<&str> {
        self.rust_crates.get(name).map(String::as_str)
    }

    fn load_ts(
        &mut self,
        read: &impl Fn(&str) -> Option<String>,
        files: &BTreeMap<String, FileOutline>,
    ) {
        let mut candidates: BTreeSet<String> =
            ["tsconfig.json".to_string(), "jsconfig.json".to_string()].into();
        candidates.extend(
            files
                .keys()
                .filter(|path| matches!(file_name(path), "tsconfig.json" | "jsconfig.json"))
                .cloned(),
        );
        // BTreeSet order puts `jsconfig.json` before `tsconfig.json` in each directory, so a
        // tsconfig overwrites a jsconfig of the same directory.
        for path in candidates {
            if let Some(options) = read_ts_options(read, &path) {
                self.ts.insert(parent(&path).to_string(), options);
            }
        }
    }

    fn load_js_packages(
        &mut self,
        read: &impl Fn(&str) -> Option<String>,
        files: &BTreeMap<String, FileOutline>,
    ) {
        for path in files.keys() {
            if file_name(path) != "package.json" || path.contains("node_modules/") {
                continue;
            }
            let Some(value) = read(path).and_then(|text| serde_json::from_str::<Value>(&text).ok())
            else {
                continue;
            };
            let Some(name) = value["name"].as_str() else {
                continue;
            };
            let dir = parent(path).to_string();
            let entry = ["source", "types", "typings", "module", "main"]
                .iter()
                .find_map(|field| value[field].as_str())
                .and_then(|entry| join(&dir, entry));
            self.js_packages.push(JsPackage {
                name: name.to_string(),
                dir,
                entry,
            });
        }
        self.js_packages.sort_by(|a, b| {
            b.name
                .len()
                .cmp(&a.name.len())
                .then_with(|| a.name.cmp(&b.name))
        });
    }

    fn load_go(
        &mut self,
        read: &impl Fn(&str) -> Option<String>,
        files: &BTreeMap<String, FileOutline>,
    ) {
        let mut dirs = BTreeSet::new();
        for path in files.keys().filter(|path| path.ends_with(".go")) {
            for dir in ancestors(path) {
                if !dirs.insert(dir) {
                    break;
                }
            }
        }
        for dir in dirs {
            let Some(text) = read(&child(dir, "go.mod")) else {
                continue;
            };
            if let Some(module) = text
                .lines()
                .find_map(|line| line.trim().strip_prefix("module "))
            {
                let module = module
                    .split("//")
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches('"');
                self.go_modules.push(GoModule {
                    path: module.to_string(),
                    dir: dir.to_string(),
                });
            }
        }
        self.go_modules.sort_by(|a, b| {
            b.path
                .len()
                .cmp(&a.path.len())
                .then_with(|| a.path.cmp(&b.path))
        });
    }

    fn load_rust(
        &mut self,
        root: &Path,
        read: &impl Fn(&str) -> Option<String>,
        files: &BTreeMap<String, FileOutline>,
    ) {
        for path in files.keys().filter(|path| file_name(path) == "lib.rs") {
            let src = parent(path);
            if file_name(src) != "src" {
                continue;
            }
            let crate_dir = parent(src);
            let declared = read(&child(crate_dir, "Cargo.toml")).and_then(|text| cargo_name(&text));
            let fallback = if crate_dir.is_empty() {
                root.file_name()
                    .and_then(|name| name.to_str())
                    .map(str::to_string)
            } else {
                Some(file_name(crate_dir).to_string())
            };
            if let Some(name) = declared.or(fallback) {
                self.rust_crates
                    .insert(name.replace('-', "_"), src.to_string());
            }
        }
    }
}

/// Reads one tsconfig/jsconfig and the relative configs it `extends`.
fn read_ts_options(read: &impl Fn(&str) -> Option<String>, path: &str) -> Option<TsOptions> {
    let mut base_url: Option<String> = None;
    let mut paths: Option<(String, PathPatterns)> = None;
    let mut current = path.to_string();
    for _ in 0..MAX_EXTENDS {
        let Some(value) = read(&current).and_then(|text| jsonc::parse(&text)) else {
            break;
        };
        let dir = parent(&current).to_string();
        let options = &value["compilerOptions"];
        if base_url.is_none() {
            base_url = options["baseUrl"].as_str().and_then(|url| join(&dir, url));
        }
        if paths.is_none() {
            paths = options["paths"].as_object().map(|map| {
                let entries = map
                    .iter()
                    .map(|(pattern, targets)| {
                        let targets = targets
                            .as_array()
                            .map(|list| {
                                list.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default();
                        (pattern.clone(), targets)
                    })
                    .collect();
                (dir.clone(), entries)
            });
        }
        let extends = match &value["extends"] {
            Value::String(target) => Some(target.as_str()),
            Value::Array(list) => list
                .iter()
                .filter_map(Value::as_str)
                .find(|t| t.starts_with('.')),
            _ => None,
        };
        let Some(next) = extends.filter(|target| target.starts_with('.')) else {
            break;
        };
        let Some(mut next) = join(&dir, next) else {
            break;
        };
        if !next.ends_with(".json") {
            next.push_str(".json");
        }
        current = next;
    }
    if base_url.is_none() && paths.is_none() {
        return None;
    }
    let (paths_dir, paths) = paths.unwrap_or_default();
    let paths_base = base_url.clone().unwrap_or(paths_dir);
    Some(TsOptions {
        base_url,
        paths_base,
        paths,
    })
}

/// The crate name in a `Cargo.toml`: `[lib] name` when given, else `[package] name`.
fn cargo_name(text: &str) -> Option<String> {
    let mut section = "";
    let mut package = None;
    let mut lib = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim().trim_matches('"').to_string();
        match section {
            "[package]" => package = Some(value),
            "[lib]" => lib = Some(value),
            _ => {}
        }
    }
    lib.or(package)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_name_prefers_the_lib_name() {
        let text = "[package]\nname = \"my-crate\"\n[lib]\nname = \"my_lib\"\n";
        assert_eq!(cargo_name(text).as_deref(), Some("my_lib"));
        assert_eq!(
            cargo_name("[package]\nname = \"a-b\"").as_deref(),
            Some("a-b")
        );
    }

    #[test]
    fn config_files_are_recognised_by_name() {
        assert!(ProjectConfig::is_config_file("web/tsconfig.base.json"));
        assert!(ProjectConfig::is_config_file("go.mod"));
        assert!(!ProjectConfig::is_config_file("src/config.ts"));
    }
}
