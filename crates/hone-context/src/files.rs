//! Tracking files in a session: pinning, unpinning, and putting fresh snapshots into the
//! conversation.

use globset::GlobBuilder;
use hone_protocol::{ContentBlock, Message};
use serde::{Deserialize, Serialize};

use crate::error::ContextError;
use crate::history::HONE_NOTE_PREFIX;
use crate::manager::ContextManager;
use crate::tracked::{self, MAX_TRACKED_FILES, Snapshot, TrackMode, TrackedFile};

/// Share of the prompt budget tracked-file snapshots added at once may take.
const TRACKED_SHARE: f64 = 0.4;

pub use hone_api::TrackedInfo;

/// Snapshots added to a message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attached {
    /// Paths whose snapshot was added.
    pub paths: Vec<String>,
    /// Files that could not be added (too large, unreadable) or were deleted.
    pub warnings: Vec<String>,
}

/// The outcome of tracking or untracking files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackReport {
    /// Every tracked file after the change.
    pub files: Vec<TrackedInfo>,
    /// Paths newly tracked (or switched between full and outline).
    pub added: Vec<String>,
    /// Paths no longer tracked.
    pub removed: Vec<String>,
    /// Patterns that named nothing.
    pub unmatched: Vec<String>,
    /// Files that could not be tracked, with the reason.
    pub skipped: Vec<String>,
}

impl ContextManager {
    /// Pins the files `patterns` name (paths, directories or globs) in `mode`. Their
    /// snapshots are added to the next message (see [`ContextManager::attach_pending`]).
    pub fn track(
        &mut self,
        patterns: &[String],
        mode: TrackMode,
    ) -> Result<TrackReport, ContextError> {
        let resolved = tracked::resolve(&self.root, patterns)?;
        let mut report = TrackReport {
            unmatched: resolved.unmatched,
            ..TrackReport::default()
        };
        if resolved.truncated {
            report.skipped.push(format!(
                "more than {MAX_TRACKED_FILES} files matched; only the first {MAX_TRACKED_FILES} \
                 were considered"
            ));
        }
        for path in resolved.files {
            if self.secret_files.matches(&path) {
                report.skipped.push(format!(
                    "`{path}` may hold secrets and is not tracked (read_file asks before showing it)"
                ));
                continue;
            }
            if let Err(error) = tracked::snapshot(&self.root, &path, mode, None) {
                report.skipped.push(error.to_string());
                continue;
            }
            let count = self.state.tracked.len();
            match self.state.tracked.iter_mut().find(|file| file.path == path) {
                Some(file) if file.mode == mode => continue,
                Some(file) => {
                    file.mode = mode;
                    file.hash = None;
                }
                None if count >= MAX_TRACKED_FILES => {
                    report.skipped.push(format!(
                        "`{path}`: at most {MAX_TRACKED_FILES} files can be tracked; untrack some first"
                    ));
                    continue;
                }
                None => self.state.tracked.push(TrackedFile {
                    path: path.clone(),
                    mode,
                    hash: None,
                }),
            }
            if !self.state.pending.contains(&path) {
                self.state.pending.push(path.clone());
            }
            report.added.push(path);
        }
        report.files = self.tracked_info();
        Ok(report)
    }

    /// Unpins the tracked files `patterns` name (paths, directories or globs); their
    /// snapshots leave the context at the next request.
    pub fn untrack(&mut self, patterns: &[String]) -> TrackReport {
        let mut report = TrackReport::default();
        for pattern in patterns {
            let pattern = pattern
                .trim()
                .trim_start_matches("./")
                .trim_end_matches('/');
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .ok()
                .map(|glob| glob.compile_matcher());
            let matches = |path: &str| {
                path == pattern
                    || path.starts_with(&format!("{pattern}/"))
                    || glob.as_ref().is_some_and(|glob| glob.is_match(path))
            };
            let before = self.state.tracked.len();
            self.state.tracked.retain(|file| {
                let hit = matches(&file.path);
                if hit {
                    report.removed.push(file.path.clone());
                }
                !hit
            });
            if self.state.tracked.len() == before {
                report.unmatched.push(pattern.to_string());
            }
        }
        let tracked = &self.state.tracked;
        self.state
            .pending
            .retain(|path| tracked.iter().any(|file| file.path == *path));
        for path in &report.removed {
            self.seen.remove(path);
        }
        report.files = self.tracked_info();
        report
    }

    /// The tracked files with the estimated size of their current snapshots.
    pub fn tracked_info(&self) -> Vec<TrackedInfo> {
        self.state
            .tracked
            .iter()
            .map(|file| {
                let snapshot =
                    tracked::snapshot(&self.root, &file.path, file.mode, self.outliner.as_deref());
                TrackedInfo {
                    path: file.path.clone(),
                    mode: snapshot
                        .as_ref()
                        .map_or(file.mode, |snapshot| snapshot.mode),
                    tokens: snapshot.map_or(0, |snapshot| {
                        u64::try_from(self.counter.text(&snapshot.block())).unwrap_or(u64::MAX)
                    }),
                }
            })
            .collect()
    }

