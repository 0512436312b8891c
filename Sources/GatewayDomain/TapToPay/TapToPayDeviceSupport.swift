/// Whether a phone can be a Tap to Pay reader (Stripe's supported-device criteria).
///
/// A device is supported when its model identifier names a supported family at or after
/// that family's first supported generation (`iPhone11,2`, the iPhone XS, onwards) and its
/// operating system is at least ``minimumOSVersion``. Pure: the gateway and the client
/// library's simulated device ask the same rule.
public struct TapToPayDeviceSupport: Sendable, Hashable {
    /// The verdict for one device.
    public enum Verdict: Sendable, Hashable {
        /// The device can take Tap to Pay payments.
        case supported
        /// The model is not on the list (or not a model identifier at all).
        case unsupportedModel(String)
        /// The model is supported but its operating system is older than `minimum`.
        case unsupportedOSVersion(String, minimum: String)
    }

    /// Per model family (`iPhone`), the first supported generation (the `11` of `iPhone11,2`).
    public var firstGeneration: [String: Int]
    /// The oldest supported operating system version, as dotted numbers.
    public var minimumOSVersion: [Int]

    /// iPhone XS (`iPhone11,2`) or later on iOS 16.4 or later.
    public static let standard = TapToPayDeviceSupport(firstGeneration: ["iPhone": 11], minimumOSVersion: [16, 4])

    public init(firstGeneration: [String: Int], minimumOSVersion: [Int]) {
        self.firstGeneration = firstGeneration
        self.minimumOSVersion = minimumOSVersion
    }

    /// Checks a device's model identifier (`iPhone15,2`) and OS version (`17.4.1`).
    public func check(model: String, osVersion: String) -> Verdict {
        guard let (family, generation) = Self.parse(model: model),
              let first = firstGeneration[family], generation >= first
        else { return .unsupportedModel(model) }
        guard let version = Self.parse(version: osVersion), !Self.precedes(version, minimumOSVersion) else {
            return .unsupportedOSVersion(osVersion, minimum: minimumOSVersion.map(String.init).joined(separator: "."))
        }
        return .supported
    }

    /// `iPhone15,2` → (`iPhone`, 15); nil when it is not of that shape.
    static func parse(model: String) -> (String, Int)? {
        let family = model.prefix { $0.isLetter }
        let rest = model.dropFirst(family.count)
        guard !family.isEmpty, let comma = rest.firstIndex(of: ","),
              let generation = Int(rest[..<comma]), Int(rest[rest.index(after: comma)...]) != nil
        else { return nil }
        return (String(family), generation)
    }

    /// `17.4.1` → [17, 4, 1]; nil when a part is not a number.
    static func parse(version: String) -> [Int]? {
        let parts = version.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.map { $0! }
    }

    /// Whether `version` is older than `minimum` (missing parts count as 0).
    static func precedes(_ version: [Int], _ minimum: [Int]) -> Bool {
        for index in 0..<max(version.count, minimum.count) {
            let left = index < version.count ? version[index] : 0
            let right = index < minimum.count ? minimum[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
