//! Where allow-listed commands read: the arguments that are paths (`cat FILE`, `rg PATTERN
//! DIR`, `git -C DIR`, `git diff --no-index A B`), and whether a path stays inside the
//! project (`~`, `..`, absolute paths and symlinks resolved by the [`PathGuard`]).

use std::path::{Component, Path};

use super::args::{has_short, is_long};
use super::git;
use crate::{PathError, PathGuard};

/// How a command uses a path argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathUse {
    /// It reads the file or lists the directory.
    Read,
    /// It changes into the directory (`cd`), or runs git there (`git -C`): a git repository
    /// of its own there would bring its own configuration.
    Directory,
}

/// One path argument: the word it is in, the path text (a part of the word for
/// `--file=PATH`), and how it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathArg {
    /// Index of the word (the program is word 0).
    pub(crate) word: usize,
    /// The path as written.
    pub(crate) path: String,
    /// How the command uses it.
    pub(crate) usage: PathUse,
}

/// Short options whose value follows as the next word and is not a path, per program.
fn value_letters(name: &str) -> Option<&'static str> {
    Some(match name {
        "cat" | "tac" | "wc" | "md5sum" | "sha1sum" | "sha256sum" | "sha512sum" | "cksum"
        | "comm" => "",
        "head" | "tail" => "nc",
        "cut" => "dfcb",
        "sort" => "tkSTo",
        "uniq" => "fsw",
        "paste" => "d",
        "column" => "scoNRWEHt",
        "nl" => "bdfhilnpsvw",
        "ls" => "ITw",
        "du" => "dtB",
        "tree" => "LPIHTo",
        "diff" => "UCIFL",
        "cmp" => "in",
        "stat" => "c",
        "file" => "F",
        "grep" | "egrep" | "fgrep" => "emABCdD",
        "rg" => "emABCtTgrMjE",
        "find" | "cd" | "pushd" | "jq" => "",
        _ => return None,
    })
}

/// Whether the allow-listed program `name` reads the paths given as its arguments.
pub(crate) fn reads_paths(name: &str) -> bool {
    name == "git" || value_letters(name).is_some()
}

/// The path arguments of an allow-listed command (`words[0]` is its base name). Long
/// options given as `--name=value` count their value as a path.
pub(crate) fn path_args(words: &[String]) -> Vec<PathArg> {
    let Some(name) = words.first() else {
        return Vec::new();
    };
    if name == "git" {
        return git_paths(words);
    }
    let Some(values) = value_letters(name) else {
        return Vec::new();
    };
    let usage = match name.as_str() {
        "cd" | "pushd" => PathUse::Directory,
        _ => PathUse::Read,
    };
    let mut found = Vec::new();
    let mut positionals = Vec::new();
    let mut pattern_given = false;
    let mut index = 1;
    let mut options_end = false;
    while let Some(word) = words.get(index) {
        index += 1;
        if name == "find" {
            // Options, then starting points, then the expression.
            match word.as_str() {
                "-H" | "-L" | "-P" => continue,
                "-D" => index += 1,
                _ if word.starts_with("-O") => continue,
                _ if word.starts_with('-') || word == "(" || word == "!" => break,
                _ => positionals.push(index - 1),
            }
            continue;
        }
        if options_end || word == "-" || !word.starts_with('-') {
            positionals.push(index - 1);
            continue;
        }
        if word == "--" {
            options_end = true;
            continue;
        }
        let pattern_option = has_short(word, 'e', "mABCdDtTgrMjE")
            || has_short(word, 'f', "emABCdDtTgrMjE")
            || is_long(word, "regexp", 3)
            || is_long(word, "file", 4)
            || is_long(word, "from-file", 3);
        pattern_given |= pattern_option;
        if let Some((_, value)) = word.split_once('=') {
            found.push(PathArg {
                word: index - 1,
                path: value.to_string(),
                usage: PathUse::Read,
            });
            continue;
        }
        if !word.starts_with("--") {
            let cluster = &word[1..];
            let value_last = cluster
                .char_indices()
                .find(|(_, letter)| values.contains(*letter))
                .is_some_and(|(position, letter)| position + letter.len_utf8() == cluster.len());
            let path_value = cluster.ends_with('f') && !values.contains('f');
            if value_last && !path_value {
                index += 1;
            }
        }
    }
    let skip_pattern = matches!(name.as_str(), "grep" | "egrep" | "fgrep" | "rg" | "jq");
    let skip = usize::from(skip_pattern && !pattern_given);
    found.extend(positionals.into_iter().skip(skip).map(|word| PathArg {
        word,
        path: words[word].clone(),
        usage,
    }));
    if usage == PathUse::Directory && found.is_empty() {
        // `cd` alone changes to the home directory.
        found.push(PathArg {
            word: 0,
            path: "~".to_string(),
            usage,
        });
    }
    found
}

