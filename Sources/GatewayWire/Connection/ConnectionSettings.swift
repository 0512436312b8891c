/// The limits one side of a connection announces in its SETTINGS frame.
///
/// Each side enforces its own settings on what it receives and obeys the
/// peer's on what it sends. Until the peer's SETTINGS arrives, the defaults
/// apply; they are also the value of any field sent as 0.
public struct ConnectionSettings: Sendable, Hashable {
    /// 4 MiB, gRPC's default max receive message size.
    public static let defaultMaxFrameSize = 4 << 20
    /// 100 calls at once.
    public static let defaultMaxConcurrentStreams = 100
    /// 64 KiB per stream.
    public static let defaultInitialStreamWindow = 64 << 10
    /// 1 MiB per connection.
    public static let defaultInitialConnectionWindow = 1 << 20
    /// 16 KiB of method path and metadata.
    public static let defaultMaxHeaderSize = 16 << 10
    /// The smallest max frame size a peer may announce.
    public static let minimumMaxFrameSize = 16 << 10

    /// Largest frame payload accepted.
    public var maxFrameSize: Int
    /// Calls the peer may have open at once.
    public var maxConcurrentStreams: Int
    /// Receive window of each new stream (MESSAGE payload bytes).
    public var initialStreamWindow: Int
    /// Receive window of the connection (MESSAGE payload bytes).
    public var initialConnectionWindow: Int
    /// Largest CALL_START payload accepted.
    public var maxHeaderSize: Int

    public init(
        maxFrameSize: Int = ConnectionSettings.defaultMaxFrameSize,
        maxConcurrentStreams: Int = ConnectionSettings.defaultMaxConcurrentStreams,
        initialStreamWindow: Int = ConnectionSettings.defaultInitialStreamWindow,
        initialConnectionWindow: Int = ConnectionSettings.defaultInitialConnectionWindow,
        maxHeaderSize: Int = ConnectionSettings.defaultMaxHeaderSize
    ) {
        self.maxFrameSize = maxFrameSize
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialStreamWindow = initialStreamWindow
        self.initialConnectionWindow = initialConnectionWindow
        self.maxHeaderSize = maxHeaderSize
    }

    /// The SETTINGS payload announcing these limits.
    public var message: ReaderGatewayV1.Settings {
        var settings = ReaderGatewayV1.Settings()
        settings.protocolVersion = 1
        settings.maxFrameSize = UInt32(clamping: maxFrameSize)
        settings.maxConcurrentStreams = UInt32(clamping: maxConcurrentStreams)
        settings.initialStreamWindow = UInt32(clamping: initialStreamWindow)
        settings.initialConnectionWindow = UInt32(clamping: initialConnectionWindow)
        settings.maxHeaderSize = UInt32(clamping: maxHeaderSize)
        return settings
    }

    /// The limits a received SETTINGS announces (0 means the default).
    public init(_ settings: ReaderGatewayV1.Settings) throws {
        func value(_ raw: UInt32, _ fallback: Int) -> Int { raw == 0 ? fallback : Int(raw) }
        guard settings.protocolVersion <= 1 else {
            throw WireError(code: .invalidPreface, message: "the peer speaks protocol version \(settings.protocolVersion); this side speaks 1")
        }
        self.init(
            maxFrameSize: value(settings.maxFrameSize, Self.defaultMaxFrameSize),
            maxConcurrentStreams: value(settings.maxConcurrentStreams, Self.defaultMaxConcurrentStreams),
            initialStreamWindow: value(settings.initialStreamWindow, Self.defaultInitialStreamWindow),
            initialConnectionWindow: value(settings.initialConnectionWindow, Self.defaultInitialConnectionWindow),
            maxHeaderSize: value(settings.maxHeaderSize, Self.defaultMaxHeaderSize)
        )
        guard maxFrameSize >= Self.minimumMaxFrameSize else {
            throw WireError(code: .invalidFrame, message: "SETTINGS max_frame_size \(maxFrameSize) is below the minimum \(Self.minimumMaxFrameSize)")
        }
        guard Int64(initialStreamWindow) <= FrameHeader.maxWindow, Int64(initialConnectionWindow) <= FrameHeader.maxWindow else {
            throw WireError(code: .invalidFrame, message: "SETTINGS windows must be at most 2^31-1")
        }
    }
}

/// A point on a monotonic clock, in nanoseconds. The connection never reads a
/// clock: the transport passes the time in, which keeps it pure and testable.
public struct WireTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary fixed origin.
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func < (lhs: WireTime, rhs: WireTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// This time plus `duration` (saturating).
    public func adding(_ duration: Duration) -> WireTime {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(clamping: Self.nanoseconds(of: duration)))
        return WireTime(nanoseconds: overflow ? .max : sum)
    }

    /// `duration` in whole nanoseconds (negative durations count as 0).
    public static func nanoseconds(of duration: Duration) -> Int64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : whole &+ attoseconds / 1_000_000_000
    }

    /// The duration from `earlier` to this time (zero if `earlier` is later).
    public func since(_ earlier: WireTime) -> Duration {
        .nanoseconds(Int64(clamping: nanoseconds >= earlier.nanoseconds ? nanoseconds - earlier.nanoseconds : 0))
    }

    public var description: String { "\(nanoseconds)ns" }

    private static let origin = ContinuousClock.now

    /// Now on the process's monotonic clock: nanoseconds since the first use, plus one
    /// second so it is never 0. For the transports that drive a ``FrameConnection``; the
    /// connection itself never reads a clock.
    public static var now: WireTime {
        let base = origin
        return WireTime(nanoseconds: UInt64(nanoseconds(of: ContinuousClock.now - base)) &+ 1_000_000_000)
    }
}
