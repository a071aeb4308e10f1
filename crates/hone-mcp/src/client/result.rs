//! A tool's result as the model sees it: text kept, images and audio described (their data
//! is not text the model can use), resources shown by URI with their text, structured
//! content as JSON; truncated like command output.

use hone_tools::ToolOutput;
use hone_tools::command::truncate_output;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// The output for `result`.
pub(crate) fn to_output(result: CallToolResult) -> ToolOutput {
    let mut parts: Vec<String> = result.content.iter().map(describe).collect();
    if let Some(structured) = &result.structured_content {
        let json = structured.to_string();
        // Servers often send the same JSON as text too; show it once.
        if !parts.iter().any(|part| part.trim() == json) {
            parts.push(format!("structured content: {json}"));
        }
    }
    let text = if parts.is_empty() {
        "(the tool returned nothing)".to_string()
    } else {
        parts.join("\n")
    };
    let content = truncate_output(&text);
    if result.is_error == Some(true) {
        ToolOutput::error(content)
    } else {
        ToolOutput::ok(content)
    }
}

pub(crate) fn describe(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!(
            "[image: {}, {} bytes; not shown]",
            image.mime_type,
            decoded_len(&image.data)
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio: {}, {} bytes; not shown]",
            audio.mime_type,
            decoded_len(&audio.data)
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes; not shown]",
                mime_type.as_deref().unwrap_or("binary"),
                decoded_len(blob)
            ),
            other => format!("[resource of an unknown kind: {}]", json_of(other)),
        },
        ContentBlock::ResourceLink(link) => match &link.description {
            Some(description) => format!("[resource link {}: {description}]", link.uri),
            None => format!("[resource link {}]", link.uri),
        },
        other => format!("[content of an unknown kind: {}]", json_of(other)),
    }
}

/// A short JSON rendering of content hone does not know (newer protocol versions).
fn json_of(value: &impl serde::Serialize) -> String {
    let json = serde_json::to_string(value).unwrap_or_default();
    json.chars().take(200).collect()
}

/// The size of base64 `data` once decoded.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|byte| *byte == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_described_and_text_kept() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("hello"),
            ContentBlock::image("aGVsbG8=", "image/png"),
        ]);
        let output = to_output(result);
        assert!(!output.is_error);
        assert_eq!(
            output.content,
            "hello\n[image: image/png, 5 bytes; not shown]"
        );
    }

    #[test]
    fn errors_stay_errors_and_huge_text_is_cut() {
        let output = to_output(CallToolResult::error(vec![ContentBlock::text(
            "x".repeat(10 * 1024 * 1024),
        )]));
        assert!(output.is_error);
        assert!(output.content.len() < 10_000, "{}", output.content.len());
    }

    #[test]
    fn structured_content_is_shown_once() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("{\"a\":1}")]);
        result.structured_content = Some(serde_json::json!({"a": 1}));
        assert_eq!(to_output(result).content, "{\"a\":1}");
        let empty = CallToolResult::success(Vec::new());
        assert!(to_output(empty).content.contains("nothing"));
    }
}
