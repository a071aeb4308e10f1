//! Reading options the way getopt-style programs do: clustered short flags (`-rf`),
//! abbreviated long options (`--rec`), `--` ending the options.

/// The arguments before a `--` end-of-options marker.
pub(crate) fn options(args: &[String]) -> &[String] {
    let end = args
        .iter()
        .position(|arg| arg == "--")
        .unwrap_or(args.len());
    &args[..end]
}

/// Whether `arg` is a cluster of short options (`-rf`) that contains `flag`. Letters after
/// an option in `takes_value` are that option's value (`-o-rf` has no `r` flag).
pub(crate) fn has_short(arg: &str, flag: char, takes_value: &str) -> bool {
    let Some(cluster) = arg.strip_prefix('-') else {
        return false;
    };
    if cluster.starts_with('-') {
        return false;
    }
    for letter in cluster.chars() {
        if letter == flag {
            return true;
        }
        if takes_value.contains(letter) {
            return false;
        }
    }
    false
}

/// Whether `arg` is the long option `--name` (with or without `=value`), or an
/// abbreviation of it of at least `min` letters, which getopt accepts when unambiguous.
pub(crate) fn is_long(arg: &str, name: &str, min: usize) -> bool {
    let Some(given) = arg.strip_prefix("--") else {
        return false;
    };
    let given = given.split_once('=').map_or(given, |(given, _)| given);
    !given.is_empty() && given.len() >= min.min(name.len()) && name.starts_with(given)
}

/// The positional arguments: those that are not options, not values of the options
/// in `takes_value` given separately (`-o file`), plus everything after `--`.
pub(crate) fn positionals<'a>(args: &'a [String], takes_value: &[&str]) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            found.extend(iter.map(String::as_str));
            break;
        }
        if takes_value.contains(&arg.as_str()) {
            iter.next();
        } else if !arg.starts_with('-') || arg == "-" {
            found.push(arg.as_str());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_string()).collect()
    }

    #[test]
    fn short_flags_are_found_inside_clusters_but_not_inside_values() {
        assert!(has_short("-rf", 'r', ""));
        assert!(has_short("-fR", 'R', ""));
        assert!(!has_short("--recursive", 'r', ""));
        assert!(!has_short("-ofr", 'f', "o"));
        assert!(!has_short("r", 'r', ""));
    }

    #[test]
    fn long_options_accept_values_and_abbreviations() {
        assert!(is_long("--recursive", "recursive", 1));
        assert!(is_long("--rec", "recursive", 1));
        assert!(is_long("--force-with-lease=main", "force-with-lease", 7));
        assert!(!is_long("--fo", "force", 3));
        assert!(!is_long("--", "force", 1));
        assert!(!is_long("--recursively", "recursive", 1));
    }

    #[test]
    fn options_stop_at_the_end_marker() {
        let args = strings(&["-f", "--", "-rf"]);
        assert_eq!(options(&args), &args[..1]);
    }

    #[test]
    fn positionals_skip_option_values() {
        let args = strings(&["-o", "out", "a", "-v", "--", "-b"]);
        assert_eq!(positionals(&args, &["-o"]), ["a", "-b"]);
    }
}
