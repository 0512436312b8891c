@testable import GatewayDomain
import Testing

@Suite struct RegistrationCodeTests {
    @Test func generatedCodesUseTheUnambiguousAlphabetAndReadBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let code = RegistrationCode.generate(using: &generator)
            #expect(code.canonical.count == 8)
            #expect(!code.canonical.contains(where: { "ILOU".contains($0) }))
            #expect(code.displayed.count == 9 && code.displayed.contains("-"))
            #expect(try RegistrationCode(typed: code.displayed) == code)
            #expect(try RegistrationCode(typed: code.canonical.lowercased()) == code)
        }
    }

    @Test func typingFoldsLookAlikesSpacesAndDashes() throws {
        #expect(try RegistrationCode(typed: " k7qd - 3mxa ").canonical == "K7QD3MXA")
        #expect(try RegistrationCode(typed: "OIL0-1234").canonical == "01101234")
    }

    @Test func malformedCodesSayWhatIsWrong() {
        #expect(throws: RegistrationError.self) { try RegistrationCode(typed: "K7QD-3MX") }
        do {
            _ = try RegistrationCode(typed: "K7QD-3MXU")
            Issue.record("U is not in the alphabet")
        } catch {
            #expect(error.code == .malformedCode)
            #expect(error.message.contains("\"U\""))
        }
    }
}

@Suite struct SerialRegistrationRequestTests {
    @Test func severalSerialsAreNumberedFromTheLabelPrefixInOrder() throws {
        let request = try SerialRegistrationRequest(serials: "wsc513105011295, STRM26138003393,WSC513105011296", labelPrefix: " Front lanes ")
        #expect(request.entries.map(\.serial) == ["WSC513105011295", "STRM26138003393", "WSC513105011296"])
        #expect(request.entries.map(\.label) == ["Front lanes 1", "Front lanes 2", "Front lanes 3"])
    }

    @Test func oneSerialTakesTheLabelAsIsAndNoLabelIsAllowed() throws {
        #expect(try SerialRegistrationRequest(serials: "WSC513105011295", labelPrefix: "Alice's reader").entries
            == [.init(serial: "WSC513105011295", label: "Alice's reader")])
        #expect(try SerialRegistrationRequest(serials: "A1B2,C3D4", labelPrefix: nil).entries.allSatisfy { $0.label == nil })
    }

    @Test(arguments: [
        ("", RegistrationError.Code.noSerials),
        (" , ,", .noSerials),
        ("WSC5131,WSC5131", .duplicateSerial),
        ("WSC 513/1", .malformedSerial),
        ("AB", .malformedSerial),
    ])
    func badSerialListsAreRefusedWithTheirReason(serials: String, expected: RegistrationError.Code) {
        do {
            _ = try SerialRegistrationRequest(serials: serials, labelPrefix: nil)
            Issue.record("\(serials.debugDescription) should be refused")
        } catch {
            #expect(error.code == expected)
        }
    }

    @Test func tooManySerialsAndBadLabelsAreRefused() {
        let many = (0...SerialRegistrationRequest.maximumCount).map { "SER\($0 + 1000)" }
        #expect(throws: RegistrationError.self) { try SerialRegistrationRequest(serials: many, labelPrefix: nil) }
        #expect(throws: RegistrationError.self) { try SerialRegistrationRequest(serials: ["SER1000"], labelPrefix: "  ") }
        #expect(throws: RegistrationError.self) { try SerialRegistrationRequest(serials: ["SER1000"], labelPrefix: "a\nb") }
    }
}