/// Options of the allow-listed git subcommands whose value is a file git reads, as a separate
/// word or after `=` (`git blame --contents FILE`, `git grep -f FILE`); long options named
/// `--…-file` or `--…-from` count too.
fn git_file_option(subcommand: &str, option: &str) -> bool {
    let named = match subcommand {
        "blame" => ["--contents", "-S", "--ignore-revs-file"].as_slice(),
        "grep" => ["-f"].as_slice(),
        "ls-files" => ["-X", "--exclude-from"].as_slice(),
        _ => [].as_slice(),
    };
    named.contains(&option)
        || (option.starts_with("--") && (option.ends_with("-file") || option.ends_with("-from")))
}

/// The files the options of a git subcommand read (`args` after the subcommand, whose first
/// word is word `offset`): [`git_file_option`]s, and `-O<orderfile>` of diff, log and show.
fn git_option_paths(subcommand: &str, args: &[String], offset: usize) -> Vec<PathArg> {
    let mut found = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        if arg == "--" {
            break;
        }
        let read = |path: &str, word: usize| PathArg {
            word,
            path: path.to_string(),
            usage: PathUse::Read,
        };
        if let Some((option, value)) = arg.split_once('=')
            && git_file_option(subcommand, option)
        {
            found.push(read(value, offset + index - 1));
        } else if git_file_option(subcommand, arg) {
            if let Some(value) = args.get(index) {
                found.push(read(value, offset + index));
            }
            index += 1;
        } else if matches!(subcommand, "diff" | "log" | "show")
            && let Some(order_file) = arg.strip_prefix("-O")
            && !order_file.is_empty()
        {
            found.push(read(order_file, offset + index - 1));
        }
    }
    found
}

/// `git -C DIR` (every one), the files git options read (`git blame --contents FILE`), and the
/// paths of `git diff/grep --no-index`.
fn git_paths(words: &[String]) -> Vec<PathArg> {
    let args = &words[1..];
    let mut found = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') {
            break;
        }
        if arg == "-C" {
            if let Some(dir) = args.get(index + 1) {
                found.push(PathArg {
                    word: index + 2,
                    path: dir.clone(),
                    usage: PathUse::Directory,
                });
            }
            index += 2;
            continue;
        }
        index += 1;
    }
    let call = git::parse(args);
    let offset = words.len() - call.args.len();
    if let Some(subcommand) = call.subcommand {
        found.extend(git_option_paths(subcommand, call.args, offset));
    }
    let no_index = call.args.iter().any(|arg| arg == "--no-index");
    if matches!(call.subcommand, Some("diff" | "grep")) && no_index {
        found.extend(
            call.args
                .iter()
                .enumerate()
                .filter(|(_, arg)| !arg.starts_with('-'))
                .map(|(position, arg)| PathArg {
                    word: offset + position,
                    path: arg.clone(),
                    usage: PathUse::Read,
                }),
        );
    }
    found
}

/// Why a read of a file that may hold secrets asks (`crate::SecretFiles`).
pub(crate) const MAY_HOLD_SECRETS: &str = "may hold secrets";

