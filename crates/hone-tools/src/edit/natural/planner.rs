//! From a reply to a plan: each block is placed (labelled file, namesake definitions,
//! SEARCH/REPLACE, diff), and the result is checked before it is proposed.

use std::collections::BTreeSet;

use serde_json::json;

use super::blocks::{Block, blocks, extension_of};
use super::imports::with_missing_imports;
use super::intent::{asks_for_deletion, elision, is_question};
use super::merge::{matches, merge};
use super::workspace::Workspace;
use super::{CodeMapper, Definition, DefinitionKind, NaturalChange, NaturalEdit};
use crate::edit::matching::{Occurrences, replace};
use crate::edit::patch::ApplyPatch;
use crate::files::MAX_FILE_BYTES;
use crate::files::walk::{project_walker, relative_path};
use crate::{EditPlan, Plan, Tool, ToolContext};

/// How many project files a search for a definition's file looks at.
const MAX_SEARCHED_FILES: usize = 5_000;

/// Why a reply's code is not turned into a change.
enum Stop {
    Refused(String),
    Ambiguous { name: String, files: Vec<String> },
}

impl From<String> for Stop {
    fn from(reason: String) -> Self {
        Stop::Refused(reason)
    }
}

/// What the code of `reply` (the model's final answer to `request`) amounts to.
pub fn plan_reply(context: &ToolContext, request: &str, reply: &str) -> NaturalEdit {
    plan_blocks(context, request, blocks(reply))
}

/// Like [`plan_reply`], for a reply asked to write the file `new_file` whole: its one code
/// block, when it names no file, is that file (the model was told which file to write,
/// and small models often leave the label out).
pub fn plan_new_file_reply(
    context: &ToolContext,
    request: &str,
    reply: &str,
    new_file: &str,
) -> NaturalEdit {
    let mut found = blocks(reply);
    if let [
        Block::Code {
            extension, path, ..
        },
    ] = found.as_mut_slice()
        && path.is_none()
        && extension
            .as_deref()
            .is_none_or(|extension| Some(extension.to_string()) == extension_of(new_file))
    {
        *path = Some(new_file.to_string());
        *extension = extension_of(new_file);
    }
    plan_blocks(context, request, found)
}

fn plan_blocks(context: &ToolContext, request: &str, found: Vec<Block>) -> NaturalEdit {
    if is_question(request) {
        return NaturalEdit::Nothing;
    }
    if found.is_empty() {
        return NaturalEdit::Nothing;
    }
    let mut planner = Planner {
        context,
        mapper: context.code_mapper(),
        request,
        workspace: Workspace::new(context),
        actions: Vec::new(),
        tools: BTreeSet::new(),
        matched_existing: Vec::new(),
    };
    for block in found {
        match planner.block(block) {
            Ok(()) => {}
            Err(Stop::Refused(reason)) => return NaturalEdit::Refused(reason),
            Err(Stop::Ambiguous { name, files }) => {
                return NaturalEdit::Ambiguous { name, files };
            }
        }
    }
    planner.finish()
}

struct Planner<'a> {
    context: &'a ToolContext,
    mapper: Option<&'a dyn CodeMapper>,
    request: &'a str,
    workspace: Workspace<'a>,
    actions: Vec<String>,
    tools: BTreeSet<&'static str>,
    /// Existing files a block was written for, by its label or by the definitions it
    /// matched (to tell a copy from no code).
    matched_existing: Vec<String>,
}

