//! Where commands read, run and write: paths outside the project, values of variables
//! used as paths, and directories changed into.

use super::super::context::{Context, OutputTarget};
use super::super::lexer::{Redirect, RedirectKind, Word};
use super::super::reads::{self, PathUse};
use super::super::rules::CommandWords;
use super::super::text::shorten;
use super::{Arg, MAX_VALUES, Walker};

impl Walker<'_> {
    /// Why an allow-listed command must ask because of where it reads: a path outside the
    /// project (`cat ~/.ssh/id_rsa`, `git -C ../other`), hidden by `.honeignore`, in a
    /// nested repository (`git -C bare-repo`), or only known when it runs (`cat $F`).
    pub(super) fn reads_elsewhere(
        &self,
        args: &[Arg],
        words: &CommandWords,
        text: &str,
        context: &Context,
    ) -> Option<String> {
        if context.extra_args && reads::reads_paths(words.program()) {
            return Some(format!(
                "`{text}` reads paths that are only known when it runs"
            ));
        }
        let paths = reads::path_args(words.words());
        if paths.is_empty() {
            return None;
        }
        if context.extra_args {
            return Some(format!(
                "`{text}` reads paths that are only known when it runs"
            ));
        }
        for path in paths {
            let known = args.get(path.word).is_none_or(|arg| arg.known);
            let candidates = if known {
                vec![path.path.clone()]
            } else {
                match self.expand(&path.path) {
                    Some(candidates) => candidates,
                    None => {
                        return Some(format!(
                            "`{text}` reads `{}`, which is only known when it runs",
                            shorten(&path.path)
                        ));
                    }
                }
            };
            for candidate in candidates {
                if let Some(why) = reads::outside(self.guard, &candidate, path.usage) {
                    return Some(format!(
                        "`{text}` reads `{}`, which {why}",
                        shorten(&candidate)
                    ));
                }
            }
        }
        None
    }

    /// `env -C DIR`: a directory outside the project (or unknown) makes the inner command
    /// ask, and full-auto not run it outside the sandbox.
    pub(super) fn change_directory(&self, context: &mut Context, wrapper: &[Arg], directory: &str) {
        let known = wrapper.iter().all(|arg| arg.known);
        let why = if known {
            reads::outside(self.guard, directory, PathUse::Directory)
        } else {
            Some("is only known when it runs".to_string())
        };
        if let Some(why) = why {
            context.elsewhere = Some(format!("it runs in `{}`, which {why}", shorten(directory)));
        }
    }

    /// Remembers the literal values of bare assignments (`dir=src`) for later `$dir`;
    /// a value only known at run time forgets the variable. A variable assigned twice is
    /// forgotten for good: the walk follows the text, not the run (`f=a; (f=b); cat $f`).
    pub(super) fn remember_assignments(&mut self, assignments: &[Word]) {
        for word in assignments {
            let Some(name) = word.assigned_name() else {
                continue;
            };
            let value = word
                .text
                .split_once('=')
                .map(|(_, value)| value.to_string())
                .filter(|_| !word.expanded && !word.text.contains("+="));
            self.remember(name, value.map(|value| vec![value]));
        }
    }

    /// Records `values` for `name` when it is its first assignment; forgets it otherwise.
    fn remember(&mut self, name: &str, values: Option<Vec<String>>) {
        let first = self.assigned.insert(name.to_string());
        match values.filter(|_| first) {
            Some(values) => {
                self.values.insert(name.to_string(), values);
            }
            None => {
                self.values.remove(name);
            }
        }
    }

    /// A command that names a variable in its arguments may set it (`read f`,
    /// `export f=x`, `printf -v f`): its value is no longer known.
    pub(super) fn forget_named_variables(&mut self, args: &[Arg]) {
        for arg in args {
            let name = arg
                .text
                .split_once('=')
                .map_or(arg.text.as_str(), |(name, _)| name);
            let identifier = name
                .chars()
                .next()
                .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if identifier {
                self.assigned.insert(name.to_string());
                self.values.remove(name);
            }
        }
    }

    /// `for NAME in WORDS`: `$NAME` stands for each of the words when they are literal.
    pub(super) fn remember_loop(&mut self, args: &[Arg]) {
        let Some(name) = args.get(1) else {
            return;
        };
        let listed = args.get(2).is_some_and(|word| word.text == "in");
        let values = &args[3.min(args.len())..];
        let known = listed && values.iter().all(|arg| arg.known) && values.len() <= MAX_VALUES;
        let values = known.then(|| values.iter().map(|arg| arg.text.clone()).collect());
        self.remember(&name.text.clone(), values);
    }

    /// Every text `word` can stand for when its only expansions are variables with known
    /// values (`$dir/x`, `${f}`); `None` when anything else is only known at run time.
    pub(super) fn expand(&self, word: &str) -> Option<Vec<String>> {
        let mut results = vec![String::new()];
        let mut rest = word;
        while let Some(dollar) = rest.find('$') {
            let literal = &rest[..dollar];
            let after = &rest[dollar + 1..];
            let (name, length) = match after.strip_prefix('{') {
                Some(braced) => (braced.get(..braced.find('}')?)?, braced.find('}')? + 2),
                None => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], end)
                }
            };
            let valid = name
                .chars()
                .next()
                .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return None;
            }
            let values = self.values.get(name)?;
            if results.len() * values.len() > MAX_VALUES {
                return None;
            }
            results = results
                .iter()
                .flat_map(|start| {
                    values
                        .iter()
                        .map(move |value| format!("{start}{literal}{value}"))
                })
                .collect();
            rest = &after[length..];
        }
        if rest.contains('`') {
            return None;
        }
        Some(
            results
                .into_iter()
                .map(|start| format!("{start}{rest}"))
                .collect(),
        )
    }

    /// Applies redirections to the context, noting a file read from outside the project.
    pub(super) fn redirect(&self, context: &mut Context, redirects: &[Redirect]) {
        context.redirect(redirects);
        for redirect in redirects {
            if !matches!(redirect.kind, RedirectKind::Read | RedirectKind::ReadWrite) {
                continue;
            }
            let target = &redirect.target;
            let why = if target.expanded {
                self.expand(&target.text)
                    .unwrap_or_else(|| vec!["~".to_string()])
                    .iter()
                    .find_map(|path| reads::outside(self.guard, path, PathUse::Read))
            } else {
                reads::outside(self.guard, &target.text, PathUse::Read)
            };
            if let Some(why) = why {
                context.reads_elsewhere =
                    Some(format!("it reads `{}`, which {why}", shorten(&target.text)));
            }
        }
    }

    /// The first file the command's redirections write to outside the project (or to a
    /// place only known when it runs).
    pub(super) fn writes_elsewhere(&self, context: &Context) -> Option<String> {
        context.outputs.iter().find_map(|output| match output {
            OutputTarget::File(target) => {
                let unknown = target.contains('$') || target.contains('`');
                // Writing a file that may hold secrets is a write inside the project.
                let outside = reads::outside(self.guard, target, PathUse::Read)
                    .is_some_and(|why| why != reads::MAY_HOLD_SECRETS);
                (unknown || outside).then(|| target.clone())
            }
            OutputTarget::Device(_) | OutputTarget::SystemDirectory(_) => None,
        })
    }
}
