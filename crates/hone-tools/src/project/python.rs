//! Python projects: tox's commands, pytest's settings (`pyproject.toml`, `setup.cfg`,
//! `pytest.ini`, `tox.ini`), a `src/` layout, and the fallbacks (pytest when installed,
//! else the standard library's unittest started where the tests are).

use std::path::Path;

use configparser::ini::Ini;

use super::Installed;
use super::commands::{Runner, TestCommand};
use super::declared::test_line;

/// Files whose presence marks a Python project.
const MARKERS: &[&str] = &[
    "pyproject.toml",
    "pytest.ini",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "conftest.py",
];

/// What a Python project's files say about its tests.
#[derive(Debug, Default)]
struct Settings {
    /// The file whose pytest section configures pytest (`pyproject.toml`, …).
    pytest_config: Option<&'static str>,
    /// pytest's `pythonpath` setting is there (pytest puts it on the path itself).
    pytest_pythonpath: bool,
    /// pytest's `testpaths`.
    testpaths: Vec<String>,
    /// Where the packages are when not at the top (`src`).
    source_dir: Option<String>,
}

/// The interpreter to run: the project's virtual environment's, else `python3`, else
/// `python`.
pub(super) fn interpreter(dir: &Path, installed: &dyn Installed) -> String {
    for venv in [".venv/bin/python", "venv/bin/python"] {
        if dir.join(venv).is_file() {
            return venv.to_string();
        }
    }
    if installed.program("python3") || !installed.program("python") {
        "python3".to_string()
    } else {
        "python".to_string()
    }
}

/// What tox and pytest's settings declare: tox's first test command, then pytest when a
/// file configures it (with the source directory on `PYTHONPATH` unless pytest's own
/// `pythonpath` setting puts it there).
pub(super) fn declared(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    let python = interpreter(dir, installed);
    let settings = Settings::read(dir);
    let env = source_env(&settings, false);
    if let Some(tox) = read_ini(&dir.join("tox.ini")) {
        let setenv = tox_setenv(&tox);
        if let Some(commands) = tox.get("testenv", "commands") {
            let found_line = commands
                .lines()
                .filter_map(tox_substitute)
                .find_map(|line| test_line(&line, &python, installed, dir));
            if let Some(line) = found_line {
                let env = if setenv.is_empty() {
                    env.clone()
                } else {
                    setenv
                };
                let mut command = TestCommand::new(
                    &line.name,
                    "tox.ini",
                    Runner::Declared(line.command),
                    line.available,
                )
                .with_env(env);
                command.dir = line.dir.unwrap_or_default();
                found.push(command);
            }
        }
    }
    if let Some(source) = settings.pytest_config {
        let available = installed.python_module(dir, &python, "pytest");
        found.push(
            TestCommand::new("pytest", source, Runner::Pytest { python }, available)
                .with_env(source_env(&settings, true)),
        );
    }
}

/// For a Python project: pytest when installed, then unittest from where the tests are:
/// the project directory when test files are there, then each test directory (pytest's
/// `testpaths`, `tests`, `test`), as a package (`-t .`) when it has `__init__.py`.
pub(super) fn fallbacks(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    let settings = Settings::read(dir);
    let mut starts: Vec<String> = settings.testpaths.clone();
    for default in ["tests", "test"] {
        if !starts.iter().any(|start| start == default) {
            starts.push(default.to_string());
        }
    }
    starts.retain(|start| {
        !start.starts_with('/')
            && !start.split('/').any(|part| part == "..")
            && has_test_files(&dir.join(start))
    });
    let top_tests = has_test_files(dir);
    let python_project =
        top_tests || !starts.is_empty() || MARKERS.iter().any(|name| dir.join(name).is_file());
    if !python_project {
        return;
    }
    let python = interpreter(dir, installed);
    let pytest = installed.python_module(dir, &python, "pytest");
    found.push(
        TestCommand::new(
            "pytest",
            "fallback",
            Runner::Pytest {
                python: python.clone(),
            },
            pytest,
        )
        .with_env(source_env(&settings, true)),
    );
    let available = installed.program(&python) || python.contains('/');
    let unittest = |start: Option<String>, package: bool| {
        TestCommand::new(
            &format!(
                "{} -m unittest",
                python.rsplit('/').next().unwrap_or(&python)
            ),
            "fallback",
            Runner::Unittest {
                python: python.clone(),
                start,
                package,
            },
            available,
        )
        .with_env(source_env(&settings, false))
    };
    if top_tests {
        found.push(unittest(None, false));
    }
    for start in starts {
        let package = dir.join(&start).join("__init__.py").is_file();
        found.push(unittest(Some(start), package));
    }
}

/// `PYTHONPATH=SRC` for a source directory, unless pytest runs and puts it there itself.
fn source_env(settings: &Settings, for_pytest: bool) -> Vec<(String, String)> {
    match &settings.source_dir {
        Some(source) if !(for_pytest && settings.pytest_pythonpath) => {
            vec![("PYTHONPATH".to_string(), source.clone())]
        }
        _ => Vec::new(),
    }
}

