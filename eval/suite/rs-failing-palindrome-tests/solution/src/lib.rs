/// Whether `text` reads the same backwards, ignoring case and everything but letters
/// and digits.
pub fn is_palindrome(text: &str) -> bool {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    chars.iter().eq(chars.iter().rev())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple() {
        assert!(is_palindrome("level"));
        assert!(!is_palindrome("hello"));
    }

    #[test]
    fn ignores_case_and_punctuation() {
        assert!(is_palindrome("A man, a plan, a canal: Panama"));
        assert!(is_palindrome("No lemon, no melon"));
    }
}
