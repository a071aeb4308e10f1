//! Tests of the mention rules.

use super::*;

fn find<'a>(mentions: &'a [Mention], text: &str) -> &'a Mention {
    mentions
        .iter()
        .find(|mention| mention.text == text)
        .unwrap_or_else(|| panic!("no mention {text:?} in {mentions:?}"))
}

#[test]
fn paths_and_file_names_are_recognised() {
    let mentions = extract_mentions("Fix the bug in src/store.ts, then look at cart.ts.");
    assert_eq!(find(&mentions, "src/store.ts").kind, MentionKind::Path);
    assert_eq!(find(&mentions, "src/store.ts").names, ["src/store.ts"]);
    assert_eq!(find(&mentions, "cart.ts").kind, MentionKind::FileName);
    let dirs = extract_mentions("what is in crates/helper/ and ./lib/util.py?");
    assert_eq!(find(&dirs, "crates/helper/").kind, MentionKind::Path);
    assert_eq!(find(&dirs, "./lib/util.py").names, ["lib/util.py"]);
}

#[test]
fn urls_sentences_and_abbreviations_are_not_files() {
    let mentions = extract_mentions("See https://example.com/a.ts e.g. this. Done.");
    assert!(
        mentions
            .iter()
            .all(|m| m.kind != MentionKind::Path && m.kind != MentionKind::FileName),
        "{mentions:?}"
    );
}

#[test]
fn calls_name_their_function() {
    let mentions = extract_mentions("Why does average() return NaN? store.load(path) too");
    assert_eq!(find(&mentions, "average()").names, ["average"]);
    assert_eq!(find(&mentions, "average()").kind, MentionKind::Symbol);
    assert_eq!(find(&mentions, "store.load(path").names, ["load"]);
}

#[test]
fn camel_snake_and_quoted_identifiers_are_symbols() {
    let mentions =
        extract_mentions("ItemStore loses items; cart_total is off and `clamp` and 'lerp' too");
    for name in ["ItemStore", "cart_total", "clamp", "lerp"] {
        let mention = find(&mentions, name);
        assert_eq!(mention.kind, MentionKind::Symbol, "{name}");
        assert_eq!(mention.names, [name]);
    }
}

#[test]
fn a_word_next_to_a_kind_word_is_a_symbol() {
    let mentions =
        extract_mentions("The add function in src/math.ts subtracts instead of adding. Fix it.");
    assert_eq!(find(&mentions, "add").kind, MentionKind::Symbol);
    assert_eq!(mentions[0].kind, MentionKind::Path);
    assert!(
        mentions.iter().all(|m| m.text != "function"),
        "{mentions:?}"
    );
    let class = extract_mentions("explain class parser please");
    assert_eq!(find(&class, "parser").kind, MentionKind::Symbol);
}

#[test]
fn phrases_become_identifier_variants() {
    let mentions = extract_mentions("the cart total ignores discounts");
    let phrase = find(&mentions, "cart total");
    assert_eq!(phrase.kind, MentionKind::Phrase);
    assert_eq!(
        phrase.names,
        ["cartTotal", "cart_total", "CartTotal", "total"]
    );
    assert_eq!(find(&mentions, "cart").kind, MentionKind::Word);
    assert_eq!(
        variants(&["user", "id"]),
        ["userId", "user_id", "UserId", "id"]
    );
    assert!(variants(&[]).is_empty());
}

#[test]
fn nested_calls_name_every_callee() {
    assert_eq!(
        call_names("self.assertEqual(parse_duration(\"1h\""),
        ["assertEqual", "parse_duration"]
    );
    assert_eq!(call_names("store.average()"), ["average"]);
    assert_eq!(call_names("(see"), Vec::<&str>::new());
}

#[test]
fn inflected_words_also_give_their_base_forms() {
    let mentions = extract_mentions("Reversing the words of a sentence keeps empty words.");
    let names: Vec<&String> = mentions.iter().flat_map(|m| &m.names).collect();
    assert!(
        names.iter().any(|name| name.as_str() == "reverseWords"),
        "{names:?}"
    );
    assert_eq!(base_forms("sorting"), ["sorte", "sort"]);
    assert_eq!(base_forms("running"), ["runne", "runn", "run"]);
    assert_eq!(base_forms("entries"), ["entry"]);
    assert_eq!(base_forms("class"), Vec::<String>::new());
    assert_eq!(base_forms("total"), Vec::<String>::new());
}