    /// Adds the snapshots of newly tracked files to `message` (the user's next request or
    /// a round's results).
    pub fn attach_pending(&mut self, message: &mut Message) -> Attached {
        let pending = std::mem::take(&mut self.state.pending);
        self.attach(message, &pending)
    }

    /// After a tool round: adds fresh snapshots of tracked files that changed on disk to
    /// `message` (the round's results), and of files tracked since the last request.
    /// Deleted files stop being tracked.
    pub fn refresh_changed(&mut self, message: &mut Message) -> Attached {
        let mut changed = std::mem::take(&mut self.state.pending);
        let mut deleted = Vec::new();
        for file in &self.state.tracked {
            let absolute = self.root.join(&file.path);
            let Ok(metadata) = std::fs::metadata(&absolute) else {
                deleted.push(file.path.clone());
                continue;
            };
            let stamp = (metadata.len(), metadata.modified().ok());
            if self.seen.get(&file.path) == Some(&stamp) && file.hash.is_some() {
                continue;
            }
            let Ok(bytes) = std::fs::read(&absolute) else {
                continue;
            };
            if file.hash.as_deref() != Some(tracked::hash(&bytes).as_str())
                && !changed.contains(&file.path)
            {
                changed.push(file.path.clone());
            }
        }
        for path in &deleted {
            self.state.tracked.retain(|file| file.path != *path);
            self.seen.remove(path);
            changed.retain(|known| known != path);
            push_block(
                message,
                format!(
                    "{HONE_NOTE_PREFIX} The tracked file `{path}` was deleted; it is no longer tracked."
                ),
            );
        }
        let mut attached = self.attach(message, &changed);
        attached.warnings.extend(
            deleted.iter().map(|path| {
                format!("the tracked file `{path}` was deleted; it is no longer tracked")
            }),
        );
        attached
    }

    fn attach(&mut self, message: &mut Message, paths: &[String]) -> Attached {
        let mut attached = Attached::default();
        let mut room = self.budget().map_or(usize::MAX, |budget| {
            (budget as f64 * TRACKED_SHARE) as usize
        });
        for path in paths {
            let Some(position) = self
                .state
                .tracked
                .iter()
                .position(|file| file.path == *path)
            else {
                continue;
            };
            let mode = self.state.tracked[position].mode;
            let snapshot = match self.fitting_snapshot(path, mode, room) {
                Ok(snapshot) => snapshot,
                Err(warning) => {
                    attached.warnings.push(warning);
                    continue;
                }
            };
            let block = snapshot.block();
            room = room.saturating_sub(self.counter.text(&block));
            push_block(message, block);
            self.state.tracked[position].hash = Some(snapshot.hash.clone());
            attached.paths.push(path.clone());
            if let Ok(metadata) = std::fs::metadata(self.root.join(path)) {
                self.seen
                    .insert(path.clone(), (metadata.len(), metadata.modified().ok()));
            }
        }
        attached
    }

    /// The snapshot of `path` in `mode`, or as an outline when the full text does not fit
    /// `room` tokens.
    fn fitting_snapshot(
        &self,
        path: &str,
        mode: TrackMode,
        room: usize,
    ) -> Result<Snapshot, String> {
        let outliner = self.outliner.as_deref();
        let snapshot = tracked::snapshot(&self.root, path, mode, outliner)
            .map_err(|error| error.to_string())?;
        if self.counter.text(&snapshot.block()) <= room {
            return Ok(snapshot);
        }
        if snapshot.mode == TrackMode::Full {
            let mut outline = tracked::snapshot(&self.root, path, TrackMode::Outline, outliner)
                .map_err(|error| error.to_string())?;
            if self.counter.text(&outline.block()) <= room {
                outline.note =
                    Some("too large for the context window in full; outline shown".into());
                return Ok(outline);
            }
        }
        Err(format!(
            "`{path}` is too large for the context window and was not added; track a smaller \
             file or use outline mode"
        ))
    }
}

/// Adds a text block after the message's tool results (before the user's own text).
fn push_block(message: &mut Message, text: String) {
    let position = message
        .content
        .iter()
        .rposition(|block| matches!(block, ContentBlock::ToolResult(_)))
        .map_or(0, |index| index + 1);
    let position = position.max(
        message
            .content
            .iter()
            .rposition(|block| matches!(block, ContentBlock::Text { text } if tracked::is_snapshot(text) || text.starts_with(HONE_NOTE_PREFIX)))
            .map_or(0, |index| index + 1),
    );
    message
        .content
        .insert(position, ContentBlock::Text { text });
}
