//! The code index brought up to date on a thread of its own while sessions already run:
//! how far it is, the user's skip, and the gates in front of the index's tools, localizer
//! and code mapper, which answer only once it is ready (the tools say how far it is and
//! what to use meanwhile, so the first model request never waits for the index).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use hone_index::Progress;
use hone_index::tools::SharedIndex;
use hone_protocol::ToolSpec;
use hone_tools::edit::natural::{CodeMapper, Definition};
use hone_tools::{Plan, Tool, ToolContext, ToolError, ToolKind};

/// How far the code index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexProgress {
    /// Being brought up to date: `done` of `total` files examined (`total` is 0 while the
    /// tree is scanned).
    Indexing {
        /// Files examined.
        done: usize,
        /// Files to examine.
        total: usize,
    },
    /// Up to date; the tools answer from it.
    Ready,
    /// Left for later (a large tree): built when the model first calls an index tool.
    Deferred,
    /// Not used in this session (the user skipped it).
    Skipped,
    /// There is no index; why.
    Unavailable(String),
}

impl IndexProgress {
    /// `indexing 40% (1,200 of 3,000 files)` while it is built, else `None`.
    pub fn line(&self) -> Option<String> {
        match self {
            Self::Indexing { done, total } if *total > 0 => Some(format!(
                "indexing {}% ({done} of {total} files)",
                done * 100 / total
            )),
            Self::Indexing { .. } => Some("indexing: scanning the files".to_string()),
            Self::Ready | Self::Deferred | Self::Skipped | Self::Unavailable(_) => None,
        }
    }
}

/// The build's state, shared by the thread that builds, the gates and the front end.
#[derive(Clone)]
pub(crate) struct IndexBuild {
    index: SharedIndex,
    state: Arc<(Mutex<IndexProgress>, Condvar)>,
}

impl IndexBuild {
    /// `index` as it is, not yet updated; nothing runs until [`IndexBuild::start`].
    pub(crate) fn new(index: SharedIndex, progress: IndexProgress) -> Self {
        Self {
            index,
            state: Arc::new((Mutex::new(progress), Condvar::new())),
        }
    }

    fn state(&self) -> MutexGuard<'_, IndexProgress> {
        self.state.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, progress: IndexProgress) {
        *self.state() = progress;
        self.state.1.notify_all();
    }

    /// The index itself (callers check [`IndexBuild::progress`] before locking it).
    pub(crate) fn index(&self) -> &SharedIndex {
        &self.index
    }

    /// How far the build is.
    pub(crate) fn progress(&self) -> IndexProgress {
        self.state().clone()
    }

    /// The index when it is ready.
    pub(crate) fn ready(&self) -> Option<&SharedIndex> {
        (*self.state() == IndexProgress::Ready).then_some(&self.index)
    }

    /// Brings the index up to date on this thread.
    pub(crate) fn run_here(&self) {
        self.set(IndexProgress::Indexing { done: 0, total: 0 });
        self.run();
    }

    /// Brings the index up to date on a thread of its own.
    pub(crate) fn start(&self) {
        self.set(IndexProgress::Indexing { done: 0, total: 0 });
        let build = self.clone();
        let spawned = std::thread::Builder::new()
            .name("hone-index".into())
            .spawn(move || build.run());
        if let Err(error) = spawned {
            self.set(IndexProgress::Unavailable(format!(
                "could not start the indexing thread: {error}"
            )));
        }
    }

    fn run(&self) {
        let result = self.index.lock().update(&mut |progress: Progress| {
            let mut state = self.state();
            if matches!(*state, IndexProgress::Indexing { .. }) {
                *state = IndexProgress::Indexing {
                    done: progress.done,
                    total: progress.total,
                };
            }
        });
        let mut state = self.state();
        // A skip stays a skip: the work done is saved for the next session.
        if matches!(*state, IndexProgress::Indexing { .. }) {
            *state = match result {
                Ok(_) => IndexProgress::Ready,
                Err(error) => IndexProgress::Unavailable(error.to_string()),
            };
        }
        drop(state);
        self.state.1.notify_all();
    }

    /// Stops using the index in this session; `true` when it was being built.
    pub(crate) fn skip(&self) -> bool {
        let mut state = self.state();
        let skipped = matches!(*state, IndexProgress::Indexing { .. });
        if skipped {
            *state = IndexProgress::Skipped;
        }
        skipped
    }

    /// Marks the index ready (after an update made in the foreground).
    pub(crate) fn mark_ready(&self) {
        self.set(IndexProgress::Ready);
    }

    /// Waits while the index is being built.
    pub(crate) fn wait(&self) -> IndexProgress {
        let state = self
            .state
            .1
            .wait_while(self.state(), |state| {
                matches!(state, IndexProgress::Indexing { .. })
            })
            .unwrap_or_else(PoisonError::into_inner);
        state.clone()
    }

    /// Why a tool cannot answer now, with what the model can use instead; `None` when the
    /// index is ready. A deferred index starts building now.
    fn not_ready(&self) -> Option<String> {
        let progress = self.progress();
        let instead = "use search_files, glob_files, list_dir and read_file meanwhile";
        match progress {
            IndexProgress::Ready => None,
            IndexProgress::Deferred => {
                self.start();
                Some(format!(
                    "the code index is being built now (it was left for later in this large \
                     project); {instead}"
                ))
            }
            IndexProgress::Indexing { .. } => Some(format!(
                "{}: the code index is not ready yet; {instead}, or call this tool again later",
                progress.line().unwrap_or_default()
            )),
            IndexProgress::Skipped => Some(format!(
                "the code index was skipped for this session; {instead}"
            )),
            IndexProgress::Unavailable(reason) => {
                Some(format!("there is no code index ({reason}); {instead}"))
            }
        }
    }
}

