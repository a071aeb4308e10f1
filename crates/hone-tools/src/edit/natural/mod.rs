//! Edits written the way models write them: a final reply whose code blocks, SEARCH/REPLACE
//! blocks or diffs become an [`EditPlan`] instead of text the user has to copy.
//!
//! The text is read here ([`blocks`]); which definitions a block holds and where they are in
//! a file is language knowledge behind [`CodeMapper`], implemented with tree-sitter by
//! `hone-index` and set on the [`ToolContext`](crate::ToolContext). Safety rules: a block
//! never removes code it leaves out (elision comments, stub bodies, partial files), a result
//! never has more syntax errors than the file had, and a name found in several files is
//! not guessed.

mod blocks;
mod imports;
mod intent;
mod keep;
mod merge;
mod planner;
mod workspace;

use std::fmt::Debug;
use std::ops::Range;

pub use keep::lost_definitions;
pub use planner::{plan_new_file_reply, plan_reply};

use crate::EditPlan;

/// What a definition is, for matching a block's definitions with a file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionKind {
    /// A function or method.
    Function,
    /// A class, impl block, trait or interface whose members are matched one by one.
    Container,
    /// A struct, enum, interface or type alias, replaced whole.
    Type,
    /// A field or property of a container.
    Field,
}

/// One definition of a source file, with byte ranges into that source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// Its name (`add`, `Cart`, `Cart.total` for a Go method, `Display for Cart` for an
    /// impl). An empty name is a fragment's stand-in container: its members are methods
    /// written without their class.
    pub name: String,
    /// What it is.
    pub kind: DefinitionKind,
    /// The definition with what wraps it (`export`, decorators).
    pub outer: Range<usize>,
    /// The declaration itself.
    pub inner: Range<usize>,
    /// The members of a container, in order.
    pub members: Vec<Definition>,
    /// For a container: where a new member's lines go (the start of the line holding the
    /// closing brace, or the end of an indented body); `None` when there is no such place.
    pub insert_at: Option<usize>,
}

/// Language knowledge the natural edit formats need (tree-sitter grammars in `hone-index`).
pub trait CodeMapper: Send + Sync + Debug {
    /// The top-level definitions of `source`, parsed as the language of `path`'s extension;
    /// `None` when the language is not supported.
    fn definitions(&self, path: &str, source: &str) -> Option<Vec<Definition>>;

    /// How many syntax errors (error and missing nodes) `source` has; `None` when the
    /// language is not supported.
    fn syntax_errors(&self, path: &str, source: &str) -> Option<usize>;

    /// Files that define `name`, from an index; `None` when no index is at hand (the
    /// project's files are searched instead).
    fn files_defining(&self, name: &str) -> Option<Vec<String>> {
        let _ = name;
        None
    }
}

/// What a reply's code amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum NaturalEdit {
    /// Nothing in the reply maps to a change: the answer stays an answer.
    Nothing,
    /// A change to propose.
    Change(NaturalChange),
    /// The code targets existing code but cannot be applied safely; why, for the model.
    Refused(String),
    /// The code is labelled with an existing file and equals it: nothing would change
    /// (a small model copied the code it was asked to change).
    Unchanged {
        /// The file the code was labelled with.
        path: String,
    },
    /// A definition of the reply is in several files.
    Ambiguous {
        /// The definition's name.
        name: String,
        /// The files that define it.
        files: Vec<String>,
    },
}

/// A change made of a reply's code.
#[derive(Debug, Clone, PartialEq)]
pub struct NaturalChange {
    /// The file changes, like a tool's.
    pub plan: EditPlan,
    /// The write tool the change corresponds to (`edit_file`, `write_file`,
    /// `apply_patch`), for the permission policy.
    pub tool: &'static str,
    /// What was done, one entry per action (`replaced function add in src/math.ts`).
    pub actions: Vec<String>,
}

impl NaturalChange {
    /// Takes out the changes to existing files `keep` picks, with the actions that name
    /// them; returns the files left as they are. A change to no other file is empty.
    pub fn leave_unchanged(&mut self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let (kept, changes): (Vec<_>, Vec<_>) = std::mem::take(&mut self.plan.changes)
            .into_iter()
            .partition(|change| change.before.is_some() && keep(&change.path));
        self.plan.changes = changes;
        let left: Vec<String> = kept.into_iter().map(|change| change.path).collect();
        if left.is_empty() {
            return left;
        }
        self.actions.retain(|action| {
            !left.iter().any(|path| {
                action.ends_with(&format!(" {path}")) || action.contains(&format!(" {path},"))
            })
        });
        let files: Vec<&str> = self
            .plan
            .changes
            .iter()
            .map(|change| change.path.as_str())
            .collect();
        self.plan.summary = format!("apply the code of the reply to {}", files.join(", "));
        left
    }
}
