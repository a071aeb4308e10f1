//! temporary
fn main() {
    let t = std::time::Instant::now();
    let n = hone_context::Tokenizer::O200k.count("hello world");
    println!("o200k init+count {n}: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let text = "fn main() { println!(\"hi\"); }\n".repeat(2000);
    let n = hone_context::Tokenizer::O200k.count(&text);
    println!("60KB count {n}: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let n = hone_context::Tokenizer::Cl100k.count("hello world");
    println!("cl100k init {n}: {:?}", t.elapsed());
}
