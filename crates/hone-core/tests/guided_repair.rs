//! The guided flow's own moves: renames done by hone without the model, and repairs when a
//! small model answers failing checks with the code that fails them.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod guided_support;

use guided_support::*;

fn grep_check(pattern: &str) -> hone_core::ChecksConfig {
    hone_core::ChecksConfig {
        configured: vec![hone_core::ConfiguredCheck {
            target: hone_core::CheckTarget::Glob("src/*.ts".into()),
            commands: vec![format!("grep -q '{pattern}' src/math.ts")],
        }],
        run_tests: false,
        ..hone_core::ChecksConfig::default()
    }
}

#[tokio::test]
async fn a_rename_is_done_by_hone_in_every_file_without_asking_the_model() {
    let mut h = harness_with(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        Vec::new(),
        ApprovalMode::AutoEdit,
        grep_check("plus"),
    )
    .await;
    std::fs::write(
        h.root.join("src/main.ts"),
        "import { add } from './math';\nconsole.log(add(1, 2), addAll);\n",
    )
    .unwrap();
    let events = h
        .turn("Rename the function `add` to `plus` everywhere in the project.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 0);
    assert!(
        events.iter().any(
            |event| matches!(event, Event::ToolRequested { name, .. } if name == "rename_symbol")
        ),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::ChecksCompleted { passed: true, .. })),
        "{events:?}"
    );
    let math = std::fs::read_to_string(h.root.join("src/math.ts")).unwrap();
    assert!(math.starts_with("export function plus(a: number"), "{math}");
    assert_eq!(
        std::fs::read_to_string(h.root.join("src/main.ts")).unwrap(),
        "import { plus } from './math';\nconsole.log(plus(1, 2), addAll);\n"
    );
}

#[tokio::test]
async fn a_rename_of_a_name_the_project_lacks_goes_to_the_model() {
    let mut h = harness_with(
        PromptProfile::Compact,
        Guidance::default(),
        RoleModels::default(),
        vec![Reply::new().text("There is no `missing` in this project.")],
        ApprovalMode::AutoEdit,
        hone_core::ChecksConfig::disabled(),
    )
    .await;
    let events = h
        .turn("Rename `missing` to `found` and fix add in src/math.ts")
        .await;
    // The model changed nothing: the turn says so.
    assert_eq!(ended(&events), Some(TurnEnd::NoChange), "{events:?}");
    assert_eq!(h.server.request_count(), 1);
    assert!(
        !events.iter().any(
            |event| matches!(event, Event::ToolRequested { name, .. } if name == "rename_symbol")
        ),
        "{events:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("src/math.ts")).unwrap(),
        MATH_TS
    );
}

