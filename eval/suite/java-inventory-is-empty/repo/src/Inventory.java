import java.util.HashMap;
import java.util.Map;

public final class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public void add(String item, int quantity) {
        stock.merge(item, quantity, Integer::sum);
    }

    public void take(String item, int quantity) {
        stock.merge(item, -quantity, Integer::sum);
    }

    public int quantity(String item) {
        return stock.getOrDefault(item, 0);
    }
}
