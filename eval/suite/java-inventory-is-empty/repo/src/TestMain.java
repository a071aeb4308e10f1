public final class TestMain {
    private static int failures = 0;

    private static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL: " + what);
        }
    }

    public static void main(String[] args) {
        Inventory inventory = new Inventory();
        check(inventory.isEmpty(), "new inventory is empty");
        inventory.add("bolt", 2);
        check(!inventory.isEmpty(), "inventory with bolts");
        inventory.take("bolt", 2);
        check(inventory.isEmpty(), "all bolts taken");
        check(inventory.quantity("bolt") == 0, "quantity");
        if (failures > 0) {
            System.exit(1);
        }
        System.out.println("all tests pass");
    }
}
