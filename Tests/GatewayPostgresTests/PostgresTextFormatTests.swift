import Foundation
@testable import GatewayPostgres
import Testing

/// The text-format encoders and decoders, without a server.
@Suite("PostgreSQL text format")
struct PostgresTextFormatTests {
    @Test(arguments: [
        ("2026-11-21 23:01:44+00", 1_795_302_104.0),
        ("2026-11-21 23:01:44.5+00", 1_795_302_104.5),
        ("2026-11-21 23:01:44.123456+00", 1_795_302_104.123456),
        ("2026-11-22 00:31:44+01:30", 1_795_302_104.0),
        ("2026-11-21 18:01:44-05", 1_795_302_104.0),
        ("2026-11-21T23:01:44Z", nil),
        ("2026-11-21 23:01:44", 1_795_302_104.0),
        ("1969-12-31 23:59:59.999999+00", -0.000001),
        ("2024-02-29 12:00:00+00", 1_709_208_000.0),
        ("2000-03-01 00:00:00+00", 951_868_800.0),
        ("1900-03-01 00:00:00+00", -2_203_891_200.0),
        ("2026-13-01 00:00:00+00", nil),
        ("2026-11-00 00:00:00+00", nil),
        ("2026-11-21 23:01:44+", nil),
        ("", nil),
    ] as [(String, Double?)])
    func timestampsParse(text: String, expected: Double?) {
        let parsed = PostgresTimestamp.parse(text)
        if let expected {
            #expect(parsed.map { abs($0.timeIntervalSince1970 - expected) < 0.0000005 } == true, "\(text) → \(String(describing: parsed))")
        } else {
            #expect(parsed == nil)
        }
    }

    @Test func timestampsRoundTrip() {
        for seconds in [0.0, 1_795_302_104.654321, -86_400.25, 4_102_444_800.000001] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = PostgresTimestamp.format(date)
            let back = PostgresTimestamp.parse(text)
            #expect(back.map { abs($0.timeIntervalSince1970 - seconds) < 0.0000011 } == true, "\(seconds) → \(text)")
        }
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000000+00")
    }

    @Test("calendar arithmetic agrees with gmtime on every day from 1600 to 2400")
    func daysSinceEpochMatchesGmtime() {
        var parts = tm()
        var mismatches: [String] = []
        for day in -135_140...157_000 {
            var time = time_t(day * 86_400)
            gmtime_r(&time, &parts)
            let computed = PostgresTimestamp.daysSinceEpoch(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
            if computed != day, mismatches.count < 5 { mismatches.append("\(parts.tm_year + 1900)-\(parts.tm_mon + 1)-\(parts.tm_mday): \(computed), not \(day)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func byteaHex() {
        let value = PostgresValue(bytes: [0x00, 0xab, 0xff, 0x10])
        #expect(value.text == "\\x00abff10")
        #expect(value.typeOID == 17)
        #expect(PostgresBytes(postgresText: "\\x00abff10")?.bytes == [0x00, 0xab, 0xff, 0x10])
        #expect(PostgresBytes(postgresText: "\\x")?.bytes == [])
        #expect(PostgresBytes(postgresText: "\\x0") == nil)
        #expect(PostgresBytes(postgresText: "\\xzz") == nil)
        #expect(PostgresBytes(postgresText: "00") == nil)
    }

    @Test func scalars() {
        #expect(Bool(postgresText: "t") == true)
        #expect(Bool(postgresText: "f") == false)
        #expect(Bool(postgresText: "yes") == nil)
        #expect(Int64(postgresText: "-9223372036854775808") == Int64.min)
        #expect(Int(postgresText: "12x") == nil)
        #expect(String?.postgresNull == .some(nil))
        #expect(String.postgresNull == nil)
        #expect(PostgresValue(true).text == "t")
        #expect(PostgresValue(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!).text == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    }

    @Test func serverErrorsAreClassifiedBySQLState() {
        #expect(StoreError.server(sqlState: "23505", message: "dup", detail: nil).code == .uniqueViolation)
        #expect(StoreError.server(sqlState: "40001", message: "ser", detail: nil).code == .serializationFailure)
        #expect(StoreError.server(sqlState: "40P01", message: "deadlock", detail: nil).code == .serializationFailure)
        #expect(StoreError.server(sqlState: "57014", message: "cancel", detail: nil).code == .timeout)
        #expect(StoreError.server(sqlState: "57P01", message: "admin", detail: nil).code == .connectionLost)
        #expect(StoreError.server(sqlState: "08006", message: "gone", detail: nil).code == .connectionLost)
        #expect(StoreError.server(sqlState: "42601", message: "syntax", detail: nil).code == .queryFailed)
        let detailed = StoreError.server(sqlState: "23505", message: "duplicate key", detail: "Key (id)=(1) already exists.")
        #expect(detailed.message == "duplicate key (Key (id)=(1) already exists.)")
        #expect(detailed.description.contains("SQLSTATE 23505"))
    }

    @Test func identifiersAndConnectionValuesAreQuoted() {
        #expect(PostgresStoreLoop.quoteIdentifier("reader events") == "\"reader events\"")
        #expect(PostgresStoreLoop.quoteIdentifier("a\"b") == "\"a\"\"b\"")
        #expect(EmbeddedPostgres.quoteConnectionValue("/tmp/it's here") == "'/tmp/it\\'s here'")
    }
}
