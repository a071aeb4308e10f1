/// The FizzBuzz entries for 1 through `n`.
pub fn fizzbuzz(n: u32) -> Vec<String> {
    (1..=n)
        .map(|i| match (i % 3, i % 5) {
            (0, 0) => "FizzBuzz".to_string(),
            (0, _) => "Fizz".to_string(),
            (_, 0) => "Buzz".to_string(),
            _ => i.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_entries() {
        let entries = fizzbuzz(15);
        assert_eq!(entries.len(), 15);
        assert_eq!(entries[2], "Fizz");
        assert_eq!(entries[14], "FizzBuzz");
    }
}
