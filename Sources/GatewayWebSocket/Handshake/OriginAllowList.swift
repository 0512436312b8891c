/// Which browser origins may open a WebSocket to the gateway.
///
/// Browsers send `Origin` on every WebSocket handshake and let any page open one, so the
/// allow-list is what stops a page on another site from using a lane's network position.
/// Programs that are not browsers send no `Origin`; they are not subject to the list (a
/// page cannot leave the header out). Origins compare as RFC 6454 serializations
/// (`https://pos.example.com`, `http://localhost:8080`), case-insensitively; `null` (an
/// opaque origin: a file, a sandboxed frame) matches only an explicit `null` entry. An
/// entry whose port is `*` (`http://localhost:*`, for development) matches its scheme and
/// host on any port.
public struct OriginAllowList: Sendable, Hashable, CustomStringConvertible {
    private enum Rule: Sendable, Hashable {
        case any
        /// Origins listed as they are, and `scheme://host` of the entries with port `*`.
        case listed(exact: Set<String>, anyPort: Set<String>)
    }

    private let rule: Rule

    /// Every origin is allowed (development only: any web page can then reach the gateway).
    public static let any = OriginAllowList(rule: .any)

    /// No browser origin is allowed; clients that send no `Origin` still are.
    public static let none = OriginAllowList(rule: .listed(exact: [], anyPort: []))

    /// Exactly these origins (`scheme://host[:port]`, no path; port `*` for any port).
    public static func only(_ origins: some Sequence<String>) -> OriginAllowList {
        let entries = origins.map { normalize($0) }
        let anyPort = entries.filter { $0.hasSuffix(":*") }
        return OriginAllowList(rule: .listed(exact: Set(entries).subtracting(anyPort), anyPort: Set(anyPort.map { String($0.dropLast(2)) })))
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
        case .listed(let exact, let anyPort):
            let origin = Self.normalize(origin)
            return exact.contains(origin) || (!anyPort.isEmpty && anyPort.contains(Self.withoutPort(origin)))
        }
    }

    /// The list as the flag takes it: `*`, the entries, or `none`.
    public var description: String {
        switch rule {
        case .any: return "*"
        case .listed(let exact, let anyPort):
            let entries = exact.sorted() + anyPort.sorted().map { $0 + ":*" }
            return entries.isEmpty ? "none" : entries.joined(separator: ",")
        }
    }

    /// `scheme://host` of `scheme://host[:port]` (an IPv6 host keeps its brackets).
    private static func withoutPort(_ origin: String) -> String {
        guard let colon = origin.lastIndex(of: ":"), let schemeEnd = origin.firstRange(of: "://"), colon > schemeEnd.lowerBound,
              origin[origin.index(after: colon)...].allSatisfy(\.isNumber), !origin[origin.index(after: colon)...].isEmpty else { return origin }
        return String(origin[..<colon])
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
