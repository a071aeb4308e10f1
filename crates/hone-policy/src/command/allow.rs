//! The built-in allow list: commands that only read and print, some of them only with
//! certain arguments (`find` without `-exec`, `git branch` when listing).
//!
//! Build and test tools (`cargo`, `npm`, `make`, `pytest`…) are deliberately absent:
//! they run code from the project (build scripts, tests, package scripts), so what they
//! do is only as safe as the project. Users who trust their project can allow them with
//! a rule (`allow = ["cargo test"]`).

use super::args::{has_short, is_long, options, positionals};
use super::git;
use super::wrappers::find_parts;

/// What the allow list says about a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AllowCheck {
    /// Not a listed program.
    NotListed,
    /// Listed and run with arguments that keep it read-only.
    Allowed,
    /// Listed, but these arguments make it more than a read; the sentence says why.
    Ask(String),
}

/// Programs that only read and print, whatever their arguments.
const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "pwd",
    "echo",
    "printf",
    "which",
    "type",
    "whereis",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "true",
    "false",
    ":",
    "test",
    "[",
    "[[",
    "cd",
    "pushd",
    "popd",
    "whoami",
    "id",
    "uname",
    "cut",
    "tr",
    "paste",
    "column",
    "comm",
    "tac",
    "nl",
    "seq",
    "sleep",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "jq",
    "alias",
    "trap",
    "read",
    "shift",
    "exit",
    "return",
    "wait",
    "break",
    "continue",
];

/// Checks `words` (the program's base name first). `args_known` is false when some
/// arguments are only known at run time (`$VAR`, `$(…)`, or appended by `xargs`): programs
/// whose safety depends on their arguments then ask.
pub(crate) fn builtin_allow(words: &[String], args_known: bool) -> AllowCheck {
    let Some((name, args)) = words.split_first() else {
        return AllowCheck::NotListed;
    };
    if READ_ONLY.contains(&name.as_str()) {
        return AllowCheck::Allowed;
    }
    let check = match name.as_str() {
        "find" => find(args),
        "sort" => sort(args),
        "uniq" => uniq(args),
        "tree" => tree(args),
        "file" => file(args),
        "date" => date(args),
        "rg" => rg(args),
        "git" => git(args),
        "printenv" => ask("`printenv` prints the environment, which can hold secrets"),
        "set" if args.is_empty() => {
            ask("`set` without arguments prints every variable, which can hold secrets")
        }
        "set" => AllowCheck::Allowed,
        _ => return AllowCheck::NotListed,
    };
    match check {
        AllowCheck::Allowed if !args_known => AllowCheck::Ask(format!(
            "`{name}` is only allowed when all its arguments are known before it runs"
        )),
        AllowCheck::NotListed | AllowCheck::Allowed | AllowCheck::Ask(_) => check,
    }
}

fn ask(sentence: &str) -> AllowCheck {
    AllowCheck::Ask(sentence.to_string())
}

fn find(args: &[String]) -> AllowCheck {
    let parts = find_parts(args);
    if !parts.commands.is_empty()
        || parts
            .own
            .iter()
            .any(|arg| matches!(*arg, "-exec" | "-execdir" | "-ok" | "-okdir"))
    {
        return ask("`find -exec` runs another command for every file it finds");
    }
    if parts
        .own
        .iter()
        .any(|arg| matches!(*arg, "-fprint" | "-fprint0" | "-fprintf" | "-fls"))
    {
        return ask("`find -fprint` writes a file");
    }
    AllowCheck::Allowed
}

fn sort(args: &[String]) -> AllowCheck {
    let options = options(args);
    if options
        .iter()
        .any(|arg| has_short(arg, 'o', "kStT") || is_long(arg, "output", 3))
    {
        return ask("`sort -o` writes a file");
    }
    if options
        .iter()
        .any(|arg| is_long(arg, "compress-program", 3))
    {
        return ask("`sort --compress-program` runs another program");
    }
    AllowCheck::Allowed
}

