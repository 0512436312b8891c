import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// A reader's live status, announced by its home replica when its owner is
/// on another replica (`NOTIFY reader_gateway_status`).
struct ReaderStatusNotice: Sendable, Equatable {
    static let channel = "reader_gateway_status"

    var reader: ReaderID
    var activity: ReaderGatewayV1.ReaderActivity
    var batteryLevel: Float?
    var ipAddress: String

    init(reader: ReaderID, activity: ReaderGatewayV1.ReaderActivity, batteryLevel: Float?, ipAddress: String) {
        self.reader = reader
        self.activity = activity
        self.batteryLevel = batteryLevel
        self.ipAddress = ipAddress
    }

    /// `<reader> <activity> <battery or -> <ip or ->`.
    var payload: String {
        "\(reader.rawValue) \(activity.rawValue) \(batteryLevel.map { "\($0)" } ?? "-") \(ipAddress.isEmpty ? "-" : ipAddress)"
    }

    /// Parses a payload; fields after the fourth (a later release's) are ignored.
    init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 4, !fields[0].isEmpty, let activity = Int32(fields[1]) else { return nil }
        reader = ReaderID(String(fields[0]))
        self.activity = ReaderGatewayV1.ReaderActivity(rawValue: activity)
        if fields[2] == "-" { batteryLevel = nil } else {
            guard let level = Float(fields[2]) else { return nil }
            batteryLevel = level
        }
        ipAddress = fields[3] == "-" ? "" : String(fields[3])
    }
}

extension ClusterFollower {
    func announce(_ notice: ReaderStatusNotice) async {
        do {
            _ = try await notices.execute("SELECT pg_notify($1, $2)", [PostgresValue(ReaderStatusNotice.channel), PostgresValue(notice.payload)])
        } catch {
            logger.debug("could not announce a reader status change", ["reader": notice.reader, "error": error])
        }
    }

    /// Delivers status changes of readers owned by sessions here, announced by
    /// their home replicas; until cancelled.
    func runStatusNotices() async {
        await notices.follow(ReaderStatusNotice.channel) { notification in
            guard !notification.isResubscription, let notice = ReaderStatusNotice(payload: notification.payload) else { return }
            await self.deliverStatus(notice)
        }
    }

    func deliverStatus(_ notice: ReaderStatusNotice) async {
        // For an owner here of a reader whose link is elsewhere (a link here delivers its own).
        guard let owner = registry.remoteStatusRecipient(notice.reader) else { return }
        let found = await followUp("reading a reader for its status notice", leaves: "its owner here misses this status change (the next one carries the state)") {
            try await readerRecords.reader(notice.reader.rawValue, account: owner.accountID)
        }
        guard let record = found ?? nil else { return }
        var reader = Gateway.readerMessage(at: registry.clock, record, link: nil)
        reader.networkStatus = .online
        reader.activity = notice.activity
        reader.batteryLevel = notice.batteryLevel
        reader.ipAddress = notice.ipAddress
        var status = ReaderGatewayV1.ReaderStatusChanged()
        status.reader = reader
        let nowUnixMs = registry.clock.nowUnixMs
        registry.remoteStatusReceived(status, reader: notice.reader, session: owner.id, nowUnixMs: nowUnixMs)
    }
}
