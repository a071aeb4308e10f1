//! Plan mode for `hone exec`: the model explores with read-only tools and writes a numbered
//! plan (`--plan`); the plan, as written or edited (`--plan-file`), is then carried out one
//! step per turn (`--approve-plan`), with the whole plan and its progress restated in every
//! step's request, so compaction never loses it, and a progress line per step
//! (`Step 3/5 ✓✓→○○`).

use std::path::Path;

use hone_protocol::HoneError;

/// What the model is told when it plans.
pub(crate) const PLAN_BRIEF: &str = "Plan mode: do not change anything yet. Explore the project \
with the read tools as far as you need, then answer with the plan only: a numbered list of small \
steps, one line each (`1. …`), in the order to do them, each one something that can be done and \
checked on its own. Name the files each step touches.";

/// The most steps a plan may have.
const MAX_STEPS: usize = 30;

/// Whether a step (or the planning turn) that ended with `exit_code` lets the plan go on:
/// answered, unverified, or no change (a step that only reads or runs the tests).
pub(crate) fn goes_on(exit_code: u8) -> bool {
    matches!(
        exit_code,
        0 | hone_runtime::UNVERIFIED | hone_runtime::NO_CHANGE
    )
}

/// The request that asks for a plan of `task`.
pub(crate) fn plan_request(task: &str) -> String {
    format!("{PLAN_BRIEF}\n\nTask: {task}")
}

/// The numbered steps of `plan` (`1. …`, `2) …`), in order; other lines are left out.
pub(crate) fn parse_steps(plan: &str) -> Vec<String> {
    plan.lines()
        .filter_map(|line| {
            let line = line.trim_start().trim_start_matches(['*', '-', '#', ' ']);
            let digits = line.find(|c: char| !c.is_ascii_digit())?;
            if digits == 0 {
                return None;
            }
            let rest = line[digits..].strip_prefix(['.', ')'])?;
            let text = rest.trim().trim_matches('*').trim();
            (!text.is_empty()).then(|| text.to_string())
        })
        .collect()
}

/// The steps of the plan in `path` (a plan `hone exec --plan` printed, maybe edited).
pub(crate) fn read_plan(path: &Path) -> Result<Vec<String>, HoneError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        HoneError::config(format!("cannot read the plan {}: {error}", path.display()))
    })?;
    checked(parse_steps(&text), &path.display().to_string())
}

/// `steps` when there are some and not too many.
pub(crate) fn checked(steps: Vec<String>, from: &str) -> Result<Vec<String>, HoneError> {
    if steps.is_empty() {
        return Err(HoneError::config(format!(
            "no numbered steps (`1. …`) in {from}: a plan is a numbered list"
        )));
    }
    if steps.len() > MAX_STEPS {
        return Err(HoneError::config(format!(
            "{from} has {} steps; a plan has at most {MAX_STEPS}",
            steps.len()
        )));
    }
    Ok(steps)
}

/// `Step 3/5 ✓✓→○○`: `done` steps finished, the next one running.
pub(crate) fn progress(done: usize, total: usize) -> String {
    let current = (done + 1).min(total);
    let marks: String = (0..total)
        .map(|at| match at.cmp(&done) {
            std::cmp::Ordering::Less => '✓',
            std::cmp::Ordering::Equal => '→',
            std::cmp::Ordering::Greater => '○',
        })
        .collect();
    format!("Step {current}/{total} {marks}")
}

/// The request for step `index` (from 0): the task, the whole plan with what is done, and
/// this step alone to do now.
pub(crate) fn step_request(task: &str, steps: &[String], index: usize) -> String {
    let mut text = format!(
        "We are carrying out an approved plan, one step at a time. {}.\n\nTask: {task}\n\nPlan:\n",
        progress(index, steps.len())
    );
    for (at, step) in steps.iter().enumerate() {
        let mark = match at.cmp(&index) {
            std::cmp::Ordering::Less => "[done]",
            std::cmp::Ordering::Equal => "[now]",
            std::cmp::Ordering::Greater => "[later]",
        };
        text.push_str(&format!("{}. {mark} {step}\n", at + 1));
    }
    text.push_str(&format!(
        "\nDo step {} now, and only that step: {}\nWhen it is done, say briefly what you changed.",
        index + 1,
        steps[index]
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_are_the_steps() {
        let plan = "Here is the plan:\n\n1. Read `src/a.rs`\n2) Add the check\n- 3. **Run the tests**\n\nThat is all.";
        assert_eq!(
            parse_steps(plan),
            ["Read `src/a.rs`", "Add the check", "Run the tests"]
        );
    }

    #[test]
    fn a_plan_without_numbered_steps_is_refused() {
        let error = checked(parse_steps("just do it"), "the answer").unwrap_err();
        assert!(error.message.contains("numbered"), "{}", error.message);
        let many: Vec<String> = (0..40).map(|at| format!("step {at}")).collect();
        assert!(checked(many, "plan.md").is_err());
    }

    #[test]
    fn progress_marks_done_current_and_later_steps() {
        assert_eq!(progress(2, 5), "Step 3/5 ✓✓→○○");
        assert_eq!(progress(0, 1), "Step 1/1 →");
        assert_eq!(progress(3, 3), "Step 3/3 ✓✓✓");
    }

    #[test]
    fn a_step_request_restates_the_plan() {
        let steps = vec!["one".to_string(), "two".to_string()];
        let text = step_request("the task", &steps, 1);
        assert!(text.contains("1. [done] one"), "{text}");
        assert!(text.contains("2. [now] two"), "{text}");
        assert!(text.contains("Do step 2 now"), "{text}");
        assert!(text.contains("Step 2/2 ✓→"), "{text}");
    }

    #[test]
    fn a_missing_plan_file_is_a_clear_error() {
        let error = read_plan(Path::new("/nonexistent/plan.md")).unwrap_err();
        assert!(error.message.contains("cannot read the plan"));
    }
}
