import Testing
@testable import GatewayOperations

/// A family keyed by values known only as they come (webhook endpoints): samples by key,
/// rendered sorted, and bounded: keys past the maximum are summed under `other`.
@Suite("Metric tables")
struct MetricTableTests {
    @Test("counters add per key, gauges are replaced whole, and both render one sample per key in key order")
    func addReplaceRender() {
        let collection = MetricsCollection()
        let delivered = collection.table("test_delivered_total", help: "Delivered.", labelName: "endpoint", type: .counter)
        let pending = collection.table("test_pending", help: "Pending.", labelName: "endpoint", type: .gauge)
        delivered.add(1, to: "we_b")
        delivered.add(2, to: "we_a")
        delivered.add(1, to: "we_b")
        pending.replace(with: ["we_a": 3, "we_b": 1])
        pending.replace(with: ["we_c": 5])
        let text = collection.render()
        #expect(text.contains("# TYPE test_delivered_total counter\ntest_delivered_total{endpoint=\"we_a\"} 2\ntest_delivered_total{endpoint=\"we_b\"} 2\n"), "\(text)")
        #expect(text.contains("# TYPE test_pending gauge\ntest_pending{endpoint=\"we_c\"} 5\n"), "\(text)")
        #expect(pending.value("we_a") == nil && delivered.value("we_b") == 2)
    }

    @Test("keys past the maximum are counted under other, so the exposition stays bounded")
    func bounded() {
        let collection = MetricsCollection()
        let table = collection.table("test_bounded_total", help: "Bounded.", labelName: "endpoint", type: .counter, maximumKeys: 2)
        for key in ["we_1", "we_2", "we_3", "we_4", "we_1"] { table.add(1, to: key) }
        #expect(table.value("we_1") == 2 && table.value("we_2") == 1 && table.value("we_3") == nil && table.value("other") == 2)
        let gauges = collection.table("test_bounded", help: "Bounded.", labelName: "endpoint", type: .gauge, maximumKeys: 2)
        gauges.replace(with: ["we_1": 1, "we_2": 2, "we_3": 3, "we_4": 4])
        #expect(gauges.value("we_1") == 1 && gauges.value("we_2") == 2 && gauges.value("other") == 7)
    }
}