fn uniq(args: &[String]) -> AllowCheck {
    if positionals(args, &["-f", "-s", "-w"]).len() > 1 {
        return ask("`uniq INPUT OUTPUT` writes its second file");
    }
    AllowCheck::Allowed
}

fn tree(args: &[String]) -> AllowCheck {
    if options(args).iter().any(|arg| arg == "-o") {
        return ask("`tree -o` writes a file");
    }
    AllowCheck::Allowed
}

fn file(args: &[String]) -> AllowCheck {
    if options(args)
        .iter()
        .any(|arg| has_short(arg, 'C', "eFfmP") || is_long(arg, "compile", 4))
    {
        return ask("`file -C` writes a compiled magic file");
    }
    AllowCheck::Allowed
}

fn date(args: &[String]) -> AllowCheck {
    if options(args)
        .iter()
        .any(|arg| has_short(arg, 's', "dfr") || is_long(arg, "set", 2))
    {
        return ask("`date -s` sets the system clock");
    }
    AllowCheck::Allowed
}

fn rg(args: &[String]) -> AllowCheck {
    let options = options(args);
    if options
        .iter()
        .any(|arg| is_long(arg, "pre", 3) || is_long(arg, "hostname-bin", 12))
    {
        return ask("`rg --pre` runs another program for every file it searches");
    }
    AllowCheck::Allowed
}

/// Read-only git subcommands; `branch`, `remote` and `stash` only when listing.
fn git(args: &[String]) -> AllowCheck {
    let call = git::parse(args);
    let Some(subcommand) = call.subcommand else {
        let version = !args.is_empty() && args.iter().all(|arg| arg == "--version");
        return if version {
            AllowCheck::Allowed
        } else {
            AllowCheck::NotListed
        };
    };
    let args = call.args;
    let check = match subcommand {
        "status" | "rev-parse" | "blame" | "ls-files" | "ls-tree" | "describe" | "cat-file" => {
            AllowCheck::Allowed
        }
        "diff" | "log" | "show" | "shortlog" => {
            if options(args).iter().any(|arg| is_long(arg, "output", 3)) {
                ask("`git --output` writes a file")
            } else {
                AllowCheck::Allowed
            }
        }
        "grep" => {
            let pager = options(args)
                .iter()
                .any(|arg| has_short(arg, 'O', "efABC") || is_long(arg, "open-files-in-pager", 4));
            if pager {
                ask("`git grep -O` opens another program")
            } else {
                AllowCheck::Allowed
            }
        }
        "branch" => git_branch(args),
        "remote" => match args.first().map(String::as_str) {
            None | Some("-v" | "--verbose" | "get-url") => AllowCheck::Allowed,
            Some(_) => AllowCheck::NotListed,
        },
        "stash" => match args.first().map(String::as_str) {
            Some("list" | "show") => AllowCheck::Allowed,
            _ => AllowCheck::NotListed,
        },
        _ => AllowCheck::NotListed,
    };
    match (check, call.risky_option) {
        (AllowCheck::Allowed, Some(option)) => AllowCheck::Ask(format!(
            "`git {option}` can change which configuration and programs git uses"
        )),
        (check, _) => check,
    }
}

/// Long options of `git branch` that change branches.
const BRANCH_CHANGES: &[&str] = &[
    "delete",
    "move",
    "copy",
    "force",
    "set-upstream-to",
    "unset-upstream",
    "edit-description",
    "track",
    "no-track",
    "create-reflog",
    "recurse-submodules",
];

/// Long options of `git branch` whose value may follow as the next word.
const BRANCH_VALUES: &[&str] = &[
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--sort",
    "--format",
];

