import java.util.List;

public final class TestMain {
    private static int failures = 0;

    private static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    public static void main(String[] args) {
        List<String> export = List.of(
                "sku,quantity,price,note",
                "P-1,2,1.50,gift wrap",
                "I-7,1,12.00,",
                "",
                "N-3,3,0.99,");
        check(Report.totalCents(export) == 300 + 1200 + 297, "total of the export");
        check(Report.notes(export).equals(List.of("gift wrap")), "notes");
        check(CsvRow.parse("a,,c").fields().equals(List.of("a", "", "c")), "empty field inside");
        check(CsvRow.parse("a,b,").size() == 3, "empty last field is kept");
        check(CsvRow.parse("a,b,").field(2).isEmpty(), "empty last field reads as empty");
        check(CsvRow.parse(" x , y ").fields().equals(List.of("x", "y")), "trimmed");
        if (failures > 0) {
            System.exit(1);
        }
        System.out.println("all tests pass");
    }
}
