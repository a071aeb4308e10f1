import java.util.List;

/** Totals of an order export: lines of `sku,quantity,unit price,note`. */
public final class Report {
    private Report() {}

    /** The sum of quantity times unit price over `lines`, in cents; the header line is skipped. */
    public static long totalCents(List<String> lines) {
        long total = 0;
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            CsvRow row = CsvRow.parse(line);
            int quantity = Integer.parseInt(row.field(1));
            long price = Math.round(Double.parseDouble(row.field(2)) * 100);
            total += quantity * price;
        }
        return total;
    }

    /** The notes of the lines that have one. */
    public static List<String> notes(List<String> lines) {
        return lines.subList(1, lines.size()).stream()
                .filter(line -> !line.isBlank())
                .map(CsvRow::parse)
                .filter(row -> !row.field(3).isEmpty())
                .map(row -> row.field(3))
                .toList();
    }
}
