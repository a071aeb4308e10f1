public final class MathUtil {
    private MathUtil() {}

    /** The largest element of a non-empty array. */
    public static int max(int[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("empty array");
        }
        int best = values[0];
        for (int value : values) {
            if (value > best) {
                best = value;
            }
        }
        return best;
    }
}