/// Devices that read or write nothing of the user's.
const HARMLESS_PATHS: &[&str] = &["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "-"];

/// Why `path` (a literal path as written in a command run from the project root) is not a
/// plain place inside the project, as a phrase (`"is outside the project"`), or `None`.
/// Without a guard only the text is judged (`~`, absolute paths, `..` that climbs out).
pub(crate) fn outside(guard: Option<&PathGuard>, path: &str, usage: PathUse) -> Option<String> {
    if path.is_empty() || HARMLESS_PATHS.contains(&path) {
        return None;
    }
    let outside = || Some("is outside the project".to_string());
    if path.starts_with('~') {
        return outside();
    }
    let Some(guard) = guard else {
        return (Path::new(path).is_absolute() || climbs_out(path))
            .then(|| "is outside the project".to_string());
    };
    match guard.resolve_read(path) {
        Ok(resolved) => {
            if usage == PathUse::Directory && nested_repository(guard.root(), &resolved.absolute) {
                Some("is inside a git repository other than the project's".to_string())
            } else if usage == PathUse::Read && guard.is_secret(&resolved.relative) {
                Some(MAY_HOLD_SECRETS.to_string())
            } else {
                None
            }
        }
        Err(PathError::OutsideRoot { .. }) => outside(),
        Err(PathError::Ignored { .. }) => Some("is hidden by .honeignore".to_string()),
        Err(PathError::Empty | PathError::GitInternals { .. } | PathError::BadRoot { .. }) => None,
    }
}

/// Whether the relative `path` climbs above its starting directory (`../x`, `a/../../x`).
fn climbs_out(path: &str) -> bool {
    let mut depth = 0usize;
    for component in Path::new(path).components() {
        match component {
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return true,
            },
            Component::Normal(_) => depth += 1,
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    false
}

/// Whether `dir` (inside `root`) or one of its parents below `root` holds a git repository
/// of its own: a `.git` entry, or the files of a bare repository.
fn nested_repository(root: &Path, dir: &Path) -> bool {
    let mut current = dir;
    while current != root && current.starts_with(root) {
        let bare = current.join("HEAD").is_file() && current.join("objects").is_dir();
        if bare || std::fs::symlink_metadata(current.join(".git")).is_ok() {
            return true;
        }
        let Some(parent) = current.parent() else {
            return false;
        };
        current = parent;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        path_args(&words).into_iter().map(|arg| arg.path).collect()
    }

    #[test]
    fn readers_name_their_files_and_skip_option_values_and_patterns() {
        assert_eq!(paths("cat a b"), ["a", "b"]);
        assert_eq!(paths("head -n 5 x"), ["x"]);
        assert_eq!(paths("cut -d / -f 1 x"), ["x"]);
        assert_eq!(paths("grep -rn /api/ src"), ["src"]);
        assert_eq!(paths("grep -e /x -f pats src"), ["pats", "src"]);
        assert_eq!(paths("rg -t rust foo ../x"), ["../x"]);
        assert_eq!(paths("wc --files0-from=../list"), ["../list"]);
        assert_eq!(paths("find ../x /y -name z"), ["../x", "/y"]);
        assert_eq!(paths("cd"), ["~"]);
        assert_eq!(paths("echo ../x"), Vec::<String>::new());
    }

    #[test]
    fn git_reads_its_directory_and_no_index_paths() {
        assert_eq!(paths("git -C sub status"), ["sub"]);
        assert_eq!(paths("git diff --no-index a ../b"), ["a", "../b"]);
        assert_eq!(paths("git diff a b"), Vec::<String>::new());
    }

    #[test]
    fn git_options_that_read_files_name_them() {
        assert_eq!(
            paths("git blame --contents ../secret src/a.rs"),
            ["../secret"]
        );
        assert_eq!(paths("git blame --contents=../secret a.rs"), ["../secret"]);
        assert_eq!(paths("git blame -S ../revs a.rs"), ["../revs"]);
        assert_eq!(
            paths("git blame --ignore-revs-file=../revs a.rs"),
            ["../revs"]
        );
        assert_eq!(paths("git grep -f ../patterns"), ["../patterns"]);
        assert_eq!(paths("git ls-files -X ../ignores"), ["../ignores"]);
        assert_eq!(
            paths("git ls-files --exclude-from=../ignores"),
            ["../ignores"]
        );
        assert_eq!(paths("git diff -O../order HEAD"), ["../order"]);
        assert_eq!(paths("git log --some-new-file ../x"), ["../x"]);
        // `-S` is a pickaxe string for log, and words after `--` are pathspecs.
        assert_eq!(paths("git log -S needle"), Vec::<String>::new());
        assert_eq!(paths("git blame -- --contents"), Vec::<String>::new());
        assert_eq!(paths("git -C sub blame --contents x y"), ["sub", "x"]);
    }

    #[test]
    fn paths_outside_are_told_from_the_text_without_a_guard() {
        let out = |path| outside(None, path, PathUse::Read).is_some();
        assert!(out("~/.ssh/id_rsa"));
        assert!(out("../x"));
        assert!(out("a/../../x"));
        assert!(out("/etc/passwd"));
        assert!(!out("a/../b"));
        assert!(!out("src/lib.rs"));
        assert!(!out("/dev/null"));
    }

    #[test]
    fn symlinks_and_nested_repositories_are_resolved_with_a_guard() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("bare/objects")).unwrap();
        std::fs::write(root.join("bare/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let guard = PathGuard::new(&root).unwrap();
        let out = |path, usage| outside(Some(&guard), path, usage);
        assert_eq!(out("src", PathUse::Directory), None);
        assert!(out("up/secret", PathUse::Read).is_some());
        assert!(out("../x", PathUse::Read).is_some());
        assert!(out("bare", PathUse::Directory).is_some_and(|why| why.contains("git repository")));
        assert_eq!(out("bare", PathUse::Read), None);
    }
}
