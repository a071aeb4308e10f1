//! The context of a command: where its output goes (redirections), what is on its input,
//! and which variables are set for it. The context can make an allowed command ask
//! (it writes a file, it sets `PATH`) or deny it (it writes to a device or into `/etc`).

use super::lexer::{Redirect, RedirectKind};
use super::parse::SimpleCommand;
use super::text::{normalise_absolute, shorten};

/// Upper-case variables that may be set without making an allowed command ask. Any other
/// upper-case name (`PATH`, `LD_PRELOAD`, `GIT_PAGER`, `HOME`…) can change which programs
/// run; names with lower-case letters are shell-local by convention and harmless.
const SAFE_VARIABLES: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "LINES",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "CARGO_TERM_COLOR",
    "CI",
];

/// Redirection targets that are not files.
const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
];

/// System directories that a redirection must never write into.
const SYSTEM_DIRECTORIES: &[&str] = &[
    "/etc", "/boot", "/sys", "/proc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
];

/// What a redirection writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OutputTarget {
    /// A file (or a target only known at run time).
    File(String),
    /// A device other than `/dev/null` and the standard streams.
    Device(String),
    /// A file in a system directory such as `/etc`.
    SystemDirectory(String),
}

impl OutputTarget {
    /// What `redirect` writes to; `None` when it writes nothing or only to a harmless device.
    pub(super) fn of(redirect: &Redirect) -> Option<OutputTarget> {
        let target = &redirect.target.text;
        match redirect.kind {
            RedirectKind::Write | RedirectKind::Append | RedirectKind::ReadWrite => {}
            RedirectKind::DuplicateOutput => {
                let descriptor = target.trim_end_matches('-');
                if descriptor.chars().all(|c| c.is_ascii_digit()) && !redirect.target.expanded {
                    return None;
                }
            }
            RedirectKind::Read
            | RedirectKind::DuplicateInput
            | RedirectKind::HereDocument
            | RedirectKind::HereString => {
                return None;
            }
        }
        if redirect.target.expanded || !target.starts_with('/') {
            return Some(OutputTarget::File(target.clone()));
        }
        let path = normalise_absolute(target);
        if HARMLESS_DEVICES.contains(&path.as_str()) || path.starts_with("/dev/fd/") {
            return None;
        }
        if path.starts_with("/dev/") {
            return Some(OutputTarget::Device(path));
        }
        let system = SYSTEM_DIRECTORIES
            .iter()
            .find(|dir| path == **dir || path.starts_with(&format!("{dir}/")));
        Some(match system {
            Some(dir) => OutputTarget::SystemDirectory((*dir).to_string()),
            None => OutputTarget::File(target.clone()),
        })
    }

    /// The path written to.
    pub(super) fn target(&self) -> &str {
        match self {
            OutputTarget::File(target)
            | OutputTarget::Device(target)
            | OutputTarget::SystemDirectory(target) => target,
        }
    }
}

/// What surrounds a command: variables set for it, where its output goes, what its input
/// is, and whether a wrapper adds arguments.
#[derive(Debug, Clone, Default)]
pub(super) struct Context {
    /// Variables assigned in front of the command or by `env`.
    pub(super) variables: Vec<String>,
    /// Where redirections send its output.
    pub(super) outputs: Vec<OutputTarget>,
    /// Literal text on its standard input: a here-document, a here-string, or the output
    /// of `echo` piped into it. A shell reading its input runs this text.
    pub(super) input: Option<String>,
    /// A wrapper appends arguments read from input (`xargs`).
    pub(super) extra_args: bool,
    /// Its standard input comes from the command before it in a pipeline.
    pub(super) piped: bool,
    /// It runs in a directory outside the project or only known when it runs
    /// (`env -C DIR`), as a phrase (``"it runs in `/tmp`, which is outside the project"``).
    pub(super) elsewhere: Option<String>,
    /// A redirection reads a file outside the project (`< ~/.ssh/id_rsa`), as a phrase.
    pub(super) reads_elsewhere: Option<String>,
}

impl Context {
    /// Why an otherwise allowed command must ask in this context.
    pub(super) fn hazard(&self, text: &str) -> Option<String> {
        if let Some(why) = self.elsewhere.as_ref().or(self.reads_elsewhere.as_ref()) {
            return Some(format!("`{}`: {why}", shorten(text)));
        }
        if let Some(output) = self
            .outputs
            .iter()
            .find(|output| matches!(output, OutputTarget::File(_)))
        {
            return Some(format!(
                "`{}` writes to `{}`",
                shorten(text),
                output.target()
            ));
        }
        let unsafe_variable = self.variables.iter().find(|name| {
            !SAFE_VARIABLES.contains(&name.as_str())
                && !name.starts_with("LC_")
                && !name.contains(|c: char| c.is_ascii_lowercase())
        })?;
        Some(format!(
            "`{}` sets `{unsafe_variable}`, which can change which programs run",
            shorten(text)
        ))
    }

    /// Why a command is denied because of where its output goes.
    pub(super) fn denied_output(&self) -> Option<String> {
        self.outputs.iter().find_map(|output| match output {
            OutputTarget::Device(device) => Some(format!("it writes to the device `{device}`")),
            OutputTarget::SystemDirectory(dir) => {
                Some(format!("it writes into the system directory `{dir}`"))
            }
            OutputTarget::File(_) => None,
        })
    }

