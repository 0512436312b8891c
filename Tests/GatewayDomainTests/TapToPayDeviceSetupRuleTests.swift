import GatewayDomain
import Testing

/// When a phone must be set up before its Tap to Pay reader takes payments.
@Suite("Tap to Pay: device setup rule")
struct TapToPayDeviceSetupRuleTests {
    typealias Rule = TapToPayDeviceSetupRule
    let phone = Rule.Setup(model: "iPhone15,2", osVersion: "17.4")

    @Test("a device never set up must be set up; one set up for the same model and version need not")
    func firstConnectThenNever() {
        #expect(Rule.setupNeeded(recorded: nil, device: phone) == .firstConnect)
        #expect(Rule.setupNeeded(recorded: phone, device: phone) == nil)
    }

    @Test("an OS update or another model invalidates the setup")
    func invalidated() {
        #expect(Rule.setupNeeded(recorded: phone, device: .init(model: "iPhone15,2", osVersion: "17.5")) == .osVersionChanged(from: "17.4"))
        #expect(Rule.setupNeeded(recorded: phone, device: .init(model: "iPhone16,1", osVersion: "17.4")) == .modelChanged(from: "iPhone15,2"))
        // Going back to the older version is a change as well: the setup is for one version.
        #expect(Rule.setupNeeded(recorded: .init(model: "iPhone15,2", osVersion: "17.5"), device: phone) == .osVersionChanged(from: "17.5"))
    }
}
