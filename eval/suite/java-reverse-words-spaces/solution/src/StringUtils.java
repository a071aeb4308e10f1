import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

public final class StringUtils {
    private StringUtils() {}

    /** The words of `text` in reverse order, separated by single spaces. */
    public static String reverseWords(String text) {
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            return "";
        }
        List<String> words = new ArrayList<>(Arrays.asList(trimmed.split("\\s+")));
        Collections.reverse(words);
        return String.join(" ", words);
    }
}
