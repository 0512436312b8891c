import Foundation

/// The opaque page token of a list ordered by `seq` (the event log, the audit log): the
/// `seq` of the last row a page returned, base64url-encoded behind a version tag so its form
/// can change. The next page starts below it, so rows written after the first page never
/// shift the later ones; each list has its own tag, so neither takes the other's token.
public struct PageCursor: Sendable {
    private let tag: String

    /// The event log's pages.
    public static let events = PageCursor(tag: "ev1:")
    /// The audit log's pages.
    public static let audit = PageCursor(tag: "au1:")

    public func token(after seq: Int64) -> String {
        Data((tag + String(seq)).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The `seq` a token carries; nil for a token this gateway did not issue for this list.
    public func seq(_ token: String) -> Int64? {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard base64.count <= 64 else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8), text.hasPrefix(tag),
            let seq = Int64(text.dropFirst(tag.count)), seq > 0
        else { return nil }
        return seq
    }
}