/// `git branch` is read-only when it lists: no changing option, and names only as
/// patterns after `--list`/`-l`.
fn git_branch(args: &[String]) -> AllowCheck {
    let changes = || ask("`git branch` with these arguments changes branches");
    let mut listing = false;
    let mut names = false;
    let mut iter = args.iter().peekable();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            names |= iter.peek().is_some();
            break;
        }
        if arg.starts_with("--") {
            if BRANCH_CHANGES.iter().any(|name| is_long(arg, name, 3)) {
                return changes();
            }
            listing |= arg == "--list";
            let value_follows = iter.peek().is_some_and(|next| !next.starts_with('-'));
            if BRANCH_VALUES.contains(&arg.as_str()) && value_follows {
                iter.next();
            }
        } else if arg.starts_with('-') && arg.len() > 1 {
            if arg.contains(['d', 'D', 'm', 'M', 'c', 'C', 'u', 'f', 't']) {
                return changes();
            }
            listing |= arg.contains('l');
        } else {
            names = true;
        }
    }
    if names && !listing {
        changes()
    } else {
        AllowCheck::Allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str) -> AllowCheck {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        builtin_allow(&words, true)
    }

    fn allowed(line: &str) -> bool {
        check(line) == AllowCheck::Allowed
    }

    #[test]
    fn plain_readers_are_allowed_with_any_arguments() {
        for line in [
            "ls -la",
            "cat a b",
            "grep -rn foo src",
            "wc -l",
            "echo hi",
            "head -n 5 x",
            "pwd",
        ] {
            assert!(allowed(line), "{line}");
        }
    }

    #[test]
    fn build_tools_are_not_listed() {
        for line in [
            "cargo test",
            "cargo check",
            "npm test",
            "make",
            "python3 x.py",
            "sed -n 1p x",
        ] {
            assert_eq!(check(line), AllowCheck::NotListed, "{line}");
        }
    }

    #[test]
    fn arguments_that_write_or_run_programs_make_listed_commands_ask() {
        for line in [
            "find . -exec grep x {} ;",
            "find . -fprint out",
            "sort -o out in",
            "sort -uo out in",
            "sort --output=out in",
            "uniq in out",
            "tree -o out",
            "file -C -m magic",
            "date -s 12:00",
            "rg --pre ./script x",
            "git diff --output=patch",
            "git -c core.pager=evil log",
            "git --git-dir=/elsewhere/.git status",
        ] {
            assert!(matches!(check(line), AllowCheck::Ask(_)), "{line}");
        }
    }

    #[test]
    fn read_only_git_subcommands_are_allowed() {
        for line in [
            "git status",
            "git -C sub status --short",
            "git diff --stat",
            "git log --oneline -5",
            "git show HEAD",
            "git rev-parse HEAD",
            "git blame src/lib.rs",
            "git ls-files",
            "git branch",
            "git branch -a -vv",
            "git branch --list feat*",
            "git branch --contains HEAD",
            "git remote -v",
            "git stash list",
            "git --version",
        ] {
            assert!(allowed(line), "{line}");
        }
    }

    #[test]
    fn git_commands_that_change_things_are_not_allowed() {
        for line in [
            "git branch new",
            "git branch -D old",
            "git branch --delete old",
            "git branch -m a b",
        ] {
            assert!(matches!(check(line), AllowCheck::Ask(_)), "{line}");
        }
        for line in [
            "git commit -m x",
            "git push",
            "git checkout .",
            "git remote add x y",
            "git stash",
            "git",
        ] {
            assert_eq!(check(line), AllowCheck::NotListed, "{line}");
        }
    }

    #[test]
    fn argument_sensitive_commands_ask_when_arguments_are_unknown() {
        let words: Vec<String> = ["find", ".", "$ACTION"].map(String::from).to_vec();
        assert!(matches!(builtin_allow(&words, false), AllowCheck::Ask(_)));
        let words: Vec<String> = ["cat", "$FILE"].map(String::from).to_vec();
        assert_eq!(builtin_allow(&words, false), AllowCheck::Allowed);
    }

    #[test]
    fn printing_the_environment_asks() {
        assert!(matches!(check("printenv"), AllowCheck::Ask(_)));
        assert!(matches!(check("printenv HOME"), AllowCheck::Ask(_)));
        assert!(matches!(check("set"), AllowCheck::Ask(_)));
        assert!(allowed("set -euo pipefail"));
    }
}
