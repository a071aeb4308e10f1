//! Localisation and the guided flow against a mock model and a mock localizer.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod guided_support;

use guided_support::*;

#[tokio::test]
async fn located_code_is_attached_announced_and_counts_as_read() {
    let guidance = Guidance {
        localize: LocalizeMode::On,
        flow: FlowMode::Agent,
        ..Guidance::default()
    };
    let mut h = harness(
        PromptProfile::Full,
        guidance,
        RoleModels::default(),
        vec![
            Reply::new().tool_call(
                "edit_file",
                json!({"path": "src/math.ts", "old_text": "a - b", "new_text": "a + b"}),
            ),
            Reply::new().text("Fixed."),
        ],
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(
        localized(&events),
        ["src/math.ts (whole file, matches \"add\")"]
    );
    let first = h.request(0).to_string();
    assert!(
        first.contains("1│ export function add(a: number, b: number): number {"),
        "{first}"
    );
    assert!(first.contains("2│   return a - b;"), "{first}");
    assert!(
        offers_tools(&h.request(0)),
        "the agent flow keeps its tools"
    );
    assert_eq!(step(&events), None, "no guided step in the agent flow");
    // The edit right after localisation is not refused for want of a read.
    assert_eq!(
        std::fs::read_to_string(h.root.join("src/math.ts")).unwrap(),
        MATH_TS.replace("a - b", "a + b")
    );
    assert!(
        h.localizer
            .asked
            .lock()
            .unwrap()
            .iter()
            .any(|text| text == "add")
    );
    // The system prompt stays free of the attachment (stable prefix).
    let system = h.request(0)["messages"][0].to_string();
    assert!(!system.contains("return a - b"), "{system}");
}

#[tokio::test]
async fn localisation_off_attaches_nothing() {
    let guidance = Guidance {
        localize: LocalizeMode::Off,
        flow: FlowMode::Agent,
        ..Guidance::default()
    };
    let mut h = harness(
        PromptProfile::Compact,
        guidance,
        RoleModels::default(),
        vec![Reply::new().text("ok")],
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert!(localized(&events).is_empty());
    assert!(!h.request(0).to_string().contains("return a - b"));
    assert!(h.localizer.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_guided_change_asks_the_coder_for_labelled_blocks_without_tools() {
    let roles = RoleModels {
        coder: Some(RoleModel::named("coder-model")),
        ..RoleModels::default()
    };
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        roles,
        vec![Reply::new().text(
            "```ts src/math.ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```",
        )],
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(step(&events), Some((Some(TaskKind::Change), true)));
    let request = h.request(0);
    assert!(!offers_tools(&request), "{request}");
    assert_eq!(request["model"], "coder-model");
    let text = request.to_string();
    // No tools in the step, so the code comes without line numbers.
    assert!(
        text.contains(
            "```ts\\nexport function add(a: number, b: number): number {\\n  return a - b;"
        ),
        "{text}"
    );
    assert!(!text.contains("2│"), "{text}");
    assert!(text.contains("```ts src/math.ts\\n"), "{text}");
    assert!(text.contains("one fenced code block per file"), "{text}");
    // Code first, then the request, then the instruction.
    let code = text.find("return a - b").unwrap();
    let ask = text.find("subtracts instead").unwrap();
    let instruction = text.find("one fenced code block").unwrap();
    assert!(code < ask && ask < instruction, "{text}");
}

#[tokio::test]
async fn a_guided_explanation_gets_the_code_and_the_session_model() {
    let roles = RoleModels {
        coder: Some(RoleModel::named("coder-model")),
        ..RoleModels::default()
    };
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        roles,
        vec![Reply::new().text("It subtracts.")],
    )
    .await;
    let events = h.turn("What does the add function return?").await;
    assert_eq!(step(&events), Some((Some(TaskKind::Explain), true)));
    let request = h.request(0);
    assert!(!offers_tools(&request));
    assert_eq!(request["model"], "session-model");
    assert!(
        request
            .to_string()
            .contains("Answer the question from the code above")
    );
}

#[tokio::test]
async fn a_change_whose_code_is_not_found_runs_the_agent_loop() {
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        vec![Reply::new().text("Which file?")],
    )
    .await;
    let events = h.turn("Fix the multiply helper").await;
    assert_eq!(step(&events), Some((Some(TaskKind::Change), false)));
    assert!(localized(&events).is_empty());
    assert!(offers_tools(&h.request(0)));
}

#[tokio::test]
async fn the_planner_classifies_what_the_rules_cannot() {
    let roles = RoleModels {
        planner: Some(RoleModel::named("planner-model")),
        ..RoleModels::default()
    };
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        roles,
        vec![
            Reply::new().text("Change"),
            Reply::new().text("```ts src/math.ts\n```"),
        ],
    )
    .await;
    let events = h.turn("the add function and its callers").await;
    assert_eq!(step(&events), Some((Some(TaskKind::Change), true)));
    let question = h.request(0);
    assert_eq!(question["model"], "planner-model");
    assert!(question.to_string().contains("exactly one word"));
    assert!(!offers_tools(&h.request(1)));
    assert!(
        h.request(1)
            .to_string()
            .contains("one fenced code block per file")
    );
}

#[tokio::test]
async fn without_a_planner_an_unclear_request_runs_the_agent_loop() {
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        vec![Reply::new().text("Looking.")],
    )
    .await;
    let events = h.turn("the add function and its callers").await;
    assert_eq!(step(&events), Some((None, false)));
    assert_eq!(h.server.requests().len(), 1);
    assert!(offers_tools(&h.request(0)));
    // The located code is still attached.
    assert!(h.request(0).to_string().contains("return a - b"));
}

