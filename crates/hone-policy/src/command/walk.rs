//! Walks a parsed command line and classifies every simple command in it: the ones
//! written out, the ones inside substitutions, `bash -c` scripts, `eval`, `find -exec`,
//! and the ones behind wrappers such as `env`, `timeout` and `xargs`.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::CommandClass;
use super::allow::{AllowCheck, builtin_allow};
use super::analysis::{Analysis, Leaf, Traits};
use super::context::{Context, OutputTarget, literal_output};
use super::deny::{RUNS_DOWNLOADED_CODE, builtin_deny};
use super::lexer::Word;
use super::parse::{Pipeline, Script, SimpleCommand, Stage, parse};
use super::rules::{CommandWords, RuleSet};
use super::text::{display, expand_braces, quote, shorten};
use super::wrappers::{self, ShellRun, Unwrapped};
use crate::PathGuard;

mod places;

/// How many levels of nested scripts (substitutions, `bash -c`, `eval`, `find -exec`) are
/// analysed. A command nested deeper is denied: it cannot be checked, and no honest
/// command needs that many levels.
const MAX_DEPTH: usize = 12;

/// How many values a variable may stand for before its uses count as unknown.
const MAX_VALUES: usize = 64;

/// Analyses `command` against the built-in lists and `rules`; paths are judged against the
/// project of `guard` when given, else by their text alone.
pub(crate) fn analyse(rules: &RuleSet, guard: Option<&PathGuard>, command: &str) -> Analysis {
    let mut walker = Walker {
        rules,
        guard,
        values: HashMap::new(),
        assigned: HashSet::new(),
        analysis: Analysis::default(),
    };
    walker.source(command, 0, &Context::default());
    walker.analysis
}

/// One argument after expansion.
#[derive(Debug, Clone)]
struct Arg {
    text: String,
    /// The text is what runs (no `$…` expansion in it).
    known: bool,
    /// A substitution in it downloads something.
    downloads: bool,
}

/// The verdict on one command's words, before its context is applied.
enum WordsVerdict {
    Allow(String),
    /// `unchecked`: what it runs is hidden from the policy (see [`Leaf::unchecked`]).
    Ask {
        reason: String,
        grantable: bool,
        unchecked: bool,
    },
    Deny(String),
}

impl WordsVerdict {
    /// An ask for something the policy cannot see: never granted by a prefix, and not run
    /// by full-auto outside the sandbox.
    fn unchecked(reason: String) -> Self {
        WordsVerdict::Ask {
            reason,
            grantable: false,
            unchecked: true,
        }
    }
}

struct Walker<'r> {
    rules: &'r RuleSet,
    guard: Option<&'r PathGuard>,
    /// Values of variables assigned literally earlier in the line, or listed by `for`.
    values: HashMap<String, Vec<String>>,
    /// Variables assigned (or possibly set by a command) so far in the line.
    assigned: HashSet<String>,
    analysis: Analysis,
}