impl Planner<'_> {
    fn block(&mut self, block: Block) -> Result<(), Stop> {
        match block {
            Block::Code {
                extension,
                path: Some(path),
                body,
            } => self.labelled(&path, extension.as_deref(), &body),
            Block::Code {
                extension: Some(extension),
                path: None,
                body,
            } => self.unlabelled(&extension, &body),
            Block::Code { .. } => Ok(()),
            Block::SearchReplace {
                path,
                search,
                replace,
            } => self.search_replace(path.as_deref(), &search, &replace),
            Block::Diff { text } => self.diff(&text),
        }
    }

    /// A block labelled with a path: creates the file, replaces it when complete, or puts
    /// its definitions in place.
    fn labelled(&mut self, given: &str, extension: Option<&str>, body: &str) -> Result<(), Stop> {
        if extension.is_some_and(|extension| Some(extension.to_string()) != extension_of(given)) {
            // ```python src/x.ts: the language and the path disagree; trust neither.
            return Ok(());
        }
        let mapper = self.mapper;
        let deletion = asks_for_deletion(self.request);
        let (path, working) = self.workspace.open(given)?;
        if !working.exists() {
            if let Some(marker) = elision(body, "") {
                return Err(Stop::Refused(format!(
                    "the new file {path} contains `{marker}`, which stands for code left out; \
                     write the whole file"
                )));
            }
            working.content = body.to_string();
            working.created = true;
            self.actions.push(format!("created {path}"));
            self.tools.insert("write_file");
            return Ok(());
        }
        let current = working.content.clone();
        // An empty block for an existing file is no code (small models sometimes answer
        // with the label alone), unless the request asked for deletion.
        if body.trim().is_empty() && !current.trim().is_empty() && !deletion {
            return Ok(());
        }
        self.matched_existing.push(path.clone());
        if same_code(body, &current) {
            return Ok(());
        }
        let definitions = mapper.and_then(|mapper| {
            Some((
                mapper.definitions(&path, &current)?,
                mapper.definitions(&path, body)?,
            ))
        });
        let lost = match &definitions {
            Some((file, block)) if !deletion => lost_from_file(&current, file, body, block),
            Some(_) => Vec::new(),
            None if deletion => Vec::new(),
            None => super::keep::lost_definitions(None, &path, &current, body),
        };
        if lost.is_empty() && elision(body, &current).is_none() {
            working.content = body.to_string();
            self.actions.push(format!("rewrote {path}"));
            self.tools.insert("write_file");
            return Ok(());
        }
        if let Some((file, block)) = &definitions
            && block.iter().any(|definition| matches(file, definition))
        {
            let merged = merge(&path, &current, file, body, block)?;
            working.content = merged.content;
            self.actions.extend(merged.actions);
            self.tools.insert("edit_file");
            return Ok(());
        }
        let why = match elision(body, &current) {
            Some(marker) => format!("it contains `{marker}`, which stands for code left out"),
            None => format!("it leaves out {}", lost.join(", ")),
        };
        Err(Stop::Refused(format!(
            "the block labelled {path} is not the whole file ({why}), and none of its \
             definitions is in the file; write the complete file, or only the changed \
             functions"
        )))
    }

    /// A block without a path: its definitions go where their namesakes are.
    fn unlabelled(&mut self, extension: &str, body: &str) -> Result<(), Stop> {
        let Some(mapper) = self.mapper else {
            return Ok(());
        };
        let Some(block) = mapper.definitions(&format!("reply.{extension}"), body) else {
            return Ok(());
        };
        if block.is_empty() {
            return Ok(());
        }
        let Some(target) = self.target_file(mapper, extension, &block)? else {
            return Ok(());
        };
        let (path, working) = self.workspace.open(&target)?;
        let current = working.content.clone();
        let Some(file) = mapper.definitions(&path, &current) else {
            return Ok(());
        };
        let merged = merge(&path, &current, &file, body, &block)?;
        if merged.content == current {
            self.matched_existing.push(path.clone());
        }
        working.content = merged.content;
        self.actions.extend(merged.actions);
        self.tools.insert("edit_file");
        Ok(())
    }

    /// The one file holding the block's definitions: the file matching most of them; a tie
    /// is settled by a path the request names, then by the one file the model read, else
    /// it is ambiguous.
    fn target_file(
        &mut self,
        mapper: &dyn CodeMapper,
        extension: &str,
        block: &[Definition],
    ) -> Result<Option<String>, Stop> {
        let names: BTreeSet<&str> = block
            .iter()
            .flat_map(|definition| {
                if definition.name.is_empty() {
                    definition.members.iter().map(|m| m.name.as_str()).collect()
                } else {
                    vec![definition.name.as_str()]
                }
            })
            .collect();
        let mut scored: Vec<(usize, String)> = Vec::new();
        for candidate in self.candidates(mapper, extension, &names) {
            let Ok((path, working)) = self.workspace.open(&candidate) else {
                continue;
            };
            let Some(file) = mapper.definitions(&path, &working.content) else {
                continue;
            };
            let score = block
                .iter()
                .filter(|definition| matches(&file, definition))
                .count();
            if score > 0 {
                scored.push((score, path));
            }
        }
        let Some(best) = scored.iter().map(|(score, _)| *score).max() else {
            return Ok(None);
        };
        let tied: Vec<String> = scored
            .into_iter()
            .filter(|(score, _)| *score == best)
            .map(|(_, path)| path)
            .collect();
        if let [only] = tied.as_slice() {
            return Ok(Some(only.clone()));
        }
        let named: Vec<&String> = tied
            .iter()
            .filter(|path| self.request.contains(path.as_str()))
            .collect();
        if let [only] = named.as_slice() {
            return Ok(Some((*only).clone()));
        }
        let read: Vec<&String> = tied
            .iter()
            .filter(|path| self.context.reads().seen(path).is_some())
            .collect();
        if let [only] = read.as_slice() {
            return Ok(Some((*only).clone()));
        }
        Err(Stop::Ambiguous {
            name: names
                .iter()
                .next()
                .map_or_else(String::new, |n| (*n).to_string()),
            files: tied,
        })
    }

    /// Project files of the block's language family that may define `names`: from the
    /// mapper's index, else by searching the files' text.
    fn candidates(
        &self,
        mapper: &dyn CodeMapper,
        extension: &str,
        names: &BTreeSet<&str>,
    ) -> BTreeSet<String> {
        let family = family(extension);
        let indexed: Option<BTreeSet<String>> = names
            .iter()
            .map(|name| mapper.files_defining(name))
            .collect::<Option<Vec<_>>>()
            .map(|lists| lists.into_iter().flatten().collect());
        if let Some(files) = indexed {
            return files
                .into_iter()
                .filter(|file| extension_of(file).is_some_and(|e| family.contains(&e.as_str())))
                .collect();
        }
        let root = self.context.root().to_path_buf();
        project_walker(self.context, &root)
            .build()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
            .filter(|entry| {
                relative_path(&root, entry.path())
                    .rsplit_once('.')
                    .is_some_and(|(_, e)| family.contains(&e.to_ascii_lowercase().as_str()))
            })
            .take(MAX_SEARCHED_FILES)
            .filter(|entry| {
                entry
                    .metadata()
                    .is_ok_and(|meta| meta.len() <= MAX_FILE_BYTES)
            })
            .filter(|entry| {
                std::fs::read_to_string(entry.path()).is_ok_and(|text| {
                    names
                        .iter()
                        .any(|name| text.contains(name.rsplit('.').next().unwrap_or(name)))
                })
            })
            .map(|entry| relative_path(&root, entry.path()))
            .collect()
    }

    fn search_replace(
        &mut self,
        given: Option<&str>,
        search: &str,
        replacement: &str,
    ) -> Result<(), Stop> {
        let Some(given) = given else {
            return Err(Stop::Refused(
                "a SEARCH/REPLACE block needs the file's path alone on the line above it"
                    .to_string(),
            ));
        };
        if let Some(marker) = elision(replacement, search) {
            return Err(Stop::Refused(format!(
                "the REPLACE part for {given} contains `{marker}`, which stands for code left \
                 out; the REPLACE part is written exactly as given"
            )));
        }
        let (path, working) = self.workspace.open(given)?;
        if !working.exists() {
            if !search.trim().is_empty() {
                return Err(Stop::Refused(format!(
                    "{path} does not exist, so its SEARCH text cannot be found; to create it, \
                     leave SEARCH empty"
                )));
            }
            working.content = replacement.to_string();
            working.created = true;
            self.actions.push(format!("created {path}"));
            self.tools.insert("write_file");
            return Ok(());
        }
        if search.trim().is_empty() {
            if !working.content.is_empty() && !working.content.ends_with('\n') {
                working.content.push('\n');
            }
            working.content.push_str(replacement);
        } else {
            let replaced = replace(
                &path,
                &working.content,
                search,
                replacement,
                Occurrences::One,
            )
            .map_err(|error| error.message)?;
            working.content = replaced.content;
        }
        self.actions
            .push(format!("applied a SEARCH/REPLACE block to {path}"));
        self.tools.insert("edit_file");
        Ok(())
    }

    fn diff(&mut self, text: &str) -> Result<(), Stop> {
        let plan = match ApplyPatch.plan(self.context, &json!({ "patch": text })) {
            Ok(Plan::Edit(plan)) => plan,
            Ok(_) => return Ok(()),
            Err(error) => {
                return Err(Stop::Refused(format!(
                    "the diff does not apply: {}",
                    error.message
                )));
            }
        };
        for change in plan.changes {
            let (Some(after), None) = (change.after, change.rename_to) else {
                return Err(Stop::Refused(
                    "a diff written as text may not delete or move files; call apply_patch for \
                     that"
                        .to_string(),
                ));
            };
            let (path, working) = self.workspace.open(&change.path)?;
            if working.changed() {
                return Err(Stop::Refused(format!(
                    "two blocks of the reply change {path}; send one change per file"
                )));
            }
            if !working.exists() {
                working.created = true;
            }
            working.content = after;
            self.actions.push(format!("applied a diff to {path}"));
        }
        self.tools.insert("apply_patch");
        Ok(())
    }

    /// The plan, once every changed file parses at least as well as before.
    fn finish(mut self) -> NaturalEdit {
        let mut changes = match self.workspace.changes() {
            Ok(changes) => changes,
            Err(reason) => return NaturalEdit::Refused(reason),
        };
        if changes.is_empty() {
            // Code labelled with an existing file, or matching its definitions, but equal to
            // it: a small model copied the code instead of changing it (the caller decides whether that is a failure).
            if let Some(path) = self.matched_existing.into_iter().next() {
                return NaturalEdit::Unchanged { path };
            }
            return NaturalEdit::Nothing;
        }
        for change in &mut changes {
            let Some(after) = change
                .after
                .as_deref()
                .filter(|_| change.path.ends_with(".py"))
            else {
                continue;
            };
            let (fixed, added) = with_missing_imports(after);
            if !added.is_empty() {
                self.actions.push(format!(
                    "added `import {}` to {}, which its code uses",
                    added.join("`, `import "),
                    change.path
                ));
                change.after = Some(fixed);
            }
        }
        if let Some(mapper) = self.mapper {
            for change in &changes {
                let before = change.before.as_ref().map_or("", |state| &state.content);
                let after = change.after.as_deref().unwrap_or("");
                let errors = (
                    mapper.syntax_errors(&change.path, before),
                    mapper.syntax_errors(&change.path, after),
                );
                if let (Some(old), Some(new)) = errors
                    && new > old
                {
                    return NaturalEdit::Refused(format!(
                        "the change would leave {} with {new} syntax error{} (it has {old}); \
                         check the brackets and indentation of the code",
                        change.path,
                        if new == 1 { "" } else { "s" }
                    ));
                }
            }
        }
        let tool = match (self.tools.len(), self.tools.iter().next()) {
            (1, Some(tool)) => *tool,
            _ => "edit_file",
        };
        let files: Vec<&str> = changes.iter().map(|change| change.path.as_str()).collect();
        NaturalEdit::Change(NaturalChange {
            plan: EditPlan {
                summary: format!("apply the code of the reply to {}", files.join(", ")),
                changes,
                destructive: None,
            },
            tool,
            actions: self.actions,
        })
    }
}

