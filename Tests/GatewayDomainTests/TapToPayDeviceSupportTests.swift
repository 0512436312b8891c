import GatewayDomain
import Testing

/// Which phones can be Tap to Pay readers.
@Suite("Tap to Pay: supported devices")
struct TapToPayDeviceSupportTests {
    let support = TapToPayDeviceSupport.standard

    @Test("iPhone XS (iPhone11,2) or later on iOS 16.4 or later is supported")
    func supported() {
        #expect(support.check(model: "iPhone11,2", osVersion: "16.4") == .supported)
        #expect(support.check(model: "iPhone15,2", osVersion: "17.4.1") == .supported)
        #expect(support.check(model: "iPhone16,1", osVersion: "18") == .supported)
    }

    @Test("an older model, another family or a malformed identifier is refused by model")
    func unsupportedModels() {
        for model in ["iPhone10,6", "iPad13,1", "Pixel 8", "", "iPhone", "iPhone15", "iPhone15,x"] {
            #expect(support.check(model: model, osVersion: "17.4") == .unsupportedModel(model), "\(model)")
        }
    }

    @Test("a supported model on an older or malformed OS version is refused by version, naming the minimum")
    func unsupportedVersions() {
        for version in ["16.3.9", "15", "16", "", "sixteen", "16..4"] {
            #expect(support.check(model: "iPhone15,2", osVersion: version) == .unsupportedOSVersion(version, minimum: "16.4"), "\(version)")
        }
        #expect(support.check(model: "iPhone15,2", osVersion: "16.4.0") == .supported)
    }
}
