//! Programs that run other programs: wrappers (`env`, `timeout`, `xargs`…), shells and
//! interpreters, and `find -exec`. Each is taken apart so that the command it runs is
//! classified in its place.

use std::ops::Range;

mod env;

/// What a wrapper runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unwrapped {
    /// The program is not a wrapper.
    NotWrapper,
    /// It runs the command that starts at `start`.
    Command {
        /// Index of the inner program.
        start: usize,
        /// Variables the wrapper sets for it (`env NAME=value`).
        assignments: Vec<String>,
        /// The wrapper appends arguments read from its input (`xargs`).
        extra_args: bool,
        /// The directory the wrapper changes into first (`env -C DIR`).
        directory: Option<String>,
    },
    /// It runs `text` as a shell script (`watch`, `env -S`), made of the words in `words`.
    Script {
        /// The script.
        text: String,
        /// The words the script was taken from.
        words: Range<usize>,
    },
    /// It runs no other command (`env` printing the environment, `command -v`).
    Nothing,
    /// It runs something hone cannot check: an unknown option of a wrapper, or a program
    /// that runs commands in a way hone does not take apart (`strace CMD`, `chroot DIR CMD`).
    /// The sentence says why.
    Unchecked(String),
}

/// Programs that run another command given in their arguments, which hone does not take
/// apart: whatever they run is only known to them.
const UNCHECKED_WRAPPERS: &[&str] = &[
    "strace",
    "ltrace",
    "gdb",
    "valgrind",
    "chroot",
    "unshare",
    "nsenter",
    "flock",
    "ionice",
    "taskset",
    "chrt",
    "setarch",
    "linux32",
    "linux64",
    "prlimit",
    "systemd-run",
    "script",
    "parallel",
    "firejail",
    "bwrap",
    "fakeroot",
    "proot",
    "unbuffer",
    "rlwrap",
    "faketime",
    "torsocks",
    "proxychains",
    "proxychains4",
    "xvfb-run",
    "dbus-run-session",
    "sg",
    "numactl",
    "cpulimit",
    "at",
    "batch",
    "entr",
    "expect",
];

/// How a shell was asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShellRun {
    /// `-c SCRIPT`: the script is the word at this index.
    Script(usize),
    /// `-c` without a script.
    MissingScript,
    /// A script file, the word at this index.
    File(usize),
    /// The program is read from standard input.
    Input,
}

/// Shells whose `-c` script is parsed and classified.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh",
];

/// Interpreters that run a program read from their input unless given code or a file.
const INTERPRETERS: &[&str] = &["perl", "ruby", "node", "nodejs", "php"];

/// Whether `name` is a shell.
pub(crate) fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name) || name.starts_with("python")
}

/// Whether `name` runs its arguments as code: shells, interpreters, `eval`, `source`.
pub(crate) fn runs_arguments_as_code(name: &str) -> bool {
    is_shell(name) || is_interpreter(name) || matches!(name, "eval" | "source" | ".")
}

