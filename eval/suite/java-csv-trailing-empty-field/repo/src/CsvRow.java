import java.util.List;

/** One line of a CSV export: comma-separated fields, no quoting. */
public final class CsvRow {
    private final String[] fields;

    private CsvRow(String[] fields) {
        this.fields = fields;
    }

    /** Splits `line` at its commas; empty fields are kept. */
    public static CsvRow parse(String line) {
        return new CsvRow(line.split(","));
    }

    /** The number of fields. */
    public int size() {
        return fields.length;
    }

    /** The field at `index` (0-based), trimmed. */
    public String field(int index) {
        return fields[index].trim();
    }

    /** The fields, trimmed. */
    public List<String> fields() {
        return List.of(fields).stream().map(String::trim).toList();
    }
}
