/// Which browser origins may open a WebSocket to the gateway.
///
/// Browsers send `Origin` on every WebSocket handshake and let any page open one, so the
/// allow-list is what stops a page on another site from using a lane's network position.
/// Programs that are not browsers send no `Origin`; they are not subject to the list (a
/// page cannot leave the header out). Origins compare as RFC 6454 serializations
/// (`https://pos.example.com`, `http://localhost:8080`), case-insensitively; `null` (an
/// opaque origin: a file, a sandboxed frame) matches only an explicit `null` entry.
public struct OriginAllowList: Sendable, Hashable {
    private enum Rule: Sendable, Hashable {
        case any
        case exactly(Set<String>)
    }

    private let rule: Rule

    /// Every origin is allowed (development only: any web page can then reach the gateway).
    public static let any = OriginAllowList(rule: .any)

    /// No browser origin is allowed; clients that send no `Origin` still are.
    public static let none = OriginAllowList(rule: .exactly([]))

    /// Exactly these origins (`scheme://host[:port]`, no path).
    public static func only(_ origins: some Sequence<String>) -> OriginAllowList {
        OriginAllowList(rule: .exactly(Set(origins.map { normalize($0) })))
    }

    private init(rule: Rule) { self.rule = rule }

    /// Parses the flag, environment or Helm value: `*` for any origin, otherwise a
    /// comma- or space-separated list of origins. An empty value allows no browser origin.
    /// Fails, naming the entry, when one has no scheme, or has a path, a query or a fragment.
    public static func parse(_ value: String) -> Result<OriginAllowList, OriginAllowListError> {
        let entries = value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        if entries == ["*"] { return .success(.any) }
        for entry in entries where entry != "null" {
            guard let schemeEnd = entry.firstRange(of: "://") else { return .failure(OriginAllowListError(entry: entry)) }
            let rest = entry[schemeEnd.upperBound...]
            if rest.isEmpty || rest.contains("/") || rest.contains("?") || rest.contains("#") || entry == "*" {
                return .failure(OriginAllowListError(entry: entry))
            }
        }
        return .success(.only(entries))
    }

    /// Whether a handshake carrying this `Origin` value (nil: no header) may proceed.
    public func allows(_ origin: String?) -> Bool {
        guard let origin else { return true }
        switch rule {
        case .any: return true
        case .exactly(let origins): return origins.contains(Self.normalize(origin))
        }
    }

    private static func normalize(_ origin: String) -> String {
        var value = origin.lowercased()
        while value.hasSuffix("/") { value.removeLast() }
        return value
    }
}

/// An allow-list entry that is not an origin (`scheme://host[:port]`).
public struct OriginAllowListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry as it was given.
    public let entry: String

    public var description: String {
        "'\(entry)' is not an origin: write scheme://host[:port] (for example https://pos.example.com), '*' for any, or 'null'"
    }
}