#[test]
fn stop_words_and_clause_ends_split_phrases() {
    let mentions = extract_mentions("Fix the parser. Tokens are lost.");
    assert!(
        mentions.iter().all(|m| m.text != "parser tokens"),
        "{mentions:?}"
    );
    assert_eq!(find(&mentions, "parser").kind, MentionKind::Word);
}

#[test]
fn stop_words_and_short_names_never_become_mentions() {
    // The example: `in` and `as` next to "class"/"method" matched `insert`.
    for request in [
        "Add a method `area(&self)` to the Rect struct",
        "the Cart class in cart.py loses items",
        "use it as a method to the Stack class",
        "Add a `peek()` method to the `Stack` class in stack.js",
        "x = f(a) should be 2 but the `b` function in it returns 3",
    ] {
        let mentions = extract_mentions(request);
        let names = mentions
            .iter()
            .filter(|mention| mention.kind < MentionKind::FileName)
            .flat_map(|mention| &mention.names);
        for name in names {
            assert!(
                name.chars().count() >= 3 && !is_stop_word(name),
                "{request}: {mentions:?}"
            );
        }
    }
    assert!(is_stop_word("in") && is_stop_word("As") && is_stop_word("x"));
    assert!(!is_stop_word("insert"));
}

#[test]
fn request_verbs_name_code_only_when_written_as_code() {
    let mentions = extract_mentions("The add function is wrong; fix `update` and run()");
    assert_eq!(find(&mentions, "add").kind, MentionKind::Symbol);
    assert_eq!(find(&mentions, "update").kind, MentionKind::Symbol);
    assert_eq!(find(&mentions, "run()").names, ["run"]);
    let prose = extract_mentions("add a method and fix the tests");
    assert!(
        prose.iter().all(|m| m.kind < MentionKind::Symbol),
        "{prose:?}"
    );
    assert!(
        prose
            .iter()
            .flat_map(|m| &m.names)
            .all(|name| name != "tests" && name != "fix"),
        "{prose:?}"
    );
}

#[test]
fn flags_keys_and_dotted_names_are_symbols() {
    let mentions = extract_mentions(
        "parsing ['--dry-run'] ignores timeout=5 and shop.pricing rounds; self.total too",
    );
    assert_eq!(find(&mentions, "--dry-run").names, ["dry_run", "--dry-run"]);
    assert_eq!(find(&mentions, "--dry-run").kind, MentionKind::Symbol);
    assert_eq!(find(&mentions, "timeout=5").names, ["timeout"]);
    let dotted: Vec<_> = mentions
        .iter()
        .filter(|m| m.text == "shop.pricing")
        .map(|m| (m.kind, m.names.clone()))
        .collect();
    assert_eq!(
        dotted,
        [
            (MentionKind::Symbol, vec!["pricing".to_string()]),
            (MentionKind::Word, vec!["shop".to_string()])
        ]
    );
    assert_eq!(find(&mentions, "self.total").names, ["total"]);
    // Code-shaped mentions weigh more than prose.
    assert!(MentionKind::Symbol.weight() > MentionKind::Phrase.weight());
    assert!(MentionKind::Phrase.weight() > MentionKind::Word.weight());
}

#[test]
fn a_traceback_s_frames_lead_the_mentions() {
    let request = "Looking up a user crashes:\nTraceback (most recent call last):\n  File \"/home/u/p/app/users.py\", line 4, in find_user\n    return USERS[user_id]\nKeyError: 3";
    let mentions = extract_mentions(request);
    assert_eq!(mentions[0].kind, MentionKind::Frame);
    assert_eq!(mentions[0].names, ["/home/u/p/app/users.py"]);
    assert_eq!(mentions[0].line, Some(4));
    assert_eq!(find(&mentions, "find_user").kind, MentionKind::Symbol);
    assert!(MentionKind::Frame.weight() > MentionKind::Path.weight());
}

#[test]
fn renames_mark_symbols() {
    let mentions = extract_mentions("Rename ItemStore to Inventory");
    assert!(find(&mentions, "ItemStore").rename);
    assert!(extract_mentions("").is_empty());
    assert!(extract_mentions("   ?! ").is_empty());
}

#[test]
fn mentions_are_sorted_strongest_first_without_duplicates() {
    let mentions = extract_mentions("cartTotal in cart.ts: `cartTotal` again");
    assert_eq!(mentions[0].kind, MentionKind::FileName);
    assert_eq!(
        mentions.iter().filter(|m| m.names == ["cartTotal"]).count(),
        1
    );
}