/// Whether `dir` holds `test*.py` files (unittest's default pattern) or `*_test.py`
/// (pytest's other one).
fn has_test_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".py") && (name.starts_with("test") || name.ends_with("_test.py"))
        })
    })
}

impl Settings {
    fn read(dir: &Path) -> Self {
        let mut settings = Self::default();
        let pyproject = std::fs::read_to_string(dir.join("pyproject.toml"))
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok());
        if let Some(pyproject) = &pyproject {
            let tool = pyproject.get("tool");
            let pytest = tool
                .and_then(|tool| tool.get("pytest"))
                .map(|pytest| pytest.get("ini_options").unwrap_or(pytest));
            if let Some(pytest) = pytest {
                settings.pytest_config = Some("pyproject.toml");
                settings.pytest_pythonpath = pytest.get("pythonpath").is_some();
                settings.testpaths = strings(pytest.get("testpaths"));
            }
            settings.source_dir = tool.and_then(setuptools_source);
        }
        for (file, section) in [
            ("pytest.ini", "pytest"),
            ("setup.cfg", "tool:pytest"),
            ("tox.ini", "pytest"),
        ] {
            let Some(ini) = read_ini(&dir.join(file)) else {
                continue;
            };
            if settings.source_dir.is_none()
                && let Some(package_dir) = ini.get("options", "package_dir")
            {
                // `package_dir =\n    =src`: the root package's directory.
                settings.source_dir = package_dir.lines().find_map(|line| {
                    let (name, path) = line.split_once('=')?;
                    (name.trim().is_empty() && !path.trim().is_empty())
                        .then(|| path.trim().to_string())
                });
            }
            if settings.pytest_config.is_none() && ini.sections().iter().any(|name| name == section)
            {
                settings.pytest_config = Some(file);
                settings.pytest_pythonpath = ini.get(section, "pythonpath").is_some();
                settings.testpaths = ini
                    .get(section, "testpaths")
                    .map(|paths| paths.split_whitespace().map(str::to_string).collect())
                    .unwrap_or_default();
            }
        }
        if settings.source_dir.is_none() && has_packages(&dir.join("src")) {
            settings.source_dir = Some("src".to_string());
        }
        settings
            .source_dir
            .take_if(|source| !dir.join(source.as_str()).is_dir() || source == ".");
        settings
    }
}

/// setuptools' or hatch's source directory: `[tool.setuptools.packages.find] where`,
/// `[tool.setuptools] package-dir = {"" = "src"}`, hatch's wheel `packages = ["src/x"]`.
fn setuptools_source(tool: &toml::Value) -> Option<String> {
    let setuptools = tool.get("setuptools");
    let found = setuptools
        .and_then(|setuptools| setuptools.get("packages"))
        .and_then(|packages| packages.get("find"))
        .and_then(|find| strings(find.get("where")).into_iter().next())
        .or_else(|| {
            setuptools
                .and_then(|setuptools| setuptools.get("package-dir"))
                .and_then(|dirs| dirs.get(""))
                .and_then(toml::Value::as_str)
                .map(str::to_string)
        })
        .or_else(|| {
            let packages = tool
                .get("hatch")?
                .get("build")?
                .get("targets")?
                .get("wheel")?
                .get("packages");
            strings(packages)
                .into_iter()
                .find_map(|package| package.rsplit_once('/').map(|(dir, _)| dir.to_string()))
        });
    found.map(|dir| dir.trim_end_matches('/').to_string())
}

/// Whether `dir` holds a Python package or module.
fn has_packages(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let path = entry.path();
            path.join("__init__.py").is_file() || path.extension().is_some_and(|ext| ext == "py")
        })
    })
}

/// A TOML value's strings: a string or an array of them.
fn strings(value: Option<&toml::Value>) -> Vec<String> {
    match value {
        Some(toml::Value::String(text)) => vec![text.clone()],
        Some(toml::Value::Array(items)) => items
            .iter()
            .filter_map(toml::Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// An INI file as Python's configparser reads it (indented lines continue a value).
fn read_ini(path: &Path) -> Option<Ini> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut ini = Ini::new_cs();
    ini.set_multiline(true);
    ini.set_comment_symbols(&['#', ';']);
    ini.read(text).ok()?;
    Some(ini)
}

/// tox's `setenv` entries that hone can write out (`PYTHONPATH = {toxinidir}/src`).
fn tox_setenv(tox: &Ini) -> Vec<(String, String)> {
    let Some(text) = tox.get("testenv", "setenv") else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once('=')?;
            let name = name.trim();
            let value = tox_substitute(value)?;
            let plain =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            plain.then(|| (name.to_string(), value.trim_start_matches("./").to_string()))
        })
        .collect()
}

