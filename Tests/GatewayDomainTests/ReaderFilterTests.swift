import GatewayDomain
import Testing

/// Parsing a discovery filter from its two request fields.
struct ReaderFilterTests {
    @Test func bothEmptyIsNoFilter() throws {
        #expect(try ReaderFilter.parse(readerID: "", serialNumber: "") == nil)
    }

    @Test func oneFieldNamesOneReader() throws {
        #expect(try ReaderFilter.parse(readerID: "tmr_FDOt2wlRZEdpd7", serialNumber: "") == .readerID("tmr_FDOt2wlRZEdpd7"))
        #expect(try ReaderFilter.parse(readerID: "", serialNumber: "WSC513105011295") == .serialNumber("WSC513105011295"))
    }

    @Test func bothSetIsRefusedNamingBoth() {
        #expect {
            try ReaderFilter.parse(readerID: "tmr_1", serialNumber: "WSC-1")
        } throws: { error in
            (error as? ReaderFilterError)?.message.contains("names both reader_id \"tmr_1\" and serial_number \"WSC-1\"") == true
        }
    }

    @Test(arguments: ["tmr 1", "tmr_1'", "tmr_é", String(repeating: "a", count: 65)])
    func aMalformedReaderIDIsRefused(id: String) {
        #expect {
            try ReaderFilter.parse(readerID: id, serialNumber: "")
        } throws: { error in
            (error as? ReaderFilterError)?.message.contains("is not a reader id") == true
        }
    }

    @Test(arguments: ["WSC", "wsc-1", "WSC 1", String(repeating: "A", count: 65)])
    func aMalformedSerialIsRefused(serial: String) {
        #expect {
            try ReaderFilter.parse(readerID: "", serialNumber: serial)
        } throws: { error in
            (error as? ReaderFilterError)?.message.contains("is not a serial number") == true
        }
    }

    @Test func matchesComparesTheFieldNamed() {
        #expect(ReaderFilter.readerID("tmr_1").matches(id: "tmr_1", serial: "X"))
        #expect(!ReaderFilter.readerID("tmr_1").matches(id: "tmr_2", serial: "tmr_1"))
        #expect(ReaderFilter.serialNumber("WSC-1").matches(id: "tmr_9", serial: "WSC-1"))
        #expect(!ReaderFilter.serialNumber("WSC-1").matches(id: "WSC-1", serial: "WSC-2"))
    }
}
