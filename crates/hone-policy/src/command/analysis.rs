//! What the walk over a command line found, and the verdict for the whole line.

use super::rules::CommandWords;
use super::{CommandClass, CommandVerdict};

/// One simple command that would run, with its class.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    /// Its words as rules see them.
    pub(crate) words: CommandWords,
    /// Its text, for messages and [`CommandVerdict::sub_commands`].
    pub(crate) text: String,
    /// Its class.
    pub(crate) class: CommandClass,
    /// Why, as a sentence.
    pub(crate) reason: String,
    /// It asks only because of its words, so a session grant of a prefix may allow it.
    pub(crate) grantable: bool,
    /// The policy cannot see all it does: its program or script is only known when it
    /// runs, it runs code piped from another command, a wrapper hone does not take apart,
    /// or it runs or writes outside the project. Full-auto asks for it unless commands
    /// run in the OS sandbox.
    pub(crate) unchecked: bool,
    /// What it means for the commands it is piped into.
    pub(super) traits: Traits,
}

/// What a leaf means for the commands it is piped into.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Traits {
    /// It downloads (`curl`, `wget`).
    pub(super) downloads: bool,
    /// It runs its input as code (`sh`, `python3 -`).
    pub(super) runs_input_as_code: bool,
}

/// Everything found in one command line.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// Every simple command that would run.
    pub(crate) leaves: Vec<Leaf>,
    /// Parse problems, as phrases.
    pub(crate) problems: Vec<String>,
    /// Some part was nested too deeply and was not analysed.
    pub(super) too_deep: bool,
    /// How many simple commands (including bare assignments) were seen.
    pub(super) commands: usize,
}

impl Analysis {
    /// Why full-auto must not run the line outside the sandbox: the reason of its first
    /// unchecked part, or the parse problem that hides part of it.
    pub(crate) fn unchecked(&self) -> Option<String> {
        if let Some(problem) = self.problems.first() {
            return Some(format!(
                "the command could not be fully understood ({problem})"
            ));
        }
        self.leaves
            .iter()
            .find(|leaf| leaf.unchecked)
            .map(|leaf| leaf.reason.clone())
    }

    /// The verdict for the whole command line: deny wins, then parse problems and asks.
    pub(crate) fn verdict(&self) -> CommandVerdict {
        let sub_commands = self.leaves.iter().map(|leaf| leaf.text.clone()).collect();
        let first = |class: CommandClass| self.leaves.iter().find(|leaf| leaf.class == class);
        let (class, reason) = if let Some(leaf) = first(CommandClass::Deny) {
            (CommandClass::Deny, leaf.reason.clone())
        } else if self.too_deep {
            (
                CommandClass::Deny,
                "the command nests commands too deeply to be checked".to_string(),
            )
        } else if self.commands == 0 && self.problems.is_empty() {
            (
                CommandClass::Deny,
                "the command is empty; give a shell command to run".to_string(),
            )
        } else if let Some(problem) = self.problems.first() {
            (
                CommandClass::Ask,
                format!("the command could not be fully understood ({problem})"),
            )
        } else if let Some(leaf) = first(CommandClass::Ask) {
            (CommandClass::Ask, leaf.reason.clone())
        } else {
            match self.leaves.as_slice() {
                [leaf] => (CommandClass::Allow, leaf.reason.clone()),
                [] => (CommandClass::Allow, "it runs no command".to_string()),
                _ => (
                    CommandClass::Allow,
                    "every command in it is allowed".to_string(),
                ),
            }
        };
        CommandVerdict {
            class,
            reason,
            sub_commands,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::rules::RuleSet;
    use super::super::walk::analyse;
    use super::*;

    #[test]
    fn deny_beats_parse_problems_and_problems_beat_asks() {
        let analysis = analyse(
            &RuleSet::default(),
            None,
            "cargo test; rm -rf x; echo 'open",
        );
        assert_eq!(analysis.verdict().class, CommandClass::Deny);
        let analysis = analyse(&RuleSet::default(), None, "cargo test; echo 'open");
        let verdict = analysis.verdict();
        assert_eq!(verdict.class, CommandClass::Ask);
        assert!(verdict.reason.contains("single quote"), "{verdict:?}");
    }

    #[test]
    fn nothing_to_run_is_denied_but_bare_assignments_are_allowed() {
        let empty = analyse(&RuleSet::default(), None, " # just a comment").verdict();
        assert_eq!(empty.class, CommandClass::Deny);
        assert!(empty.reason.contains("empty"), "{empty:?}");
        let assignment = analyse(&RuleSet::default(), None, "count=3").verdict();
        assert_eq!(assignment.class, CommandClass::Allow);
        assert!(assignment.sub_commands.is_empty());
    }
}
