//! Notices and the undo journal on Redis.

use hone_memory::{EditState, JournalEntry, MemoryError, Notice, now_ms};
use hone_tools::edit::AppliedEdit;
use serde::{Deserialize, Serialize};

use super::{RedisSessions, scripts};

/// Notices kept per project, as the SQLite store keeps them.
const NOTICES_KEPT: i64 = 50;

#[derive(Serialize, Deserialize)]
struct StoredNotice {
    session_id: String,
    text: String,
    created_ms: i64,
}

pub(crate) fn push_notice(
    store: &RedisSessions,
    project: &str,
    session_id: &str,
    text: &str,
) -> Result<(), MemoryError> {
    let notice = serde_json::to_string(&StoredNotice {
        session_id: session_id.to_string(),
        text: text.to_string(),
        created_ms: now_ms(),
    })
    .map_err(|error| store.decode("notice".to_string(), error))?;
    let key = store.keys.notices(project);
    store.run(|connection| {
        redis::pipe()
            .atomic()
            .rpush(&key, &notice)
            .ignore()
            .ltrim(&key, -(NOTICES_KEPT as isize), -1)
            .ignore()
            .query::<()>(connection)
    })
}

pub(crate) fn take_notices(
    store: &RedisSessions,
    project: &str,
) -> Result<Vec<Notice>, MemoryError> {
    let key = store.keys.notices(project);
    let (texts,): (Vec<String>,) = store.run(|connection| {
        redis::pipe()
            .atomic()
            .lrange(&key, 0, -1)
            .del(&key)
            .ignore()
            .query(connection)
    })?;
    texts
        .iter()
        .map(|text| {
            let stored: StoredNotice = serde_json::from_str(text)
                .map_err(|error| store.decode(format!("notice of {project}"), error))?;
            Ok(Notice {
                session_id: stored.session_id,
                text: stored.text,
                created_ms: stored.created_ms,
            })
        })
        .collect()
}

fn state_name(state: EditState) -> &'static str {
    match state {
        EditState::Pending => "pending",
        EditState::Applied => "applied",
        EditState::Undone => "undone",
    }
}

fn state_from(name: &str) -> Option<EditState> {
    match name {
        "pending" => Some(EditState::Pending),
        "applied" => Some(EditState::Applied),
        "undone" => Some(EditState::Undone),
        _ => None,
    }
}

pub(crate) fn insert_edit(
    store: &RedisSessions,
    project: &str,
    session_id: &str,
    edit: &AppliedEdit,
    state: EditState,
) -> Result<i64, MemoryError> {
    let json = serde_json::to_string(edit)
        .map_err(|error| store.decode(format!("edit `{}`", edit.summary), error))?;
    let meta = format!("{} {} {session_id} {project}", state_name(state), now_ms());
    let keys = [
        store.keys.journal_seq(),
        store.keys.journal(),
        store.keys.journal_meta(),
        store.keys.project_journal(project),
        store.keys.session_journal(session_id),
    ];
    store.script(scripts::INSERT_EDIT, &keys, &[json, meta])
}

pub(crate) fn prune(store: &RedisSessions, project: &str, keep: usize) -> Result<(), MemoryError> {
    let keys = [
        store.keys.project_journal(project),
        store.keys.journal(),
        store.keys.journal_meta(),
    ];
    let args = [keep.max(1).to_string(), store.keys.prefix.clone()];
    let _: i64 = store.script(scripts::PRUNE, &keys, &args)?;
    Ok(())
}

pub(crate) fn mark_applied(
    store: &RedisSessions,
    seq: i64,
    keep: usize,
) -> Result<(), MemoryError> {
    let args = ["applied".to_string(), now_ms().to_string(), seq.to_string()];
    let project: Option<String> =
        store.script(scripts::SET_EDIT_STATE, &[store.keys.journal_meta()], &args)?;
    match project {
        Some(project) => prune(store, &project, keep),
        None => Ok(()),
    }
}

pub(crate) fn mark_undone(store: &RedisSessions, seqs: &[i64]) -> Result<(), MemoryError> {
    let mut args = vec!["undone".to_string(), String::new()];
    args.extend(seqs.iter().map(ToString::to_string));
    let _: Option<String> =
        store.script(scripts::SET_EDIT_STATE, &[store.keys.journal_meta()], &args)?;
    Ok(())
}

pub(crate) fn drop_edits(store: &RedisSessions, seqs: &[i64]) -> Result<(), MemoryError> {
    let mut args = vec![store.keys.prefix.clone()];
    args.extend(seqs.iter().map(ToString::to_string));
    let keys = [store.keys.journal(), store.keys.journal_meta()];
    let _: i64 = store.script(scripts::DROP_EDITS, &keys, &args)?;
    Ok(())
}

pub(crate) fn undo_stack(
    store: &RedisSessions,
    project: &str,
    depth: usize,
) -> Result<Vec<JournalEntry>, MemoryError> {
    let project_journal = store.keys.project_journal(project);
    let (journal, meta) = (store.keys.journal(), store.keys.journal_meta());
    let seqs: Vec<i64> = store.run(|connection| {
        redis::cmd("ZREVRANGE")
            .arg(&project_journal)
            .arg(0)
            .arg(-1)
            .query(connection)
    })?;
    if seqs.is_empty() || depth == 0 {
        return Ok(Vec::new());
    }
    // One transaction, so the entries and their states are read at one moment.
    let (metas, edits): (Vec<Option<String>>, Vec<Option<String>>) = store.run(|connection| {
        redis::pipe()
            .atomic()
            .cmd("HMGET")
            .arg(&meta)
            .arg(&seqs)
            .cmd("HMGET")
            .arg(&journal)
            .arg(&seqs)
            .query(connection)
    })?;
    let mut entries = Vec::new();
    for ((seq, meta), edit) in seqs.iter().zip(metas).zip(edits) {
        let (Some(meta), Some(edit)) = (meta, edit) else {
            continue;
        };
        let what = || format!("undo journal entry {seq}");
        let mut parts = meta.splitn(4, ' ');
        let (Some(state), Some(ms), Some(session_id)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(store.decode(what(), "malformed entry"));
        };
        let state = state_from(state)
            .ok_or_else(|| store.decode(what(), format!("unknown state `{state}`")))?;
        if state == EditState::Undone {
            continue;
        }
        let applied_ms = ms.parse().map_err(|error| store.decode(what(), error))?;
        let edit: AppliedEdit =
            serde_json::from_str(&edit).map_err(|error| store.decode(what(), error))?;
        entries.push(JournalEntry {
            seq: *seq,
            session_id: session_id.to_string(),
            edit,
            state,
            applied_ms,
        });
        if entries.len() == depth {
            break;
        }
    }
    Ok(entries)
}
