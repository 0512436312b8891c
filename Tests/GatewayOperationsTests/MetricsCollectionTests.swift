import Foundation
import Testing
@testable import GatewayOperations

@Suite("Metrics collection and Prometheus text")
struct MetricsCollectionTests {
    enum Color: Int, MetricLabelValue {
        case red, green
        var labelValue: String { self == .red ? "red" : "green" }
    }

    @Test("counters, gauges and labels render and parse back")
    func countersAndGauges() throws {
        let collection = MetricsCollection()
        let hits = collection.counter("test_hits_total", help: "Hits.", labels: [MetricLabel("color", Color.self)])
        let level = collection.gauge("test_level", help: "Level.")
        hits.labels(Color.red).increment()
        hits.labels(Color.red).increment(by: 4)
        hits.labels("green").increment()
        level.unlabeled.set(10)
        level.unlabeled.decrement(by: 3)

        let text = collection.render()
        let parsed = try PrometheusTextReader(text)
        #expect(parsed.value("test_hits_total", ["color": "red"]) == 5)
        #expect(parsed.value("test_hits_total", ["color": "green"]) == 1)
        #expect(parsed.value("test_level") == 7)
        #expect(parsed.families["test_hits_total"]?.type == "counter")
        #expect(parsed.families["test_level"]?.type == "gauge")
        #expect(parsed.families["test_level"]?.help == "Level.")
        // No overflow child until something overflows.
        #expect(!text.contains("color=\"other\""))
    }

    @Test("scrape hooks run before every render, so a gauge read from elsewhere is current")
    func scrapeHooks() throws {
        let collection = MetricsCollection()
        let level = collection.gauge("test_pool", help: "Pool.")
        let source = Counter()
        collection.onScrape { level.unlabeled.set(Int64(source.value)) }
        source.increment(by: 3)
        #expect(try PrometheusTextReader(collection.render()).value("test_pool") == 3)
        source.increment(by: 2)
        #expect(try PrometheusTextReader(collection.render()).value("test_pool") == 5)
    }

    @Test("a counter set from a running total kept elsewhere renders that total at each scrape")
    func counterFromTotal() throws {
        let collection = MetricsCollection()
        let accepted = collection.counter("test_accepted_total", help: "Accepted.")
        let source = Counter()
        collection.onScrape { accepted.unlabeled.set(total: source.value) }
        source.increment(by: 7)
        #expect(try PrometheusTextReader(collection.render()).value("test_accepted_total") == 7)
        source.increment(by: 4)
        #expect(try PrometheusTextReader(collection.render()).value("test_accepted_total") == 11)
        #expect(accepted.unlabeled.value == 11)
    }

    @Test("values outside the declared set count under other and in the overflow counter")
    func overflow() throws {
        let collection = MetricsCollection()
        let calls = collection.counter(
            "test_calls_total", help: "Calls.",
            labels: [MetricLabel("method", values: ["Connect", "Collect"]), MetricLabel("color", Color.self)]
        )
        calls.labels("Connect", Color.green).increment()
        for serial in 0..<50 { calls.labels("reader-\(serial)", Color.red).increment() }

        let parsed = try PrometheusTextReader(collection.render())
        #expect(parsed.value("test_calls_total", ["method": "Connect", "color": "green"]) == 1)
        #expect(parsed.value("test_calls_total", ["method": "other", "color": "red"]) == 50)
        #expect(parsed.value("reader_gateway_metric_label_overflow_total", ["family": "test_calls_total"]) == 50)
        // Bounded: 3 methods (2 + other, shown only when used) x 2 colors at most.
        #expect(parsed.samples.filter { $0.name == "test_calls_total" }.count == 5)
    }

    @Test("histogram buckets are cumulative, +Inf equals _count, _sum adds up")
    func histogram() throws {
        let collection = MetricsCollection()
        let latency = collection.histogram("test_latency_seconds", help: "Latency.", buckets: HistogramBuckets([0.1, 1, 10]))
        for value in [0.05, 0.1, 0.5, 2, 20, 30] { latency.unlabeled.observe(value) }
        latency.unlabeled.observe(Duration.milliseconds(250))

        let parsed = try PrometheusTextReader(collection.render())
        #expect(parsed.families["test_latency_seconds"]?.type == "histogram")
        #expect(parsed.value("test_latency_seconds_bucket", ["le": "0.1"]) == 2)
        #expect(parsed.value("test_latency_seconds_bucket", ["le": "1"]) == 4)
        #expect(parsed.value("test_latency_seconds_bucket", ["le": "10"]) == 5)
        #expect(parsed.value("test_latency_seconds_bucket", ["le": "+Inf"]) == 7)
        #expect(parsed.value("test_latency_seconds_count") == 7)
        let sum = try #require(parsed.value("test_latency_seconds_sum"))
        #expect(abs(sum - 52.9) < 1e-9)
    }

