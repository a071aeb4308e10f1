public final class TestMain {
    private static int failures = 0;

    private static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    public static void main(String[] args) {
        check(MathUtil.max(new int[] {1, 5, 3}) == 5, "max of positives");
        check(MathUtil.max(new int[] {-4, -2, -9}) == -2, "max of negatives");
        if (failures > 0) {
            System.exit(1);
        }
        System.out.println("all tests pass");
    }
}