/// An index tool that answers only once the index is ready.
pub(crate) struct GatedTool {
    inner: Arc<dyn Tool>,
    build: IndexBuild,
}

impl GatedTool {
    /// `inner` behind `build`'s gate.
    pub(crate) fn wrap(inner: Arc<dyn Tool>, build: &IndexBuild) -> Arc<dyn Tool> {
        Arc::new(Self {
            inner,
            build: build.clone(),
        })
    }
}

impl Tool for GatedTool {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn spec(&self) -> ToolSpec {
        self.inner.spec()
    }

    fn kind(&self) -> ToolKind {
        self.inner.kind()
    }

    fn plan(
        &self,
        context: &ToolContext,
        arguments: &serde_json::Value,
    ) -> Result<Plan, ToolError> {
        match self.build.not_ready() {
            Some(reason) => Err(ToolError::io(reason)),
            None => self.inner.plan(context, arguments),
        }
    }
}

/// The index's localizer once the index is ready; nothing located before.
pub(crate) struct GatedLocalizer {
    inner: Arc<dyn hone_core::Localizer>,
    build: IndexBuild,
}

impl GatedLocalizer {
    /// `inner` behind `build`'s gate.
    pub(crate) fn wrap(
        inner: Arc<dyn hone_core::Localizer>,
        build: &IndexBuild,
    ) -> Arc<dyn hone_core::Localizer> {
        Arc::new(Self {
            inner,
            build: build.clone(),
        })
    }
}

impl hone_core::Localizer for GatedLocalizer {
    fn locate(
        &self,
        mentions: &[hone_context::localize::Mention],
    ) -> Vec<hone_context::localize::Candidate> {
        if self.build.ready().is_some() {
            self.inner.locate(mentions)
        } else {
            Vec::new()
        }
    }
}

/// The index's code mapper once the index is ready; tree-sitter alone before.
pub(crate) struct GatedMapper {
    inner: Arc<dyn CodeMapper>,
    build: IndexBuild,
}

impl std::fmt::Debug for GatedMapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatedMapper")
            .field("progress", &self.build.progress())
            .finish_non_exhaustive()
    }
}

impl GatedMapper {
    /// `inner` behind `build`'s gate.
    pub(crate) fn wrap(inner: Arc<dyn CodeMapper>, build: &IndexBuild) -> Arc<dyn CodeMapper> {
        Arc::new(Self {
            inner,
            build: build.clone(),
        })
    }
}

impl CodeMapper for GatedMapper {
    fn definitions(&self, path: &str, source: &str) -> Option<Vec<Definition>> {
        self.inner.definitions(path, source)
    }

    fn syntax_errors(&self, path: &str, source: &str) -> Option<usize> {
        self.inner.syntax_errors(path, source)
    }

