//! `hone sessions rewind ID [N]`: a saved session's prompts, or the session taken back to
//! before prompt N (files and conversation), without a model.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use hone_protocol::HoneError;
use hone_runtime::rewind::{RewindFiles, RewindOptions, RewindTarget};
use hone_runtime::{Runtime, RuntimeOptions, Unattended};

use crate::cli::GlobalArgs;

/// `hone sessions rewind`.
#[derive(Debug, Args)]
pub struct RewindArgs {
    /// The session id, a unique start of it, or `last`.
    pub id: String,

    /// The prompt to go back to before (its number in the list); without it the prompts
    /// are listed.
    #[arg(value_name = "N")]
    pub prompt: Option<u32>,

    /// Go on in a new session that ends before the prompt; the original keeps every message.
    #[arg(long)]
    pub fork: bool,

    /// Leave the files as they are: only the conversation goes back.
    #[arg(long)]
    pub keep_files: bool,
}

/// Runs `hone sessions rewind`: exit 0 when rewound (or listed), 2 for a prompt that does
/// not exist, 3 when a file changed since the session's edit (nothing is changed then).
pub(crate) fn run(global: &GlobalArgs, args: &RewindArgs) -> Result<ExitCode, HoneError> {
    let options =
        RuntimeOptions::from_process(crate::project_dir(global)?, crate::overrides(global));
    let runtime = Runtime::open(options, Arc::new(Unattended))?;
    let Some(prompt) = args.prompt else {
        let points = runtime.rewind_points(&args.id)?;
        if points.is_empty() {
            eprintln!("session {} has no prompt to rewind to", args.id);
        }
        for point in points {
            let line = point.text.lines().next().unwrap_or_default();
            let edits = match point.edits_since {
                0 => String::new(),
                count => format!("  ({count} edit(s) since)"),
            };
            println!(
                "{:>3}  {}{edits}",
                point.prompt,
                hone_api::display::line(line)
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    let options = RewindOptions {
        files: if args.keep_files {
            RewindFiles::Keep
        } else {
            RewindFiles::Restore
        },
        target: if args.fork {
            RewindTarget::Fork
        } else {
            RewindTarget::InPlace
        },
    };
    let rewound = runtime.rewind(&args.id, prompt, options)?;
    for entry in &rewound.undone {
        eprintln!("undone: {}", entry.summary);
    }
    match &rewound.forked_from {
        Some(from) => eprintln!(
            "forked {from} into session {} before prompt {prompt}",
            rewound.session_id
        ),
        None => eprintln!(
            "rewound session {} to before prompt {prompt}",
            rewound.session_id
        ),
    }
    // The prompt goes to stdout, to edit and send again (`hone exec --resume ID`).
    println!("{}", rewound.text);
    Ok(ExitCode::SUCCESS)
}
