use shapes::shapes::Rect;

#[test]
fn area_multiplies() {
    assert_eq!(Rect::new(3, 4).area(), 12);
    assert_eq!(Rect::new(0, 9).area(), 0);
}

#[test]
fn squares() {
    assert!(Rect::new(2, 2).is_square());
}