/// A labelled block that keeps the file and adds `extra` after it (applies without a
/// grammar: nothing is lost).
#[tokio::test]
async fn an_applied_guided_change_ends_the_turn_without_a_narration_request() {
    let mut h = harness(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        vec![adding("// checked\n"), Reply::new().text("It adds now.")],
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 1);
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .ends_with("// checked\n")
    );
    // The next turn's history says what was applied, and ends with an assistant message.
    h.turn("What does add return?").await;
    let next = h.request(1).to_string();
    assert!(
        next.contains("applied as an edit: rewrote src/math.ts."),
        "{next}"
    );
    assert!(next.contains("Done: rewrote src/math.ts."), "{next}");
    assert!(
        !next.contains("answer the user in one or two sentences"),
        "{next}"
    );
}

#[tokio::test]
async fn a_failing_check_after_a_guided_change_is_repaired_with_the_file_shown() {
    let checks = hone_core::ChecksConfig {
        configured: vec![hone_core::ConfiguredCheck {
            target: hone_core::CheckTarget::Glob("src/*.ts".into()),
            commands: vec!["grep -q sub src/math.ts".into()],
        }],
        run_tests: false,
        ..hone_core::ChecksConfig::default()
    };
    let mut h = guided_harness(
        vec![
            adding("// first try\n"),
            adding("// first try\nexport function sub() {}\n"),
        ],
        checks,
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 2);
    let repair = h.request(1).to_string();
    assert!(repair.contains("repair round 1 of 3"), "{repair}");
    assert!(repair.contains("$ grep -q sub src/math.ts"), "{repair}");
    assert!(
        repair.contains("src/math.ts as it is now:\\n```ts src/math.ts\\nexport function add"),
        "{repair}"
    );
    assert!(!offers_tools(&h.request(1)), "{repair}");
    // The first answer uses the provider's sampling; the repair samples wider.
    assert!(h.request(0).get("temperature").is_none());
    assert!((h.request(1)["temperature"].as_f64().unwrap() - 0.8).abs() < 1e-6);
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}

#[tokio::test]
async fn a_guided_bug_report_runs_the_tests_first_and_shows_the_failure() {
    let mut h = harness_with_sub_test(vec![adding("export function sub() {}\n")]).await;
    let events = h
        .turn("add(2, 3) gives -1 instead of 5 and sub is missing in src/math.ts. Fix it.")
        .await;
    let ran_first = events.iter().position(
        |event| matches!(event, Event::ToolRequested { name, .. } if name == "run_tests"),
    );
    let asked = events
        .iter()
        .position(|event| matches!(event, Event::TurnStep { .. }));
    assert!(ran_first.is_some() && ran_first < asked, "{events:?}");
    let first = h.request(0).to_string();
    assert!(
        first.contains("hone ran them before this request"),
        "{first}"
    );
    assert!(first.contains("AssertionError"), "{first}");
    // The fix makes the tests pass: the turn ends after one request.
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 1);
}

/// A change that names code runs the tests first: failing tests that name that code state
/// what it should do.
#[tokio::test]
async fn a_change_naming_code_that_failing_tests_name_runs_them_first() {
    let mut h = harness_with_sub_test(vec![adding("export function sub() {}\n")]).await;
    h.turn("Add a sub function next to add in src/math.ts")
        .await;
    let first = h.request(0).to_string();
    assert!(first.contains("hone ran them"), "{first}");
    assert!(first.contains("test_sub"), "{first}");
}

/// Failing tests that name none of the code a request names are not the request's: the
/// model is not told to fix them.
#[tokio::test]
async fn failing_tests_that_name_none_of_the_requested_code_are_left_out() {
    let mut h = harness_with_sub_test(vec![adding("export function mul() {}\n")]).await;
    h.turn("Add a mul function next to add in src/math.ts")
        .await;
    let first = h.request(0).to_string();
    assert!(!first.contains("hone ran them"), "{first}");
}

#[tokio::test]
async fn a_new_file_answered_without_its_label_is_written_to_the_file_asked_for() {
    let mut h = guided_harness(vec![Reply::new().text(
            "```ts\nexport function divide(a: number, b: number): number {\n  return a / b;\n}\n```",
        )], hone_core::ChecksConfig::disabled()).await;
    let events = h.turn("Create src/divide.ts with a divide function").await;
    assert_eq!(step(&events), Some((Some(TaskKind::Create), true)));
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 1);
    assert!(
        std::fs::read_to_string(h.root.join("src/divide.ts"))
            .unwrap()
            .contains("return a / b;")
    );
}

/// The README's quick-start request asks for a change and a run: it takes the guided change
/// step (the checks after it run the tests), not the agent loop of a run.
#[tokio::test]
async fn a_fix_and_run_request_takes_the_guided_change_step() {
    let mut h = harness_with_sub_test(vec![adding("export function sub() {}\n")]).await;
    let events = h
        .turn("The add() function in src/math.ts is wrong and sub is missing; fix it and run the tests")
        .await;
    assert_eq!(step(&events), Some((Some(TaskKind::Change), true)));
    assert!(!offers_tools(&h.request(0)));
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}
