public final class TestMain {
    private static int failures = 0;

    private static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    public static void main(String[] args) {
        check(StringUtils.reverseWords("a b c").equals("c b a"), "simple");
        check(StringUtils.reverseWords("  hello   world ").equals("world hello"), "extra spaces");
        if (failures > 0) {
            System.exit(1);
        }
        System.out.println("all tests pass");
    }
}