#[tokio::test]
async fn the_failing_code_sent_again_gets_a_fresh_attempt_sampled_wider() {
    let mut h = guided_harness(
        vec![
            adding("// first try\n"),
            adding("// first try\n"),
            adding("// first try\nexport function sub() {}\n"),
        ],
        grep_check("sub"),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 3);
    // The first repair round shows the failing code; the fresh attempt leaves the failed
    // answers out and keeps the request and what the checks said.
    assert!(h.request(1).to_string().contains("first try"));
    let again = h.request(2).to_string();
    assert!(
        again.contains("Your earlier answers to this request were applied"),
        "{again}"
    );
    assert!(again.contains("repair round 2 of 3"), "{again}");
    assert!(!again.contains("first try"), "{again}");
    assert!(again.contains(FIX_REQUEST), "{again}");
    let request = h.request(2);
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|message| message["role"].as_str())
        .collect();
    assert!(!roles.contains(&"assistant"), "{roles:?}");
    assert!((h.request(1)["temperature"].as_f64().unwrap() - 0.8).abs() < 1e-6);
    assert!((h.request(2)["temperature"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}

#[tokio::test]
async fn the_same_failing_code_every_round_ends_with_the_checks_failing() {
    let mut h = guided_harness(
        vec![
            adding("// first try\n"),
            adding("// first try\n"),
            adding("// first try\n"),
            adding("// first try\n"),
            adding("// first try\n"),
        ],
        grep_check("sub"),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::ChecksFailed), "{events:?}");
    // The first answer, then one request per repair round: no endless loop.
    assert_eq!(h.server.request_count(), 4);
}

#[tokio::test]
async fn a_guided_change_answered_without_a_change_is_asked_for_the_code_again() {
    let mut h = guided_harness(
        vec![
            Reply::new().text("The add function looks correct to me."),
            adding("export function sub() {}\n"),
        ],
        hone_core::ChecksConfig::disabled(),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 2);
    let again = h.request(1).to_string();
    assert!(again.contains("Your answer changed no file"), "{again}");
    // The answer that changed nothing is left out, so the model does not repeat it.
    assert!(!again.contains("looks correct to me"), "{again}");
    assert!(again.contains(FIX_REQUEST), "{again}");
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}

/// A check that prints the file's last line, so each answer fails differently.
fn tail_and_grep_check(pattern: &str) -> hone_core::ChecksConfig {
    let mut config = grep_check(pattern);
    config.configured[0].commands = vec![format!(
        "tail -n 1 src/math.ts; grep -q '{pattern}' src/math.ts"
    )];
    config
}

/// Three answers to the fix request, each adding a line, the last one passing `check`;
/// returns the three requests the model got.
async fn three_tries(check: hone_core::ChecksConfig) -> Vec<String> {
    let mut h = guided_harness(
        vec![
            adding("// one\n"),
            adding("// one\n// two\n"),
            adding("// one\n// two\nexport function sub() {}\n"),
        ],
        check,
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 3);
    (0..3).map(|index| h.request(index).to_string()).collect()
}

#[tokio::test]
async fn an_answer_failing_like_the_last_one_gets_a_fresh_attempt() {
    let requests = three_tries(grep_check("sub")).await;
    let repair = &requests[1];
    assert!(repair.contains("repair round 1 of 3"), "{repair}");
    assert!(repair.contains("// one"), "{repair}");
    let fresh = &requests[2];
    assert!(
        fresh.contains("were applied and the checks still fail"),
        "{fresh}"
    );
    assert!(
        !fresh.contains("// one") && !fresh.contains("// two"),
        "{fresh}"
    );
    // It ends with the step's instruction, as the first request did.
    assert!(
        fresh.contains("with a different fix.\\n\\n[hone] Answer with the fix only"),
        "{fresh}"
    );
}

#[tokio::test]
async fn an_answer_that_changes_what_fails_is_repaired_in_place() {
    let requests = three_tries(tail_and_grep_check("sub")).await;
    let repair = &requests[2];
    assert!(repair.contains("repair round 2 of 3"), "{repair}");
    assert!(
        !repair.contains("were applied and the checks still fail"),
        "{repair}"
    );
    // The history is whole: both earlier answers are in the request.
    assert!(
        repair.contains("// one") && repair.contains("// two"),
        "{repair}"
    );
}

#[tokio::test]
async fn a_guided_change_never_answered_with_code_ends_as_a_repeated_failure() {
    let prose = || Reply::new().text("The add function looks correct to me.");
    let mut h = guided_harness(
        vec![prose(), prose(), prose(), prose(), prose()],
        hone_core::ChecksConfig::disabled(),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    // Asked for code, it changed nothing: not a silent "answered".
    assert_eq!(ended(&events), Some(TurnEnd::RepeatedFailure), "{events:?}");
    // Each retry used a repair round: the first answer and max_repair_rounds (3) more.
    assert_eq!(h.server.request_count(), 4);
    assert!(
        h.request(3)
            .to_string()
            .contains("Your answer changed no file")
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("src/math.ts")).unwrap(),
        MATH_TS
    );
}

#[tokio::test]
async fn retries_of_answers_that_change_nothing_share_the_repair_rounds() {
    let mut h = guided_harness(
        vec![
            Reply::new().text("It looks right."),
            Reply::new().text("Still right."),
        ],
        hone_core::ChecksConfig {
            max_repair_rounds: 1,
            ..hone_core::ChecksConfig::disabled()
        },
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::RepeatedFailure), "{events:?}");
    assert_eq!(h.server.request_count(), 2);
}

