//! Finding git's subcommand behind its global options (`git -C dir push` is a push).

/// A `git` invocation split at its subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GitCall<'a> {
    /// The first global option that changes which configuration or programs git uses
    /// (`-c core.pager=…`, `--git-dir`, `--exec-path`…).
    pub(crate) risky_option: Option<&'a str>,
    /// The subcommand (`push`), if any.
    pub(crate) subcommand: Option<&'a str>,
    /// The arguments after the subcommand.
    pub(crate) args: &'a [String],
}

/// Global options that take a separate value and do not change what git runs.
const VALUE_OPTIONS: &[&str] = &["-C", "--namespace", "--super-prefix", "--list-cmds"];

/// Global options that can make git run other programs or read other configuration.
const RISKY_OPTIONS: &[&str] = &[
    "-c",
    "--config-env",
    "--git-dir",
    "--work-tree",
    "--exec-path",
];

/// Splits the arguments of `git` (without the program itself).
pub(crate) fn parse(args: &[String]) -> GitCall<'_> {
    let mut risky_option = None;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') {
            return GitCall {
                risky_option,
                subcommand: Some(arg),
                args: &args[index + 1..],
            };
        }
        let (name, has_value) = match arg.split_once('=') {
            Some((name, _)) => (name, true),
            None => (arg.as_str(), false),
        };
        let risky = RISKY_OPTIONS.contains(&name);
        if risky {
            risky_option.get_or_insert(name);
        }
        let takes_value = (risky && name != "--exec-path") || VALUE_OPTIONS.contains(&name);
        index += if takes_value && !has_value { 2 } else { 1 };
    }
    GitCall {
        risky_option,
        subcommand: None,
        args: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(line: &str) -> (Option<String>, Option<String>, Vec<String>) {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let call = parse(&args);
        (
            call.risky_option.map(String::from),
            call.subcommand.map(String::from),
            call.args.to_vec(),
        )
    }

    #[test]
    fn global_options_with_values_are_skipped() {
        assert_eq!(
            call("-C dir --no-pager push -f"),
            (None, Some("push".into()), vec!["-f".into()])
        );
        assert_eq!(
            call("--namespace=x status"),
            (None, Some("status".into()), vec![])
        );
    }

    #[test]
    fn options_that_change_what_git_runs_are_reported() {
        assert_eq!(call("-c core.pager=evil log").0.as_deref(), Some("-c"));
        assert_eq!(call("-c core.pager=evil log").1.as_deref(), Some("log"));
        assert_eq!(
            call("--git-dir=/tmp/x status").0.as_deref(),
            Some("--git-dir")
        );
        assert_eq!(call("--exec-path status").1.as_deref(), Some("status"));
    }

    #[test]
    fn no_subcommand_is_fine() {
        assert_eq!(call("--version"), (None, None, vec![]));
    }
}