    @Test("help text and label values are escaped")
    func escaping() throws {
        let collection = MetricsCollection()
        let tricky = "back\\slash \"quoted\"\nnext line"
        let family = collection.counter("test_escaped_total", help: "Help with \\ and\nnewline.", labels: [MetricLabel("path", values: [tricky])])
        family.labels(tricky).increment()

        let text = collection.render()
        #expect(text.contains("# HELP test_escaped_total Help with \\\\ and\\nnewline.\n"))
        #expect(text.contains("path=\"back\\\\slash \\\"quoted\\\"\\nnext line\""))
        let parsed = try PrometheusTextReader(text)
        #expect(parsed.families["test_escaped_total"]?.help == "Help with \\ and\nnewline.")
        #expect(parsed.value("test_escaped_total", ["path": tricky]) == 1)
    }

    @Test("numbers are written as the format spells them")
    func numberFormat() {
        #expect(PrometheusText.formatDouble(1) == "1")
        #expect(PrometheusText.formatDouble(0.005) == "0.005")
        #expect(PrometheusText.formatDouble(.infinity) == "+Inf")
        #expect(PrometheusText.formatDouble(-.infinity) == "-Inf")
        #expect(PrometheusText.formatDouble(.nan) == "NaN")
        #expect(PrometheusText.isValidMetricName("reader_gateway:rate5m"))
        #expect(!PrometheusText.isValidMetricName("9lives"))
        #expect(!PrometheusText.isValidLabelName("__reserved"))
        #expect(!PrometheusText.isValidLabelName("with-dash"))
    }

    @Test("concurrent increments from many threads are all counted")
    func concurrentRecording() async throws {
        let collection = MetricsCollection()
        let counter = collection.counter("test_concurrent_total", help: "Concurrent.").unlabeled
        let histogram = collection.histogram("test_concurrent_seconds", help: "Concurrent.", buckets: HistogramBuckets([1])).unlabeled
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 {
                        counter.increment()
                        histogram.observe(0.5)
                    }
                }
            }
        }
        #expect(counter.value == 80_000)
        let snapshot = histogram.snapshot()
        #expect(snapshot.count == 80_000)
        #expect(snapshot.sum == 40_000)
    }

    @Test("the gateway's families are all declared and parse")
    func gatewayMetrics() throws {
        let metrics = GatewayMetrics(callMethods: ["ConnectReader"], version: "1.2.3", schema: "17")
        metrics.claims.labels(ClaimOutcome.refusedBusy).increment()
        metrics.calls.labels("ConnectReader", CallStatus.ok).increment()
        metrics.connections.labels(ConnectionKind.lane, ConnectionState.active).increment()
        metrics.claimDuration.unlabeled.observe(Duration.milliseconds(3))
        metrics.framesRejected.labels(FrameRejectReason.tooLarge).increment()

        let parsed = try PrometheusTextReader(metrics.collection.render())
        for family in [
            "reader_gateway_connections", "reader_gateway_connections_accepted_total", "reader_gateway_tls_handshakes_total",
            "reader_gateway_tls_handshake_failures_total", "reader_gateway_calls_total", "reader_gateway_claims_total",
            "reader_gateway_claim_duration_seconds", "reader_gateway_relayed_command_duration_seconds", "reader_gateway_connection_moves_total",
            "reader_gateway_readers_online", "reader_gateway_sessions", "reader_gateway_store_errors_total",
            "reader_gateway_store_pool_connections", "reader_gateway_store_pool_max_connections",
            "reader_gateway_store_pool_waiters", "reader_gateway_frames_rejected_total", "reader_gateway_draining",
            "reader_gateway_build_info", "process_resident_memory_bytes", "process_open_fds",
        ] {
            #expect(parsed.families[family]?.type != nil, "\(family) is missing")
        }
        #expect(parsed.value("reader_gateway_claims_total", ["outcome": "refused_busy"]) == 1)
        #expect(parsed.value("reader_gateway_claims_total", ["outcome": "replaced"]) == 0)
        #expect(parsed.value("reader_gateway_calls_total", ["method": "ConnectReader", "status": "OK"]) == 1)
        #expect(parsed.value("reader_gateway_connections", ["kind": "lane", "state": "active"]) == 1)
        #expect(parsed.value("reader_gateway_claim_duration_seconds_bucket", ["le": "0.005"]) == 1)
        #expect(parsed.value("reader_gateway_build_info", ["version": "1.2.3", "schema": "17"]) == 1)
        #expect((parsed.value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        for sample in parsed.samples { #expect(parsed.type(of: sample.name) != nil, "\(sample.name) has no TYPE") }
    }
}
