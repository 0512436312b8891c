import GatewayCore
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayTestKit
import Testing

/// Event ids (migration 28): `evt_`, then a statement's milliseconds, a random draw of its own
/// and the event's place in it, so ids grow with time and a statement's grow with the place.
@Suite("Event log: time-ordered ids")
struct EventIdTests {
    /// An id's three parts: milliseconds, draw, place.
    static func parts(_ id: String) -> (ms: Int64, draw: Substring, place: Int)? {
        let digits = id.dropFirst(4)
        guard id.hasPrefix("evt_"), digits.count == 32, digits.allSatisfy({ "0123456789abcdef".contains($0) }),
              let ms = Int64(digits.prefix(12), radix: 16), let place = Int(digits.suffix(4), radix: 16)
        else { return nil }
        return (ms, digits.dropFirst(12).prefix(16), place)
    }

    @Test("past 65,535 events a statement's place carries into the milliseconds: its ids still grow, each once, with its draw")
    func placeCarriesPastFourDigits() async throws {
        try await withOwnershipDatabase { client in
            // The rule itself (gateway_event_id), at the places around the carry: a statement
            // of that many events is the same function over its places (the trigger's places
            // are tested through whole batches in ClaimBatchWritesTests).
            let places = [1, 2, 65534, 65535, 65536, 65537, 131_071, 131_072]
            let rows = try await client.query(
                "SELECT gateway_event_id(1700000000000, '0123456789abcdef', p) AS id FROM unnest($1::bigint[]) WITH ORDINALITY AS u (p, n) ORDER BY n",
                [PostgresValue(text: "{" + places.map(String.init).joined(separator: ",") + "}")]
            )
            let ids = try rows.map { try $0.decode(String.self, "id") }
            let parts = ids.compactMap(Self.parts)
            try #require(parts.count == places.count, "ids not of the form evt_ and 32 lowercase hex digits: \(ids)")
            #expect(parts.allSatisfy { $0.draw == "0123456789abcdef" }, "the place changed the draw: \(ids)")
            #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "ids do not increase with the place: \(ids)")
            // Places 1…65,535 in the statement's millisecond, then 0, 1… in the next, and so on.
            #expect(parts.map(\.ms) == [0, 0, 0, 0, 1, 1, 1, 2].map { 1_700_000_000_000 + $0 }, "\(ids)")
            #expect(parts.map(\.place) == [1, 2, 0xfffe, 0xffff, 0, 1, 0xffff, 0], "\(ids)")
        }
    }

    @Test("each append is place 1 of a draw of its own, at the time it ran, and a later append's id is greater")
    func appendsGrowWithTime() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            func append(_ count: Int) async throws -> [String] {
                try await client.query(
                    "SELECT gateway_event_append($1, 'test.appended', NULL, NULL, jsonb_build_object('n', n)) AS id FROM generate_series(1, $2) n",
                    [PostgresValue(OwnershipFixtures.account), PostgresValue(count)]
                ).map { try $0.decode(String.self, "id") }
            }
            let startedMs = try await ClaimBatchWritesTests.serverMilliseconds(client)
            // Five calls in one statement: five events, five draws.
            let together = try await append(5)
            let endedMs = try await ClaimBatchWritesTests.serverMilliseconds(client)
            let parts = together.compactMap(Self.parts)
            try #require(parts.count == 5, "ids not of the form evt_ and 32 lowercase hex digits: \(together)")
            try #require(parts.allSatisfy { $0.place == 1 && $0.ms >= startedMs && $0.ms <= endedMs }, "\(together) outside \(startedMs)…\(endedMs)")
            #expect(Set(parts.map(\.draw)).count == 5)
            let latestMs = try #require(parts.map(\.ms).max())
            #expect(try await eventually { try await ClaimBatchWritesTests.serverMilliseconds(client) > latestMs })
            let later = try #require(try await append(1).first)
            #expect(together.allSatisfy { $0 < later }, "\(later) not above \(together)")
            let stored = try await client.query("SELECT count(*)::bigint AS n FROM events WHERE id = ANY($1::text[])",
                                                [PostgresValue(text: "{" + (together + [later]).joined(separator: ",") + "}")])
            #expect(try stored.first?.decode(Int.self, "n") == 6)
        }
    }
}
