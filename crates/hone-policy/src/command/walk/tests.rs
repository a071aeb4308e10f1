use super::*;

fn leaves(source: &str) -> Vec<Leaf> {
    analyse(&RuleSet::default(), None, source).leaves
}

#[test]
fn commands_that_ask_because_of_their_words_can_be_granted() {
    let found = leaves("cargo test && find . -exec true {} +");
    assert!(
        found
            .iter()
            .all(|leaf| leaf.class != CommandClass::Ask || leaf.grantable)
    );
}

#[test]
fn commands_that_ask_because_of_their_context_cannot_be_granted() {
    for source in [
        "cargo test > log",
        "PATH=. cargo test",
        "$TOOL test",
        "bash -c \"$S\"",
    ] {
        let found = leaves(source);
        assert!(
            found.iter().all(|leaf| !leaf.grantable),
            "{source}: {found:?}"
        );
    }
}

#[test]
fn group_redirections_apply_to_every_command_inside() {
    let found = leaves("(ls; pwd) > out");
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|leaf| leaf.class == CommandClass::Ask));
}

#[test]
fn a_download_taints_every_later_stage_that_runs_its_input() {
    let found = leaves("curl x | grep y | sh");
    let classes: Vec<CommandClass> = found.iter().map(|leaf| leaf.class).collect();
    assert_eq!(
        classes,
        [CommandClass::Ask, CommandClass::Allow, CommandClass::Deny]
    );
    assert!(found[2].reason.starts_with("`curl x | sh` is denied"));
}

#[test]
fn loop_headers_are_not_commands() {
    let found = leaves("for x in a b; do echo $x; done");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].text, "echo $x");
}