/// A tox line with the substitutions hone knows made (`{posargs:tests}` → `tests`,
/// `{toxinidir}` → `.`, `{envpython}` → `python`); `None` when others remain.
fn tox_substitute(line: &str) -> Option<String> {
    let mut text = line.trim().to_string();
    while let Some(start) = text.find("{posargs") {
        let end = start + text[start..].find('}')?;
        let default = text[start..end].split_once(':').map_or("", |(_, d)| d);
        text = format!("{}{}{}", &text[..start], default, &text[end + 1..]);
    }
    let text = text
        .replace("{toxinidir}/", "")
        .replace("{toxinidir}", ".")
        .replace("{envpython}", "python")
        .replace("{envbindir}/", "");
    (!text.contains('{') && !text.trim().is_empty()).then(|| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Fake;

    #[test]
    fn tox_substitutions_are_made_or_the_line_is_left_out() {
        assert_eq!(
            tox_substitute("pytest {posargs}").as_deref(),
            Some("pytest")
        );
        assert_eq!(
            tox_substitute("pytest {posargs:tests -q}").as_deref(),
            Some("pytest tests -q")
        );
        assert_eq!(
            tox_substitute("{envpython} -m pytest {toxinidir}/tests").as_deref(),
            Some("python -m pytest tests")
        );
        assert_eq!(tox_substitute("pytest {envsitepackagesdir}"), None);
        assert_eq!(tox_substitute("   "), None);
    }

    #[test]
    fn tox_commands_and_setenv_are_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tox.ini"),
            "[tox]\nenvlist = py311\n\n[testenv]\ndeps =\n    pytest\nsetenv =\n    PYTHONPATH = {toxinidir}/lib\ncommands =\n    flake8 .\n    - coverage run -m pytest {posargs}\n",
        )
        .unwrap();
        let mut found = Vec::new();
        declared(dir.path(), &Fake::everything(), &mut found);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].source, "tox.ini");
        assert_eq!(found[0].command_line(), "PYTHONPATH=lib python3 -m pytest");
    }

    #[test]
    fn setup_cfg_and_pytest_ini_configure_pytest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("setup.cfg"),
            "[options]\npackage_dir =\n    =lib\n\n[tool:pytest]\ntestpaths = checks\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("lib/pkg")).unwrap();
        std::fs::create_dir_all(dir.path().join("checks")).unwrap();
        std::fs::write(dir.path().join("checks/test_a.py"), "").unwrap();
        let settings = Settings::read(dir.path());
        assert_eq!(settings.pytest_config, Some("setup.cfg"));
        assert_eq!(settings.testpaths, ["checks"]);
        assert_eq!(settings.source_dir.as_deref(), Some("lib"));
        let mut found = Vec::new();
        fallbacks(dir.path(), &Fake::without_pytest(), &mut found);
        let lines: Vec<String> = found
            .iter()
            .filter(|command| command.available)
            .map(TestCommand::command_line)
            .collect();
        assert_eq!(
            lines,
            ["PYTHONPATH=lib python3 -B -m unittest discover -q -s checks"]
        );
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("pytest.ini"), "[pytest]\naddopts = -q\n").unwrap();
        assert_eq!(
            Settings::read(other.path()).pytest_config,
            Some("pytest.ini")
        );
    }

    #[test]
    fn setuptools_and_hatch_name_the_source_directory() {
        let table = |text: &str| text.parse::<toml::Table>().unwrap()["tool"].clone();
        assert_eq!(
            setuptools_source(&table(
                "[tool.setuptools.packages.find]\nwhere = [\"code\"]\n"
            )),
            Some("code".into())
        );
        assert_eq!(
            setuptools_source(&table(
                "[tool.setuptools]\npackage-dir = {\"\" = \"src\"}\n"
            )),
            Some("src".into())
        );
        assert_eq!(
            setuptools_source(&table(
                "[tool.hatch.build.targets.wheel]\npackages = [\"src/shop\"]\n"
            )),
            Some("src".into())
        );
        assert_eq!(
            setuptools_source(&table("[tool.black]\nline-length = 99\n")),
            None
        );
    }

    #[test]
    fn a_virtual_environment_interpreter_is_preferred() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(interpreter(dir.path(), &Fake::everything()), "python3");
        let only_python = Fake {
            programs: vec!["python"],
            pytest: false,
        };
        assert_eq!(interpreter(dir.path(), &only_python), "python");
        std::fs::create_dir_all(dir.path().join(".venv/bin")).unwrap();
        std::fs::write(dir.path().join(".venv/bin/python"), "").unwrap();
        assert_eq!(
            interpreter(dir.path(), &Fake::everything()),
            ".venv/bin/python"
        );
    }

    #[test]
    fn a_directory_without_python_gets_no_fallback() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.go"), "package main\n").unwrap();
        let mut found = Vec::new();
        fallbacks(dir.path(), &Fake::everything(), &mut found);
        assert!(found.is_empty());
    }
}