#[tokio::test]
async fn code_that_cannot_be_applied_gets_a_fresh_attempt_without_it() {
    // The block leaves out the file's code: refused, nothing lost.
    let partial = Reply::new().text("```ts src/math.ts\nexport function sub() {}\n```");
    let mut h = guided_harness(
        vec![partial, adding("export function sub() {}\n")],
        hone_core::ChecksConfig::disabled(),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    let again = h.request(1);
    let text = again.to_string();
    assert!(text.contains("not applied"), "{text}");
    assert!(text.contains(FIX_REQUEST), "{text}");
    let roles: Vec<&str> = again["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|message| message["role"].as_str())
        .collect();
    assert!(!roles.contains(&"assistant"), "{roles:?}");
    assert!((again["temperature"].as_f64().unwrap() - 0.8).abs() < 1e-6);
}

#[tokio::test]
async fn an_answer_leaving_the_tests_failing_as_before_gets_a_fresh_attempt() {
    let mut h = harness_with_sub_test(vec![
        adding("// looked at it\n"),
        adding("// looked at it\nexport function sub() {}\n"),
    ])
    .await;
    let events = h
        .turn("add(2, 3) works but sub is missing in src/math.ts, so test_sub fails. Fix it.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 2);
    // The first answer changed the file but not what fails: the second request asks
    // afresh, without it, instead of repairing it in place.
    let again = h.request(1);
    let text = again.to_string();
    assert!(text.contains("Your earlier answers"), "{text}");
    assert!(!text.contains("```ts src/math.ts\\nexport"), "{text}");
}

/// A small model answering its failing change with words only (here a hone line said back)
/// gets a repair round, not the end of the turn.
#[tokio::test]
async fn an_answer_without_code_while_the_checks_fail_takes_a_repair_round() {
    let mut h = guided_harness(
        vec![
            adding("// first try\n"),
            Reply::new().text("[hone] The checks failed after your change."),
            adding("// first try\nexport function sub() {}\n"),
        ],
        grep_check("sub"),
    )
    .await;
    let events = h.turn(FIX_REQUEST).await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 3);
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}

#[tokio::test]
async fn a_guided_attempt_that_fails_its_checks_is_rolled_back_and_asked_afresh() {
    let checks = hone_core::ChecksConfig {
        run_tests: true,
        max_repair_rounds: 0,
        attempts: 2,
        ..hone_core::ChecksConfig::default()
    };
    let sub = "export function sub(a: number, b: number): number {\n  return a - b;\n}\n";
    let mut h = guided_harness(
        vec![adding("export function minus() {}\n"), adding(sub)],
        checks,
    )
    .await;
    std::fs::write(
        h.root.join("test_math.py"),
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        with open('src/math.ts') as f:\n            self.assertTrue('function sub' in f.read())\n",
    )
    .unwrap();
    let events = h
        .turn("The tests fail: sub is missing next to add() in src/math.ts. Fix it.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    let attempts: Vec<(u32, bool, Vec<String>)> = events
        .iter()
        .filter_map(|event| match event {
            Event::AttemptCompleted {
                attempt,
                passed,
                rolled_back,
                ..
            } => Some((*attempt, *passed, rolled_back.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        attempts,
        [
            (1, false, vec!["src/math.ts".to_string()]),
            (2, true, Vec::new())
        ]
    );
    // The first answer is gone: the file holds the original code and the second answer.
    let math = std::fs::read_to_string(h.root.join("src/math.ts")).unwrap();
    assert_eq!(math, format!("{MATH_TS}{sub}"));
    // The fresh attempt asked the request again, without the failed answer.
    let fresh = h.request(1).to_string();
    assert!(fresh.contains("rolled it back"), "{fresh}");
    assert!(!fresh.contains("minus"), "{fresh}");
    assert!(h.request(1)["temperature"].as_f64().is_some());
}

/// A model that writes the code back unchanged until its step ends gets a fresh attempt
/// when a check reproduced the request: the failure it left is still there.
#[tokio::test]
async fn an_attempt_that_changed_nothing_is_followed_by_a_fresh_one() {
    let checks = hone_core::ChecksConfig {
        run_tests: true,
        max_repair_rounds: 0,
        attempts: 2,
        ..hone_core::ChecksConfig::default()
    };
    let sub = "export function sub(a: number, b: number): number {\n  return a - b;\n}\n";
    let mut h = guided_harness(vec![adding(""), adding(sub)], checks).await;
    std::fs::write(
        h.root.join("test_math.py"),
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        with open('src/math.ts') as f:\n            self.assertTrue('function sub' in f.read())\n",
    )
    .unwrap();
    let events = h
        .turn("The tests fail: sub is missing next to add() in src/math.ts. Fix it.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    let attempts: Vec<(u32, bool, bool)> = events
        .iter()
        .filter_map(|event| match event {
            Event::AttemptCompleted {
                attempt,
                passed,
                unchanged,
                ..
            } => Some((*attempt, *passed, *unchanged)),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [(1, false, true), (2, true, false)]);
    // The fresh attempt was told what still fails.
    let second = h.request(1).to_string();
    assert!(second.contains("changed no file"), "{second}");
    assert!(second.contains("False is not true"), "{second}");
    let math = std::fs::read_to_string(h.root.join("src/math.ts")).unwrap();
    assert_eq!(math, format!("{MATH_TS}{sub}"));
}

/// A small model asked for a change the failing tests show "fixes" the tests too: hone
/// leaves the tests as they are, and when only they changed, asks for the code.
#[tokio::test]
async fn the_failing_tests_that_show_a_request_are_left_as_they_are() {
    const WEAKEN: &str = "test_math.py\n<<<<<<< SEARCH\n'function sub' in f.read()\n=======\nTrue\n>>>>>>> REPLACE\n";
    let tests_only = Reply::new().text(WEAKEN);
    let both = Reply::new().text(&format!(
        "```ts src/math.ts\n{MATH_TS}export function sub() {{}}\n```\n\n{WEAKEN}"
    ));
    let mut h = harness_with_sub_test(vec![tests_only, both]).await;
    let original = std::fs::read_to_string(h.root.join("test_math.py")).unwrap();
    let events = h
        .turn("add(2, 3) works but sub is missing in src/math.ts, so test_sub fails. Fix it.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert_eq!(h.server.request_count(), 2);
    let again = h.request(1).to_string();
    assert!(
        again.contains("Your answer changed only test_math.py"),
        "{again}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("test_math.py")).unwrap(),
        original
    );
    assert!(
        std::fs::read_to_string(h.root.join("src/math.ts"))
            .unwrap()
            .contains("export function sub() {}")
    );
}

/// A request that names the test file may change it.
#[tokio::test]
async fn a_test_file_the_request_names_may_change() {
    let mut h = harness_with_sub_test(vec![
        Reply::new().text(
            "test_math.py\n<<<<<<< SEARCH\n'function sub'\n=======\n'function add'\n>>>>>>> REPLACE\n",
        ),
        Reply::new().text("The test now checks for add."),
    ])
    .await;
    let events = h
        .turn("test_sub in test_math.py fails because the test is wrong: make test_math.py pass.")
        .await;
    assert_eq!(ended(&events), Some(TurnEnd::Answered), "{events:?}");
    assert!(
        std::fs::read_to_string(h.root.join("test_math.py"))
            .unwrap()
            .contains("'function add' in f.read()")
    );
}
