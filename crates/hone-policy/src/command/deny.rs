//! The built-in deny list: commands refused in every mode, recognised from their parsed
//! words (flags in any order and form, programs by base name).

use super::args::{has_short, is_long, options};
use super::git;
use super::wrappers::find_parts;

/// Why a command that deletes recursively is denied.
pub(crate) const RECURSIVE_DELETION: &str = "recursive deletion";
/// Why code piped from `curl`/`wget` into a shell is denied.
pub(crate) const RUNS_DOWNLOADED_CODE: &str = "it runs code downloaded from the network";

/// Why `words` (the program's base name first) is denied, or `None`.
pub(crate) fn builtin_deny(words: &[String]) -> Option<&'static str> {
    let (name, args) = words.split_first()?;
    match name.as_str() {
        "rm" => removes_recursively(args).then_some(RECURSIVE_DELETION),
        "find" => find_parts(args)
            .own
            .contains(&"-delete")
            .then_some("`find -delete` deletes every file it matches"),
        "sudo" | "sudoedit" | "su" | "doas" | "pkexec" | "runuser" => {
            Some("it runs commands as another user")
        }
        "chmod" | "chown" | "chgrp" => Some("it changes file permissions or ownership"),
        "git" => git_denied(args),
        "npm" | "pnpm" | "yarn" | "cargo" => {
            publishes(name, args).then_some("it publishes a package to a public registry")
        }
        "dd" => args
            .iter()
            .any(|arg| arg.starts_with("of="))
            .then_some("`dd of=` writes raw data over a file or device"),
        "shutdown" | "reboot" | "halt" | "poweroff" => Some(SHUTS_DOWN),
        "systemctl" => args
            .iter()
            .any(|arg| matches!(arg.as_str(), "poweroff" | "reboot" | "halt" | "kexec"))
            .then_some(SHUTS_DOWN),
        "init" | "telinit" => args
            .iter()
            .any(|arg| arg == "0" || arg == "6")
            .then_some(SHUTS_DOWN),
        "mkfs" | "mke2fs" | "mkswap" | "fdisk" | "sfdisk" | "cfdisk" | "parted" | "wipefs" => {
            Some(FORMATS)
        }
        other if other.starts_with("mkfs.") => Some(FORMATS),
        _ => None,
    }
}

const SHUTS_DOWN: &str = "it shuts down or restarts the machine";
const FORMATS: &str = "it formats or repartitions a disk";

/// `-r`, `-R`, `--recursive` (or an abbreviation) anywhere before `--`; GNU `rm` also
/// reads options after file names. `--no-preserve-root` only matters with them, but has
/// no other use.
fn removes_recursively(args: &[String]) -> bool {
    options(args).iter().any(|arg| {
        has_short(arg, 'r', "")
            || has_short(arg, 'R', "")
            || is_long(arg, "recursive", 1)
            || is_long(arg, "no-preserve-root", 3)
    })
}

fn git_denied(args: &[String]) -> Option<&'static str> {
    let call = git::parse(args);
    let options = options(call.args);
    match call.subcommand? {
        "push" if force_pushes(call.args) => {
            Some("a force push can overwrite commits on the remote")
        }
        "push" if deletes_remote_branch(call.args) => {
            Some("`git push --delete` deletes branches or tags on the remote")
        }
        "reset"
            if options.iter().any(|arg| {
                is_long(arg, "hard", 2) || is_long(arg, "keep", 1) || is_long(arg, "merge", 1)
            }) =>
        {
            Some("`git reset --hard/--keep/--merge` discards uncommitted changes or commits")
        }
        "checkout" if checkout_discards(call.args) => {
            Some("`git checkout -- PATHS` discards uncommitted changes to those files")
        }
        "restore" if restore_discards(options) => {
            Some("`git restore` discards uncommitted changes to the working tree")
        }
        "worktree" if worktree_outside(call.args) => {
            Some("`git worktree add` outside the project writes files elsewhere")
        }
        "clean" => {
            let force = options
                .iter()
                .any(|arg| has_short(arg, 'f', "e") || is_long(arg, "force", 2));
            let dry_run = options
                .iter()
                .any(|arg| has_short(arg, 'n', "e") || is_long(arg, "dry-run", 2));
            (force && !dry_run)
                .then_some("`git clean -f` deletes untracked files that git cannot restore")
        }
        _ => None,
    }
}