    fn files_defining(&self, name: &str) -> Option<Vec<String>> {
        self.build.ready()?;
        self.inner.files_defining(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-file project's index, not updated yet, in state `progress`.
    fn build(dir: &std::path::Path, progress: IndexProgress) -> IndexBuild {
        std::fs::write(dir.join("a.rs"), "pub fn alpha() {}\n").unwrap();
        let indexer =
            crate::index::open_index(dir, &hone_config::IndexSettings::default()).unwrap();
        IndexBuild::new(SharedIndex::new(indexer), progress)
    }

    fn outline_tool(build: &IndexBuild) -> Arc<dyn Tool> {
        let tool = hone_index::tools::index_tools(build.index().clone())
            .into_iter()
            .find(|tool| tool.name() == "get_outline")
            .unwrap();
        GatedTool::wrap(tool, build)
    }

    fn outline(build: &IndexBuild, dir: &std::path::Path) -> Result<Plan, ToolError> {
        let context = ToolContext::new(dir).unwrap();
        outline_tool(build).plan(&context, &serde_json::json!({"path": "a.rs"}))
    }

    #[test]
    fn tools_say_how_far_the_index_is_and_what_to_use_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let build = build(
            dir.path(),
            IndexProgress::Indexing {
                done: 40,
                total: 100,
            },
        );
        let error = outline(&build, dir.path()).unwrap_err();
        assert!(
            error.message.starts_with("indexing 40% (40 of 100 files)"),
            "{error:?}"
        );
        assert!(error.message.contains("search_files"), "{error:?}");
        assert_eq!(outline_tool(&build).name(), "get_outline");
    }

    #[test]
    fn a_skipped_index_stays_skipped_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let build = build(dir.path(), IndexProgress::Indexing { done: 0, total: 0 });
        assert!(build.skip());
        assert!(!build.skip(), "only a build in progress is skipped");
        assert_eq!(build.progress(), IndexProgress::Skipped);
        let error = outline(&build, dir.path()).unwrap_err();
        assert!(
            error.message.contains("skipped for this session"),
            "{error:?}"
        );
        // The build that was running finishes without making the index ready.
        build.run();
        assert_eq!(build.progress(), IndexProgress::Skipped);
    }

    #[test]
    fn a_deferred_index_is_built_on_first_use_and_then_answers() {
        let dir = tempfile::tempdir().unwrap();
        let build = build(dir.path(), IndexProgress::Deferred);
        let error = outline(&build, dir.path()).unwrap_err();
        assert!(error.message.contains("being built now"), "{error:?}");
        assert_eq!(build.wait(), IndexProgress::Ready);
        assert!(outline(&build, dir.path()).is_ok());
    }

    #[test]
    fn a_ready_index_answers_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let build = build(dir.path(), IndexProgress::Deferred);
        build.run_here();
        assert_eq!(build.progress(), IndexProgress::Ready);
        assert!(build.ready().is_some());
        assert!(outline(&build, dir.path()).is_ok());
        let mapper = GatedMapper::wrap(
            Arc::new(hone_index::mapper::IndexedMapper::new(
                build.index().clone(),
            )),
            &build,
        );
        assert_eq!(
            mapper.files_defining("alpha"),
            Some(vec!["a.rs".to_string()])
        );
    }

    #[test]
    fn the_mapper_and_localizer_do_without_an_index_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let build = build(dir.path(), IndexProgress::Indexing { done: 0, total: 1 });
        let mapper = GatedMapper::wrap(
            Arc::new(hone_index::mapper::IndexedMapper::new(
                build.index().clone(),
            )),
            &build,
        );
        assert_eq!(mapper.files_defining("alpha"), None);
        assert!(mapper.definitions("a.rs", "pub fn alpha() {}\n").is_some());
        let localizer = GatedLocalizer::wrap(
            Arc::new(hone_index::tools::IndexLocalizer::new(
                build.index().clone(),
            )),
            &build,
        );
        let mentions = hone_context::localize::extract_mentions("fix alpha in a.rs");
        assert!(localizer.locate(&mentions).is_empty());
    }

    #[test]
    fn the_progress_line_shows_the_share_done() {
        let line = IndexProgress::Indexing {
            done: 1_200,
            total: 3_000,
        }
        .line();
        assert_eq!(line.as_deref(), Some("indexing 40% (1200 of 3000 files)"));
        assert!(
            IndexProgress::Indexing { done: 0, total: 0 }
                .line()
                .unwrap()
                .contains("scanning")
        );
        assert_eq!(IndexProgress::Ready.line(), None);
    }
}