/// Takes a wrapper apart; `words[0]` is the program's base name.
pub(crate) fn unwrap(words: &[String]) -> Unwrapped {
    let Some(name) = words.first() else {
        return Unwrapped::NotWrapper;
    };
    let after_options = |value_options: &[&str], value_prefixes: &[&str]| {
        skip_options(words, 1, value_options, value_prefixes)
    };
    let start = match name.as_str() {
        "env" => return env::env(words),
        "xargs" => {
            let start = after_options(
                &[
                    "-a",
                    "-d",
                    "-E",
                    "-I",
                    "-L",
                    "-n",
                    "-P",
                    "-s",
                    "--arg-file",
                    "--delimiter",
                ],
                &[
                    "-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "-e", "-i", "-l",
                ],
            );
            return inner(words, start, Vec::new(), true);
        }
        "watch" => return watch(words),
        "command"
            if words
                .iter()
                .skip(1)
                .take_while(|w| w.starts_with('-'))
                .any(|w| w.contains(['v', 'V'])) =>
        {
            return Unwrapped::Nothing;
        }
        "timeout" => {
            let duration = after_options(&["-s", "-k", "--signal", "--kill-after"], &["-s", "-k"]);
            duration + 1
        }
        "nice" => after_options(&["-n", "--adjustment"], &["-n"]),
        "time" => after_options(&["-f", "-o", "--format", "--output"], &["-f", "-o"]),
        "stdbuf" => after_options(
            &["-i", "-o", "-e", "--input", "--output", "--error"],
            &["-i", "-o", "-e"],
        ),
        "exec" => after_options(&["-a"], &[]),
        "nohup" | "setsid" | "command" | "builtin" => after_options(&[], &[]),
        "busybox" if words.get(1).is_some_and(|applet| !applet.starts_with('-')) => 1,
        unchecked if UNCHECKED_WRAPPERS.contains(&unchecked) && words.len() > 1 => {
            return Unwrapped::Unchecked(format!(
                "`{unchecked}` runs commands that hone cannot check"
            ));
        }
        _ => return Unwrapped::NotWrapper,
    };
    inner(words, start, Vec::new(), false)
}

fn inner(words: &[String], start: usize, assignments: Vec<String>, extra_args: bool) -> Unwrapped {
    if start < words.len() {
        Unwrapped::Command {
            start,
            assignments,
            extra_args,
            directory: None,
        }
    } else {
        Unwrapped::Nothing
    }
}

/// Index of the first word after the options starting at `index`. Options in
/// `value_options` take the next word as their value; an option starting with one of
/// `value_prefixes` and longer than it carries its value attached (`-n5`, `--signal=9`).
fn skip_options(
    words: &[String],
    mut index: usize,
    value_options: &[&str],
    value_prefixes: &[&str],
) -> usize {
    while let Some(word) = words.get(index) {
        if word == "--" {
            return index + 1;
        }
        if !word.starts_with('-') || word == "-" {
            return index;
        }
        let attached = word.contains('=')
            || value_prefixes
                .iter()
                .any(|prefix| word.starts_with(prefix) && word.len() > prefix.len());
        index += if value_options.contains(&word.as_str()) && !attached {
            2
        } else {
            1
        };
    }
    index
}

/// `watch` passes its arguments, joined, to `sh -c` unless given `-x`.
fn watch(words: &[String]) -> Unwrapped {
    let exec = words
        .iter()
        .skip(1)
        .take_while(|word| word.starts_with('-'))
        .any(|word| word == "-x" || word == "--exec");
    let start = skip_options(words, 1, &["-n", "--interval"], &["-n"]);
    if exec || start >= words.len() {
        return inner(words, start, Vec::new(), false);
    }
    Unwrapped::Script {
        text: words[start..].join(" "),
        words: start..words.len(),
    }
}

/// How a shell (`words[0]`) was asked to run.
pub(crate) fn shell_run(words: &[String]) -> ShellRun {
    let mut script_flag = false;
    let mut input_flag = false;
    let mut index = 1;
    while let Some(word) = words.get(index) {
        match word.as_str() {
            "--" | "-" => {
                index += 1;
                break;
            }
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => index += 2,
            _ if word.starts_with("--") => index += 1,
            _ if word.len() > 1 && (word.starts_with('-') || word.starts_with('+')) => {
                script_flag |= word.starts_with('-') && word.contains('c');
                input_flag |= word.starts_with('-') && word.contains('s');
                index += 1;
            }
            _ => break,
        }
    }
    match (script_flag, index < words.len()) {
        (true, true) => ShellRun::Script(index),
        (true, false) => ShellRun::MissingScript,
        // With `-s` the remaining words are arguments for the script read from input.
        (false, true) if !input_flag => ShellRun::File(index),
        (false, _) => ShellRun::Input,
    }
}