impl Walker<'_> {
    fn problem(&mut self, text: String) {
        if !self.analysis.problems.contains(&text) {
            self.analysis.problems.push(text);
        }
    }

    fn source(&mut self, source: &str, depth: usize, context: &Context) {
        if depth > MAX_DEPTH {
            self.analysis.too_deep = true;
            return;
        }
        let parsed = parse(source);
        for problem in parsed.problems {
            self.problem(problem);
        }
        self.script(&parsed.script, depth, context);
    }

    fn script(&mut self, script: &Script, depth: usize, context: &Context) {
        for pipeline in &script.pipelines {
            self.pipeline(pipeline, depth, context);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, depth: usize, context: &Context) {
        let mut stages = Vec::new();
        let mut piped = None;
        for (index, stage) in pipeline.stages.iter().enumerate() {
            let start = self.analysis.leaves.len();
            let mut context = context.clone();
            if index > 0 {
                context.input = piped.take();
                context.piped = true;
            }
            match stage {
                Stage::Simple(command) => {
                    self.simple(command, depth, &context);
                    piped = literal_output(command);
                }
                Stage::Group { body, redirects } => {
                    for redirect in redirects {
                        self.substitutions(&redirect.target, depth);
                    }
                    self.redirect(&mut context, redirects);
                    self.script(body, depth, &context);
                }
            }
            stages.push(start..self.analysis.leaves.len());
        }
        self.deny_downloads_run_as_code(&stages);
    }

    /// `curl … | sh`: a stage after one that downloads runs its input as code.
    fn deny_downloads_run_as_code(&mut self, stages: &[Range<usize>]) {
        let mut download: Option<String> = None;
        for stage in stages {
            if let Some(source) = &download {
                for leaf in &mut self.analysis.leaves[stage.clone()] {
                    if leaf.traits.runs_input_as_code && leaf.class != CommandClass::Deny {
                        leaf.class = CommandClass::Deny;
                        leaf.grantable = false;
                        leaf.reason = format!(
                            "`{} | {}` is denied: {RUNS_DOWNLOADED_CODE}",
                            shorten(source),
                            shorten(&leaf.text)
                        );
                    }
                }
            }
            if download.is_none() {
                download = self.analysis.leaves[stage.clone()]
                    .iter()
                    .find(|leaf| leaf.traits.downloads)
                    .map(|leaf| leaf.text.clone());
            }
        }
    }

    /// Classifies the substitutions inside `word`; returns whether one of them downloads.
    fn substitutions(&mut self, word: &Word, depth: usize) -> bool {
        let start = self.analysis.leaves.len();
        for substitution in &word.substitutions {
            self.source(substitution, depth + 1, &Context::default());
        }
        self.analysis.leaves[start..]
            .iter()
            .any(|leaf| leaf.traits.downloads)
    }

    fn simple(&mut self, command: &SimpleCommand, depth: usize, context: &Context) {
        let mut context = context.clone();
        for word in &command.assignments {
            self.substitutions(word, depth);
            context
                .variables
                .extend(word.assigned_name().map(String::from));
        }
        let mut args = Vec::new();
        for word in &command.words {
            let downloads = self.substitutions(word, depth);
            let texts = if word.braces {
                expand_braces(&word.text)
            } else {
                vec![word.text.clone()]
            };
            args.extend(texts.into_iter().map(|text| Arg {
                text,
                known: !word.expanded,
                downloads,
            }));
        }
        for redirect in &command.redirects {
            self.substitutions(&redirect.target, depth);
        }
        self.redirect(&mut context, &command.redirects);
        if command.assignments.is_empty()
            && command.words.is_empty()
            && command.redirects.is_empty()
        {
            return;
        }
        self.analysis.commands += 1;
        if args.is_empty() {
            self.remember_assignments(&command.assignments);
            // Bare assignments and redirections: `PATH=.` changes what later commands run,
            // `> file` truncates a file.
            let assignments = command
                .assignments
                .iter()
                .map(|word| quote(&word.text, !word.expanded));
            let redirections = command
                .redirects
                .iter()
                .filter_map(OutputTarget::of)
                .map(|output| format!("> {}", output.target()));
            let text = assignments
                .chain(redirections)
                .collect::<Vec<_>>()
                .join(" ");
            if context.hazard(&text).is_some() || context.denied_output().is_some() {
                // It runs nothing itself; only what it sets or writes makes it ask or deny.
                let verdict = WordsVerdict::Allow(format!("`{text}` runs no command"));
                self.push(
                    CommandWords::new(Vec::new()),
                    text,
                    &context,
                    verdict,
                    Traits::default(),
                );
            }
            return;
        }
        if !matches!(args[0].text.as_str(), "for" | "select") {
            self.forget_named_variables(&args[1..]);
        }
        self.command(&args, &context, depth);
    }

    /// Classifies a command, first taking apart the wrappers in front of it.
    fn command(&mut self, args: &[Arg], context: &Context, depth: usize) {
        if depth > MAX_DEPTH {
            self.analysis.too_deep = true;
            return;
        }
        let mut args = args;
        let mut context = context.clone();
        loop {
            let Some(program) = args.first() else {
                return;
            };
            let text = args
                .iter()
                .map(|arg| quote(&arg.text, arg.known))
                .collect::<Vec<_>>()
                .join(" ");
            if !program.known {
                let reason = format!(
                    "the program `{}` is only known when the command runs",
                    shorten(&program.text)
                );
                let verdict = WordsVerdict::unchecked(reason);
                self.push(
                    CommandWords::new(vec![program.text.clone()]),
                    text,
                    &context,
                    verdict,
                    Traits::default(),
                );
                return;
            }
            let words = CommandWords::new(args.iter().map(|arg| arg.text.clone()).collect());
            if let Some(verdict) = self.denial(args, &words, &text) {
                self.push(words, text, &context, verdict, Traits::default());
                return;
            }
            match wrappers::unwrap(words.words()) {
                Unwrapped::Command {
                    start,
                    assignments,
                    extra_args,
                    directory,
                } => {
                    context.variables.extend(assignments);
                    context.extra_args |= extra_args;
                    if let Some(directory) = directory {
                        self.change_directory(&mut context, &args[..start], &directory);
                    }
                    args = &args[start..];
                }
                Unwrapped::Script {
                    text: script,
                    words: range,
                } => {
                    self.script_text(&args[range], &script, &words, &context, depth);
                    return;
                }
                Unwrapped::Nothing => {
                    let verdict = if words.program() == "env" {
                        WordsVerdict::Ask {
                            reason: format!(
                                "`{}` prints the environment, which can hold secrets",
                                shorten(&text)
                            ),
                            grantable: true,
                            unchecked: false,
                        }
                    } else {
                        WordsVerdict::Allow(format!("`{}` runs no other command", shorten(&text)))
                    };
                    self.push(words, text, &context, verdict, Traits::default());
                    return;
                }
                Unwrapped::Unchecked(reason) => {
                    let verdict = WordsVerdict::unchecked(reason);
                    self.push(words, text, &context, verdict, Traits::default());
                    return;
                }
                Unwrapped::NotWrapper => {
                    self.program(args, words, text, &context, depth);
                    return;
                }
            }
        }
    }

    /// Deny rules and the built-in deny list, applied at every level of wrapping.
    fn denial(&self, args: &[Arg], words: &CommandWords, text: &str) -> Option<WordsVerdict> {
        let text = shorten(text);
        if let Some(rule) = self.rules.denying(words) {
            return Some(WordsVerdict::Deny(format!(
                "`{text}` is denied by your rule `{rule}`"
            )));
        }
        if let Some(why) = builtin_deny(words.words()) {
            return Some(WordsVerdict::Deny(format!("`{text}` is denied: {why}")));
        }
        let runs_download = wrappers::runs_arguments_as_code(words.program())
            && args.iter().skip(1).any(|arg| arg.downloads);
        runs_download
            .then(|| WordsVerdict::Deny(format!("`{text}` is denied: {RUNS_DOWNLOADED_CODE}")))
    }

    /// A program that is not a wrapper: shells, `eval`, `find` and aliases contain more
    /// commands; everything else is classified by its words.
    fn program(
        &mut self,
        args: &[Arg],
        words: CommandWords,
        text: String,
        context: &Context,
        depth: usize,
    ) {
        let name = words.program().to_string();
        match name.as_str() {
            shell if wrappers::is_shell(shell) => match wrappers::shell_run(words.words()) {
                ShellRun::Script(index) => {
                    self.script_text(
                        &args[index..=index],
                        &args[index].text,
                        &words,
                        context,
                        depth,
                    );
                    return;
                }
                ShellRun::MissingScript => {
                    self.problem(format!("`{name} -c` is missing its script"))
                }
                ShellRun::Input => {
                    if let Some(input) = &context.input {
                        // `bash <<'EOF'`, `echo 'ls' | sh`: the script is known, so check it.
                        let inner = Context {
                            input: None,
                            ..context.clone()
                        };
                        self.source(input, depth + 1, &inner);
                        return;
                    }
                }
                ShellRun::File(_) => {}
            },
            "eval" => {
                if args.len() > 1 {
                    let script = args[1..]
                        .iter()
                        .map(|arg| arg.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.script_text(&args[1..], &script, &words, context, depth);
                }
                return;
            }
            "alias" => {
                for arg in args.iter().skip(1).filter(|arg| arg.known) {
                    if let Some((_, value)) = arg.text.split_once('=') {
                        self.source(value, depth + 1, &Context::default());
                    }
                }
            }
            "trap" => {
                // `trap [--] HANDLER SIGNAL…`; `-p` and `-l` print, `-` resets.
                let handler = match args.get(1).map(|arg| arg.text.as_str()) {
                    Some("--") => args.get(2),
                    Some(first) if first.starts_with('-') => None,
                    _ => args.get(1),
                };
                if let Some(handler) = handler.filter(|_| args.len() > 2) {
                    if handler.known {
                        self.source(&handler.text, depth + 1, &Context::default());
                    } else {
                        let reason = format!(
                            "the command run by `{}` is only known when the command runs",
                            shorten(&text)
                        );
                        self.push(
                            words,
                            text,
                            context,
                            WordsVerdict::unchecked(reason),
                            Traits::default(),
                        );
                        return;
                    }
                }
            }
            "find" => {
                for range in wrappers::find_parts(&words.words()[1..]).commands {
                    self.command(&args[range.start + 1..range.end + 1], context, depth + 1);
                }
            }
            "for" | "select" if args.len() > 1 => {
                self.remember_loop(args);
                return;
            }
            _ => {}
        }
        let traits = Traits {
            downloads: matches!(name.as_str(), "curl" | "wget"),
            runs_input_as_code: wrappers::runs_code_from_input(words.words()),
        };
        let verdict = if traits.runs_input_as_code && context.piped && context.input.is_none() {
            WordsVerdict::unchecked(format!(
                "`{}` runs code piped from another command, which hone cannot check",
                shorten(&text)
            ))
        } else {
            self.words_verdict(args, &words, &text, context)
        };
        self.push(words, text, context, verdict, traits);
    }

    /// Runs `script` (taken from `from`) as a nested command line, or asks when its text is
    /// only known at run time.
    fn script_text(
        &mut self,
        from: &[Arg],
        script: &str,
        words: &CommandWords,
        context: &Context,
        depth: usize,
    ) {
        if from.iter().all(|arg| arg.known) {
            self.source(script, depth + 1, context);
            return;
        }
        let text = display(words.words());
        let reason = format!(
            "the script run by `{}` is only known when the command runs",
            shorten(&text)
        );
        let verdict = WordsVerdict::unchecked(reason);
        self.push(words.clone(), text, context, verdict, Traits::default());
    }

    fn words_verdict(
        &self,
        args: &[Arg],
        words: &CommandWords,
        text: &str,
        context: &Context,
    ) -> WordsVerdict {
        let text = shorten(text);
        if let Some(rule) = self.rules.allowing(words) {
            return WordsVerdict::Allow(format!("`{text}` is allowed by your rule `{rule}`"));
        }
        let not_listed = || WordsVerdict::Ask {
            reason: format!("`{text}` is not on the allow list"),
            grantable: true,
            unchecked: false,
        };
        if words.runs_project_file() {
            return not_listed();
        }
        let args_known = !context.extra_args && args.iter().all(|arg| arg.known);
        match builtin_allow(words.words(), args_known) {
            AllowCheck::NotListed => not_listed(),
            AllowCheck::Allowed => match self.reads_elsewhere(args, words, &text, context) {
                Some(reason) => WordsVerdict::Ask {
                    reason,
                    grantable: false,
                    unchecked: false,
                },
                None => WordsVerdict::Allow(format!("`{text}` is on the allow list")),
            },
            AllowCheck::Ask(reason) => WordsVerdict::Ask {
                reason,
                grantable: true,
                unchecked: false,
            },
        }
    }

    /// Records a leaf; the context can make it ask (writes a file, sets `PATH`) or deny
    /// (writes to a device or system directory).
    fn push(
        &mut self,
        words: CommandWords,
        text: String,
        context: &Context,
        verdict: WordsVerdict,
        traits: Traits,
    ) {
        let short = shorten(&text);
        let writes_elsewhere = self.writes_elsewhere(context);
        let mut unchecked = context.elsewhere.is_some() || writes_elsewhere.is_some();
        let (class, reason, grantable) = match (verdict, context.denied_output()) {
            (WordsVerdict::Deny(reason), _) => (CommandClass::Deny, reason, false),
            (WordsVerdict::Allow(_) | WordsVerdict::Ask { .. }, Some(why)) => (
                CommandClass::Deny,
                format!("`{short}` is denied: {why}"),
                false,
            ),
            (WordsVerdict::Allow(reason), None) => match context.hazard(&text) {
                Some(hazard) => (CommandClass::Ask, hazard, false),
                None => (CommandClass::Allow, reason, false),
            },
            (
                WordsVerdict::Ask {
                    reason,
                    grantable,
                    unchecked: hidden,
                },
                None,
            ) => {
                unchecked |= hidden;
                let reason = match (&context.elsewhere, writes_elsewhere) {
                    (Some(elsewhere), _) => format!("`{short}`: {elsewhere}"),
                    (None, Some(target)) => {
                        format!("`{short}` writes to `{target}`, outside the project")
                    }
                    (None, None) => reason,
                };
                (
                    CommandClass::Ask,
                    reason,
                    grantable && context.hazard(&text).is_none(),
                )
            }
        };
        self.analysis.leaves.push(Leaf {
            words,
            text,
            class,
            reason,
            grantable,
            unchecked,
            traits,
        });
    }
}

#[cfg(test)]
mod tests;
