//! Markdown files with YAML front matter (custom commands, skills): the keys between the
//! opening and closing `---` lines, and the body after them.

use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

/// A Markdown file split into its front matter and body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    /// String values by key; a list is kept as its items joined with `, `.
    pub(crate) keys: BTreeMap<String, String>,
    /// The text after the front matter.
    pub(crate) body: String,
}

impl FrontMatter {
    /// Splits `text`; a file without front matter is all body. The error says why the front
    /// matter could not be read.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Some(rest) = text
            .strip_prefix("---\n")
            .or_else(|| text.strip_prefix("---\r\n"))
        else {
            return Ok(Self {
                keys: BTreeMap::new(),
                body: text.to_string(),
            });
        };
        let (yaml, body) = match rest.find("\n---") {
            Some(end) => {
                let after = &rest[end + 4..];
                let body = after
                    .strip_prefix("\r\n")
                    .or_else(|| after.strip_prefix('\n'))
                    .unwrap_or(after);
                (&rest[..end], body)
            }
            None => return Err("the front matter has no closing `---` line".to_string()),
        };
        let documents = YamlLoader::load_from_str(yaml)
            .map_err(|error| format!("the front matter is not valid YAML: {error}"))?;
        let mut keys = BTreeMap::new();
        match documents.into_iter().next() {
            None | Some(Yaml::Null) => {}
            Some(Yaml::Hash(hash)) => {
                for (key, value) in hash {
                    let (Some(key), Some(value)) = (key.as_str(), text_value(&value)) else {
                        continue;
                    };
                    keys.insert(key.to_string(), value);
                }
            }
            Some(_) => return Err("the front matter is not a table of keys".to_string()),
        }
        Ok(Self {
            keys,
            body: body.to_string(),
        })
    }

    /// The value of the first of `names` that is set.
    pub(crate) fn get(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .find_map(|name| self.keys.get(*name))
            .map(String::as_str)
    }

    /// A list value (`[a, b]` or `a, b`) as its items.
    pub(crate) fn list(&self, names: &[&str]) -> Option<Vec<String>> {
        self.get(names).map(|value| {
            value
                .split([',', ' '])
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(str::to_string)
                .collect()
        })
    }
}

fn text_value(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        Yaml::Array(items) => Some(
            items
                .iter()
                .filter_map(text_value)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_body_are_split() {
        let parsed = FrontMatter::parse(
            "---\ndescription: Review a file\nallowed-tools: [read_file, search_files]\n---\nBody $1\n",
        )
        .unwrap();
        assert_eq!(parsed.get(&["description"]), Some("Review a file"));
        assert_eq!(
            parsed.list(&["allowed_tools", "allowed-tools"]).unwrap(),
            ["read_file", "search_files"]
        );
        assert_eq!(parsed.body, "Body $1\n");
    }

    #[test]
    fn a_file_without_front_matter_is_all_body_and_broken_ones_are_refused() {
        let parsed = FrontMatter::parse("Just do it.\n").unwrap();
        assert!(parsed.keys.is_empty());
        assert_eq!(parsed.body, "Just do it.\n");
        let error = FrontMatter::parse("---\ndescription: x\n").unwrap_err();
        assert!(error.contains("closing"), "{error}");
        let error = FrontMatter::parse("---\n: : [\n---\nx").unwrap_err();
        assert!(error.contains("YAML"), "{error}");
    }
}