/// Whether the program (`words[0]`, a base name) runs code read from its standard input:
/// a shell or interpreter without a script, code argument or file (`sh`, `python3 -`).
pub(crate) fn runs_code_from_input(words: &[String]) -> bool {
    let Some(name) = words.first() else {
        return false;
    };
    if is_shell(name) {
        return match shell_run(words) {
            ShellRun::Input => true,
            ShellRun::File(index) => words[index] == "/dev/stdin",
            ShellRun::Script(_) | ShellRun::MissingScript => false,
        };
    }
    if !is_interpreter(name) {
        return false;
    }
    let mut args = words.iter().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-" | "/dev/stdin" => return true,
            "-W" | "-X" => {
                args.next();
            }
            "--eval" | "--print" => return false,
            _ if arg.starts_with("--") => {}
            _ if arg.starts_with('-') => {
                if arg.contains(['c', 'e', 'E', 'm', 'p', 'r']) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The parts of a `find` command line (without `find` itself).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FindParts<'a> {
    /// Arguments that belong to `find`.
    pub(crate) own: Vec<&'a str>,
    /// Ranges of the commands run by `-exec`, `-execdir`, `-ok` and `-okdir`.
    pub(crate) commands: Vec<Range<usize>>,
}

/// Splits the arguments of `find` into its own and the commands it runs.
pub(crate) fn find_parts(args: &[String]) -> FindParts<'_> {
    let mut parts = FindParts::default();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            parts.own.push(arg);
            let start = index + 1;
            let mut end = start;
            while let Some(word) = args.get(end) {
                let terminates =
                    word == ";" || (word == "+" && end > start && args[end - 1] == "{}");
                if terminates {
                    break;
                }
                end += 1;
            }
            if end > start {
                parts.commands.push(start..end);
            }
            index = end + 1;
        } else {
            parts.own.push(arg);
            index += 1;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn inner_program(line: &str) -> Option<String> {
        let words = words(line);
        match unwrap(&words) {
            Unwrapped::Command { start, .. } => Some(words[start].clone()),
            Unwrapped::NotWrapper
            | Unwrapped::Script { .. }
            | Unwrapped::Nothing
            | Unwrapped::Unchecked(_) => None,
        }
    }

    #[test]
    fn wrappers_reveal_the_command_they_run() {
        assert_eq!(
            inner_program("env -i FOO=1 rm -rf x").as_deref(),
            Some("rm")
        );
        assert_eq!(inner_program("env -u HOME -- rm").as_deref(), Some("rm"));
        assert_eq!(
            inner_program("timeout -s 9 5 sudo ls").as_deref(),
            Some("sudo")
        );
        assert_eq!(
            inner_program("timeout --signal=9 5s ls").as_deref(),
            Some("ls")
        );
        assert_eq!(inner_program("nice -n 5 rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("nice -10 rm").as_deref(), Some("rm"));
        assert_eq!(
            inner_program("xargs -0 -n 1 -I{} rm -rf {}").as_deref(),
            Some("rm")
        );
        assert_eq!(inner_program("nohup rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("time -p rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("command -p rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("exec -a name rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("busybox rm -rf x").as_deref(), Some("rm"));
        assert_eq!(inner_program("stdbuf -o0 rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("watch -x rm").as_deref(), Some("rm"));
        assert_eq!(inner_program("ls -la"), None);
    }

    #[test]
    fn env_records_the_variables_it_sets() {
        let words = words("env PATH=/tmp FOO=1 ls");
        assert_eq!(
            unwrap(&words),
            Unwrapped::Command {
                start: 3,
                assignments: vec!["PATH".into(), "FOO".into()],
                extra_args: false,
                directory: None,
            }
        );
    }

    #[test]
    fn wrappers_without_a_command_run_nothing_else() {
        for line in [
            "env",
            "env -i FOO=1",
            "nice",
            "xargs",
            "xargs -0",
            "command -v rm",
            "exec",
        ] {
            assert_eq!(unwrap(&words(line)), Unwrapped::Nothing, "{line}");
        }
    }

    #[test]
    fn watch_and_env_split_string_run_scripts() {
        assert_eq!(
            unwrap(&words("watch -n 1 rm -rf x")),
            Unwrapped::Script {
                text: "rm -rf x".into(),
                words: 3..6,
            }
        );
        let split = vec!["env".to_string(), "-S".to_string(), "rm -rf /".to_string()];
        assert!(matches!(unwrap(&split), Unwrapped::Script { text, .. } if text == "env rm -rf /"));
    }

    #[test]
    fn env_reads_short_option_clusters_and_long_options_like_gnu_env() {
        let script =
            |words: &[&str]| match unwrap(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
            {
                Unwrapped::Script { text, .. } => Some(text),
                _ => None,
            };
        assert_eq!(
            script(&["env", "-iSrm -rf ../x"]).as_deref(),
            Some("env rm -rf ../x")
        );
        assert_eq!(
            script(&["env", "-i", "-S", "rm x", "y"]).as_deref(),
            Some("env rm x y")
        );
        assert_eq!(
            script(&["env", "-uHOME", "-S", "ls"]).as_deref(),
            Some("env ls")
        );
        assert_eq!(
            script(&["env", "--split-str=rm x"]).as_deref(),
            Some("env rm x")
        );
        assert_eq!(inner_program("env -iu HOME rm").as_deref(), Some("rm"));
        assert_eq!(
            inner_program("env --unset HOME --ignore-env rm").as_deref(),
            Some("rm")
        );
        let chdir = words("env -C /tmp cat x");
        assert!(matches!(
            unwrap(&chdir),
            Unwrapped::Command { start: 3, directory: Some(dir), .. } if dir == "/tmp"
        ));
        assert!(matches!(
            unwrap(&words("env -Z rm")),
            Unwrapped::Unchecked(_)
        ));
        assert!(matches!(
            unwrap(&words("env --frobnicate rm")),
            Unwrapped::Unchecked(_)
        ));
        assert!(matches!(
            unwrap(&words("strace rm -rf x")),
            Unwrapped::Unchecked(_)
        ));
    }

    #[test]
    fn shells_are_read_like_the_shell_reads_its_arguments() {
        assert_eq!(shell_run(&words("bash -c x")), ShellRun::Script(2));
        assert_eq!(shell_run(&words("bash -lc x")), ShellRun::Script(2));
        assert_eq!(
            shell_run(&words("bash -o pipefail -e -c x")),
            ShellRun::Script(5)
        );
        assert_eq!(shell_run(&words("bash -c")), ShellRun::MissingScript);
        assert_eq!(shell_run(&words("sh script.sh")), ShellRun::File(1));
        assert_eq!(shell_run(&words("sh -s")), ShellRun::Input);
        assert_eq!(shell_run(&words("zsh")), ShellRun::Input);
    }

    #[test]
    fn code_from_input_needs_no_script_and_no_inline_code() {
        assert!(runs_code_from_input(&words("sh")));
        assert!(runs_code_from_input(&words("bash -s -- arg")));
        assert!(runs_code_from_input(&words("python3")));
        assert!(runs_code_from_input(&words("python3 -")));
        assert!(runs_code_from_input(&words("perl -w")));
        assert!(!runs_code_from_input(&words("python3 -m json.tool")));
        assert!(!runs_code_from_input(&words("python -c print(1)")));
        assert!(!runs_code_from_input(&words("node script.js")));
        assert!(!runs_code_from_input(&words("sh -c ls")));
        assert!(!runs_code_from_input(&words("grep x")));
    }

    #[test]
    fn find_separates_its_own_arguments_from_the_commands_it_runs() {
        let args = words(". -name *.o -exec rm -rf {} ; -print -execdir ls {} + -delete");
        let parts = find_parts(&args);
        assert_eq!(parts.commands, [4..7, 10..12]);
        assert!(parts.own.contains(&"-delete"));
        assert!(!parts.own.contains(&"rm"));
    }
}
