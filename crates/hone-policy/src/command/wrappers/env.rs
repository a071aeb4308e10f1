//! GNU `env`: what it runs, with its options read the way it reads them.

use super::{Unwrapped, inner};

/// GNU `env`: options in clusters (`-iu NAME`, `-iS'CMD'`), long options with `=` or a
/// separate value, then `NAME=value` assignments, then the command.
pub(super) fn env(words: &[String]) -> Unwrapped {
    let mut index = 1;
    let mut directory = None;
    'options: while let Some(word) = words.get(index) {
        if word == "--" {
            index += 1;
            break;
        }
        if word == "-" {
            index += 1;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (long, None),
            };
            let value_word = if attached.is_some() { index } else { index + 1 };
            let value = attached.or_else(|| words.get(index + 1).cloned());
            let known = |full: &str, min: usize| is_long_name(name, full, min);
            if known("split-string", 1) {
                return split_string(words, value_word, value);
            } else if known("chdir", 1) {
                directory = value;
                index = value_word + 1;
            } else if known("unset", 1) || known("argv0", 1) {
                index = value_word + 1;
            } else if [
                "ignore-environment",
                "null",
                "debug",
                "ignore-signal",
                "default-signal",
                "block-signal",
                "list-signal-handling",
            ]
            .iter()
            .any(|full| known(full, 2))
            {
                index += 1;
            } else {
                return unknown_env_option(word);
            }
            continue;
        }
        let Some(cluster) = word.strip_prefix('-') else {
            break;
        };
        for (position, letter) in cluster.char_indices() {
            match letter {
                'i' | '0' | 'v' => {}
                'u' | 'C' | 'S' | 'a' => {
                    let rest = &cluster[position + letter.len_utf8()..];
                    let (value, value_word) = if rest.is_empty() {
                        (words.get(index + 1).cloned(), index + 1)
                    } else {
                        (Some(rest.to_string()), index)
                    };
                    match letter {
                        'S' => return split_string(words, value_word, value),
                        'C' => directory = value,
                        _ => {}
                    }
                    index = value_word + 1;
                    continue 'options;
                }
                _ => return unknown_env_option(word),
            }
        }
        index += 1;
    }
    let mut assignments = Vec::new();
    while let Some((name, _)) = words.get(index).and_then(|word| word.split_once('=')) {
        assignments.push(name.to_string());
        index += 1;
    }
    match inner(words, index, assignments, false) {
        Unwrapped::Command {
            start,
            assignments,
            extra_args,
            ..
        } => Unwrapped::Command {
            start,
            assignments,
            extra_args,
            directory,
        },
        other => other,
    }
}

/// Whether `given` names the long option `full`, abbreviated to at least `min` letters.
fn is_long_name(given: &str, full: &str, min: usize) -> bool {
    !given.is_empty() && given.len() >= min.min(full.len()) && full.starts_with(given)
}

fn unknown_env_option(word: &str) -> Unwrapped {
    Unwrapped::Unchecked(format!(
        "`env` is given the option `{word}`, which hone does not know"
    ))
}

/// `env -S 'a b c'` splits its argument into more arguments of `env` (options, assignments,
/// then the command); the words after it are more arguments. The result is checked as the
/// script `env a b c …`.
fn split_string(words: &[String], index: usize, text: Option<String>) -> Unwrapped {
    match text {
        Some(text) => {
            let rest = words.get(index + 1..).unwrap_or_default();
            let text = std::iter::once(format!("env {text}"))
                .chain(rest.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ");
            Unwrapped::Script {
                text,
                words: index.min(words.len())..words.len(),
            }
        }
        None => Unwrapped::Nothing,
    }
}