/// `-f` (also in clusters), `--force`, `--force-with-lease`, `--mirror`, or a `+refspec`.
fn force_pushes(args: &[String]) -> bool {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            return iter.any(|refspec| refspec.starts_with('+'));
        }
        if matches!(
            arg.as_str(),
            "-o" | "--push-option" | "--repo" | "--receive-pack" | "--exec"
        ) {
            iter.next();
            continue;
        }
        let forces = has_short(arg, 'f', "o")
            || is_long(arg, "force", 3)
            || is_long(arg, "force-with-lease", 7)
            || is_long(arg, "mirror", 2)
            || arg.starts_with('+');
        if forces {
            return true;
        }
    }
    false
}

/// `--delete`/`-d` (also in clusters), or a refspec with an empty source (`:branch`).
fn deletes_remote_branch(args: &[String]) -> bool {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            return iter.any(|refspec| refspec.starts_with(':'));
        }
        if matches!(
            arg.as_str(),
            "-o" | "--push-option" | "--repo" | "--receive-pack" | "--exec"
        ) {
            iter.next();
            continue;
        }
        if has_short(arg, 'd', "o") || is_long(arg, "delete", 3) || arg.starts_with(':') {
            return true;
        }
    }
    false
}

/// `git checkout` that overwrites files: paths after `--`, `.` (or any path ending in `/.`)
/// as an argument, `-f`/`--force`, or `-p`… restores from the index.
fn checkout_discards(args: &[String]) -> bool {
    let mut after_dashes = false;
    for arg in args {
        if after_dashes {
            return true;
        }
        match arg.as_str() {
            "--" => after_dashes = true,
            "." | "./" | ":/" => return true,
            _ if arg.ends_with("/.") => return true,
            _ if has_short(arg, 'f', "bBt") || is_long(arg, "force", 2) => return true,
            _ if arg.starts_with("--pathspec-from-file") => return true,
            _ => {}
        }
    }
    false
}

/// `git restore` discards working-tree changes unless it only unstages (`--staged`
/// without `--worktree`).
fn restore_discards(options: &[String]) -> bool {
    let staged = options
        .iter()
        .any(|arg| has_short(arg, 'S', "sU") || is_long(arg, "staged", 2));
    let worktree = options
        .iter()
        .any(|arg| has_short(arg, 'W', "sU") || is_long(arg, "worktree", 1));
    !staged || worktree
}

/// `git worktree add PATH` with a path that leaves the project by its text: absolute,
/// `~`, or climbing out with `..`.
fn worktree_outside(args: &[String]) -> bool {
    let Some((action, rest)) = args.split_first() else {
        return false;
    };
    if action != "add" {
        return false;
    }
    let path = super::args::positionals(rest, &["-b", "-B", "--reason"])
        .into_iter()
        .next();
    path.is_some_and(|path| {
        path.starts_with('/')
            || path.starts_with('~')
            || std::path::Path::new(path)
                .components()
                .try_fold(0usize, |depth, component| match component {
                    std::path::Component::ParentDir => depth.checked_sub(1),
                    std::path::Component::Normal(_) => Some(depth + 1),
                    _ => Some(depth),
                })
                .is_none()
    })
}

