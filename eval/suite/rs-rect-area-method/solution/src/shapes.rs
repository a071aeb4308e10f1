/// An axis-aligned rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub width: u32,
    pub height: u32,
}

impl Rect {
    /// A rectangle of `width` × `height`.
    pub fn new(width: u32, height: u32) -> Self {
        Self { width, height }
    }

    /// Whether it is a square.
    pub fn is_square(&self) -> bool {
        self.width == self.height
    }

    /// Width times height.
    pub fn area(&self) -> u32 {
        self.width * self.height
    }
}