/// What a whole-file block would lose of `current`: definitions it does not have, and
/// lines outside definitions (imports, comments, statements) it does not repeat.
fn lost_from_file(
    current: &str,
    file: &[Definition],
    body: &str,
    block: &[Definition],
) -> Vec<String> {
    let mut lost = Vec::new();
    for definition in file {
        match block.iter().find(|b| same_definition(b, definition)) {
            None => lost.push(format!("`{}`", definition.name)),
            // `export`, decorators: a whole-file block must keep them too.
            Some(kept) if kept.outer == kept.inner && definition.outer != definition.inner => {
                lost.push(format!("what wraps `{}`", definition.name));
            }
            // A class written whole must keep every member (a model rewriting a class
            // to add a method tends to drop a getter or a field).
            Some(kept) if definition.kind == DefinitionKind::Container => {
                lost.extend(
                    definition
                        .members
                        .iter()
                        .filter(|member| !kept.members.iter().any(|m| same_definition(m, member)))
                        .map(|member| format!("`{}.{}`", definition.name, member.name)),
                );
            }
            Some(_) => {}
        }
    }
    let kept: BTreeSet<&str> = body.lines().map(str::trim).collect();
    let mut offset = 0;
    for line in current.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let inside = file
            .iter()
            .any(|definition| definition.outer.start <= start && start < definition.outer.end);
        let trimmed = line.trim();
        if !inside && !trimmed.is_empty() && !kept.contains(trimmed) {
            lost.push(format!("the line `{trimmed}`"));
        }
    }
    lost
}

/// Whether `block` is `file` again, up to blank lines and trailing spaces: a copy with
/// different spacing changes nothing a model was asked to change.
fn same_code(block: &str, file: &str) -> bool {
    let code = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim_end)
            .filter(|line| !line.is_empty())
            .map(str::to_string)
            .collect()
    };
    code(block) == code(file)
}

/// Whether `candidate` (from a block) stands for `existing` (from the file).
fn same_definition(candidate: &Definition, existing: &Definition) -> bool {
    candidate.name == existing.name && candidate.kind == existing.kind
}

/// The extensions a block of `extension` may target.
fn family(extension: &str) -> &'static [&'static str] {
    match extension {
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => {
            &["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"]
        }
        "py" | "pyi" => &["py", "pyi"],
        "rs" => &["rs"],
        "go" => &["go"],
        "java" => &["java"],
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => {
            &["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"]
        }
        _ => &[],
    }
}
