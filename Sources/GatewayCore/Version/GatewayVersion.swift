/// A release's semantic version (`MAJOR.MINOR.PATCH`), ordered as numbers are.
///
/// ``current`` is the one place the gateway's version is written: `reader-gateway --version`,
/// the start-up log, `reader_gateway_build_info`, the node directory and the schema's
/// compatibility floors read it; `CHANGELOG.md`, the chart's `appVersion` and the image's
/// label repeat it, and a test checks that they agree.
public struct GatewayVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// This build's version. Raise it for a release and record the release in `CHANGELOG.md`.
    public static let current = GatewayVersion(0, 2, 0)

    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `1.2.3` (a leading `v` is accepted); nil for anything else.
    public init?(_ text: String) {
        let digits = text.hasPrefix("v") ? text.dropFirst() : Substring(text)
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII }), let number = Int(part), number >= 0, String(number) == part else { return nil }
            numbers.append(number)
        }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: GatewayVersion, rhs: GatewayVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
