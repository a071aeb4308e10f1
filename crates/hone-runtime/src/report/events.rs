//! One-line notices of the session events a line-oriented front end reports on stderr.

/// One line telling the user about a context event (compaction, tracked files).
pub fn notice(event: &hone_api::Event) -> Option<String> {
    match event {
        hone_api::Event::ContextCompacted {
            before_tokens,
            after_tokens,
            method,
        } => Some(format!(
            "hone: context compacted ({}): ~{before_tokens} → ~{after_tokens} tokens",
            match method {
                hone_api::CompactionMethod::Model => "summary by the model",
                hone_api::CompactionMethod::Rules => "summary by rules",
            }
        )),
        hone_api::Event::FilesTracked {
            files,
            unmatched,
            skipped,
            ..
        } => {
            let tokens: u64 = files.iter().map(|file| file.tokens).sum();
            let mut line = format!("hone: tracking {} file(s), ~{tokens} tokens", files.len());
            for pattern in unmatched {
                line.push_str(&format!("; `{pattern}` matches no file"));
            }
            for reason in skipped {
                line.push_str(&format!("; skipped {reason}"));
            }
            Some(line)
        }
        hone_api::Event::ContextLocalized { items, tokens } => Some(format!(
            "hone: attached {} · ~{tokens} tokens",
            items
                .iter()
                .map(hone_api::LocalizedItem::describe)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        hone_api::Event::TurnStep { task, guided } => {
            hone_core::step_notice(*task, *guided).map(|line| format!("hone: {line}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_files_name_their_tokens_and_what_matched_nothing() {
        let event = hone_api::Event::FilesTracked {
            files: vec![hone_api::TrackedInfo {
                path: "src/lib.rs".into(),
                mode: hone_api::TrackMode::Full,
                tokens: 120,
            }],
            added: vec![],
            removed: vec![],
            unmatched: vec!["*.zig".into()],
            skipped: vec![],
        };
        assert_eq!(
            notice(&event).as_deref(),
            Some("hone: tracking 1 file(s), ~120 tokens; `*.zig` matches no file")
        );
        assert_eq!(notice(&hone_api::Event::TurnStarted { turn: 1 }), None);
    }
}