    /// Applies a command's own redirections: what they write, and what they feed it.
    pub(super) fn redirect(&mut self, redirects: &[Redirect]) {
        for redirect in redirects {
            self.outputs.extend(OutputTarget::of(redirect));
            match redirect.kind {
                RedirectKind::HereDocument => {
                    self.input = Some(redirect.body.clone());
                    self.piped = false;
                }
                RedirectKind::HereString if !redirect.target.expanded => {
                    self.input = Some(format!("{}\n", redirect.target.text));
                    self.piped = false;
                }
                RedirectKind::HereString
                | RedirectKind::Read
                | RedirectKind::ReadWrite
                | RedirectKind::DuplicateInput => {
                    self.input = None;
                    self.piped = false;
                }
                RedirectKind::Write | RedirectKind::Append | RedirectKind::DuplicateOutput => {}
            }
        }
    }
}

/// What `command` prints when that is known before it runs: `echo` and `printf` with
/// literal arguments, `cat` of a here-document or here-string. Escapes `\n` and `\t` are
/// decoded as `echo -e` and `printf` would.
pub(super) fn literal_output(command: &SimpleCommand) -> Option<String> {
    let (program, args) = command.words.split_first()?;
    if program.expanded || args.iter().any(|arg| arg.expanded) {
        return None;
    }
    let texts = args.iter().map(|arg| arg.text.as_str());
    let printed: Vec<&str> = match program.text.rsplit('/').next()? {
        "echo" => texts.skip_while(|arg| is_echo_option(arg)).collect(),
        "printf" => texts.collect(),
        "cat" if args.is_empty() => {
            let mut context = Context::default();
            context.redirect(&command.redirects);
            return context.input;
        }
        _ => return None,
    };
    Some(printed.join(" ").replace("\\n", "\n").replace("\\t", "\t"))
}

fn is_echo_option(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-') && arg[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
}

#[cfg(test)]
mod tests {
    use super::super::parse::{Stage, parse};
    use super::*;

    fn first_command(source: &str) -> SimpleCommand {
        let mut parsed = parse(source);
        match parsed.script.pipelines.remove(0).stages.remove(0) {
            Stage::Simple(command) => command,
            Stage::Group { .. } => panic!("not a simple command: {source}"),
        }
    }

    fn outputs(source: &str) -> Vec<OutputTarget> {
        first_command(source)
            .redirects
            .iter()
            .filter_map(OutputTarget::of)
            .collect()
    }

    #[test]
    fn standard_streams_and_descriptors_are_not_written_files() {
        assert_eq!(
            outputs("ls 2>&1 >/dev/null 2>/dev/stderr >&2 3>&- </etc/passwd"),
            []
        );
    }

    #[test]
    fn files_devices_and_system_directories_are_told_apart() {
        assert_eq!(
            outputs("ls > out >> /tmp/log >&file 2> /dev/sda <> /etc/x > $F"),
            [
                OutputTarget::File("out".into()),
                OutputTarget::File("/tmp/log".into()),
                OutputTarget::File("file".into()),
                OutputTarget::Device("/dev/sda".into()),
                OutputTarget::SystemDirectory("/etc".into()),
                OutputTarget::File("$F".into()),
            ]
        );
        assert_eq!(
            outputs("ls > /usr/../etc/x"),
            [OutputTarget::SystemDirectory("/etc".into())]
        );
    }

    #[test]
    fn output_writing_a_file_or_setting_path_makes_a_command_ask() {
        let mut context = Context::default();
        assert_eq!(context.hazard("ls"), None);
        context.variables = vec!["LC_ALL".into(), "TZ".into(), "lower".into()];
        assert_eq!(context.hazard("ls"), None);
        context.variables.push("PATH".into());
        assert_eq!(
            context.hazard("ls").as_deref(),
            Some("`ls` sets `PATH`, which can change which programs run")
        );
        context.outputs.push(OutputTarget::File("out".into()));
        assert_eq!(
            context.hazard("ls").as_deref(),
            Some("`ls` writes to `out`")
        );
        assert_eq!(context.denied_output(), None);
        context
            .outputs
            .push(OutputTarget::SystemDirectory("/etc".into()));
        assert!(
            context
                .denied_output()
                .is_some_and(|why| why.contains("`/etc`"))
        );
    }

    #[test]
    fn here_documents_and_here_strings_become_input_and_files_hide_it() {
        let mut context = Context::default();
        context.redirect(&first_command("sh <<'EOF'\nls\nEOF\n").redirects);
        assert_eq!(context.input.as_deref(), Some("ls\n"));
        context.redirect(&first_command("sh <<< 'pwd'").redirects);
        assert_eq!(context.input.as_deref(), Some("pwd\n"));
        context.redirect(&first_command("sh < script.sh").redirects);
        assert_eq!(context.input, None);
    }

    #[test]
    fn literal_output_is_known_for_echo_printf_and_cat_of_a_here_document() {
        let output = |source: &str| literal_output(&first_command(source));
        assert_eq!(output("echo -n rm -rf x").as_deref(), Some("rm -rf x"));
        assert_eq!(output(r"printf 'a\nb'").as_deref(), Some("a\nb"));
        assert_eq!(output("cat <<EOF\nls\nEOF\n").as_deref(), Some("ls\n"));
        assert_eq!(output("echo $X"), None);
        assert_eq!(output("cat file"), None);
        assert_eq!(output("ls"), None);
    }
}