/// `publish` as the subcommand (one of the first two words that are not options, so
/// `npm --registry URL publish` counts), without `--dry-run`.
fn publishes(name: &str, args: &[String]) -> bool {
    let publish = args
        .iter()
        .filter(|arg| !arg.starts_with('-') && !arg.starts_with('+'))
        .take(2)
        .any(|arg| arg == "publish");
    let dry_run = args
        .iter()
        .any(|arg| arg == "--dry-run" || (name == "cargo" && arg == "-n"));
    publish && !dry_run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(line: &str) -> bool {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        builtin_deny(&words).is_some()
    }

    #[test]
    fn recursive_rm_is_denied_in_every_flag_form() {
        for line in [
            "rm -rf x",
            "rm -fr x",
            "rm -r -f x",
            "rm -R x",
            "rm --recursive x",
            "rm --rec x",
            "rm x -rf",
            "rm -vrf x",
        ] {
            assert!(denied(line), "{line}");
        }
        for line in ["rm x", "rm -f x", "rm -- -rf", "rm -i x"] {
            assert!(!denied(line), "{line}");
        }
    }

    #[test]
    fn force_pushes_are_denied_however_written() {
        for line in [
            "git push -f",
            "git push --force origin main",
            "git push --force-with-lease",
            "git push -uf origin main",
            "git push origin +main",
            "git push origin -- +main",
            "git -C repo push --forc",
            "git push --mirror",
        ] {
            assert!(denied(line), "{line}");
        }
        for line in [
            "git push",
            "git push -u origin main",
            "git push -o ci.skip",
            "git push --follow-tags",
        ] {
            assert!(!denied(line), "{line}");
        }
    }

    #[test]
    fn git_clean_needs_force_to_be_denied() {
        assert!(denied("git clean -fd"));
        assert!(denied("git clean -df"));
        assert!(denied("git clean -d -f -x"));
        assert!(denied("git clean --force"));
        assert!(!denied("git clean -n -d"));
        assert!(!denied("git clean -fdn"));
        assert!(!denied("git clean -e f"));
    }

    #[test]
    fn git_reset_is_only_denied_when_it_discards() {
        assert!(denied("git reset --hard HEAD~1"));
        assert!(denied("git reset --har"));
        assert!(denied("git reset --keep HEAD~1"));
        assert!(denied("git reset --merge"));
        assert!(!denied("git reset --soft HEAD~1"));
        assert!(!denied("git reset file.rs"));
    }

    #[test]
    fn discarding_working_tree_changes_is_denied() {
        for line in [
            "git checkout -- src",
            "git checkout HEAD -- a.rs",
            "git checkout .",
            "git checkout -f main",
            "git checkout --force main",
            "git restore src",
            "git restore --worktree --staged x",
            "git restore -SW x",
        ] {
            assert!(denied(line), "{line}");
        }
        for line in [
            "git checkout main",
            "git checkout -b feature",
            "git restore --staged x",
            "git restore -S x",
        ] {
            assert!(!denied(line), "{line}");
        }
    }

    #[test]
    fn deleting_remote_branches_and_outside_worktrees_are_denied() {
        for line in [
            "git push --delete origin x",
            "git push -d origin x",
            "git push origin :branch",
            "git push origin -- :branch",
            "git worktree add ../x",
            "git worktree add -b b /tmp/x",
            "git worktree add ~/x",
        ] {
            assert!(denied(line), "{line}");
        }
        for line in [
            "git push origin main:main",
            "git worktree add wt/x",
            "git worktree list",
        ] {
            assert!(!denied(line), "{line}");
        }
    }

    #[test]
    fn publishing_is_denied_but_dry_runs_are_not() {
        assert!(denied("npm publish"));
        assert!(denied("npm --registry https://r publish"));
        assert!(denied("cargo +nightly publish"));
        assert!(!denied("cargo publish --dry-run"));
        assert!(!denied("cargo publish -n"));
        assert!(!denied("npm install"));
    }

    #[test]
    fn system_commands_are_denied() {
        for line in [
            "sudo ls",
            "su -",
            "doas x",
            "chmod +x a",
            "chown me a",
            "chgrp g a",
            "mkfs.ext4 /dev/sda1",
            "mkfs -t ext4 x",
            "dd if=a of=b",
            "shutdown -h now",
            "reboot",
            "systemctl reboot",
            "find . -name *.o -delete",
        ] {
            assert!(denied(line), "{line}");
        }
        assert!(!denied("dd if=a"));
        assert!(!denied("systemctl status"));
        assert!(!denied("find . -exec echo -delete ;"));
    }
}
