import Foundation
import GatewayWire

/// How gatewayctl shows admin results: a table for humans, JSON for scripts.
public enum AdminRendering {
    // MARK: names

    static func shortName(_ name: String?, prefix: String) -> String {
        guard let name else { return "unknown" }
        return name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)).lowercased() : name.lowercased()
    }

    static func network(_ status: ReaderGatewayV1.ReaderNetworkStatus) -> String {
        shortName(status.protoName, prefix: "READER_NETWORK_STATUS_")
    }

    static func activity(_ activity: ReaderGatewayV1.ReaderActivity) -> String {
        shortName(activity.protoName, prefix: "READER_ACTIVITY_")
    }

    static func changeReason(_ reason: ReaderGatewayV1.OwnershipChangeReason) -> String {
        shortName(reason.protoName, prefix: "OWNERSHIP_CHANGE_REASON_")
    }

    /// `2026-11-21T23:41:03Z`, or `-` for 0.
    public static func time(_ unixMilliseconds: Int64) -> String {
        guard unixMilliseconds > 0 else { return "-" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(unixMilliseconds) / 1_000))
    }

    static func dash(_ text: String) -> String { text.isEmpty ? "-" : text }

    // MARK: locations

    public static func json(_ location: ReaderGatewayV1.Location) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(location.id), "display_name": .string(location.displayName)]
        if let address = location.address {
            object["address"] = .object([
                "line1": .string(address.line1), "line2": .string(address.line2), "city": .string(address.city),
                "state": .string(address.state), "postal_code": .string(address.postalCode), "country": .string(address.country),
            ])
        }
        if let window = location.installWindow {
            object["install_window"] = .object([
                "start_minute": .integer(Int64(window.startMinute)), "end_minute": .integer(Int64(window.endMinute)),
                "utc_offset_minutes": .integer(Int64(window.utcOffsetMinutes)), "text": .string(InstallWindowText.show(window)),
            ])
        }
        return .object(object)
    }

    /// What `locations create` prints without `--json`: the new location's id alone, the
    /// one value the next commands need (`LOC=$(gatewayctl locations create "Front Store")`).
    public static func created(_ location: ReaderGatewayV1.Location) -> String { location.id }

    public static func table(_ locations: [ReaderGatewayV1.Location]) -> Table {
        Table(
            headers: ["ID", "NAME", "CITY", "INSTALL WINDOW"],
            rows: locations.map { [$0.id, $0.displayName, dash($0.address?.city ?? ""), dash($0.installWindow.map(InstallWindowText.show) ?? "")] }
        )
    }

    // MARK: readers

    /// A reader; `holder` (the owning session, when the caller looked it up) is added as `holder`.
    public static func json(_ reader: ReaderGatewayV1.Reader, holder: ReaderGatewayV1.ReaderOwner? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(reader.id), "serial_number": .string(reader.serialNumber), "label": .string(reader.label),
            "device_type": .string(reader.deviceType.commandLineName), "software_version": .string(reader.softwareVersion),
            "location_id": .string(reader.locationID), "status": .string(network(reader.networkStatus)),
            "activity": .string(activity(reader.activity)), "ip_address": .string(reader.ipAddress),
            "last_seen_unix_ms": .integer(reader.lastSeenUnixMs), "simulated": .bool(reader.simulated),
        ]
        if let battery = reader.batteryLevel { object["battery_level"] = .number(Double(battery)) }
        object["available_update"] = reader.availableUpdate.map { json($0) } ?? .null
        if let holder { object["holder"] = json(holder) }
        return .object(object)
    }

    /// The fleet view: every reader, smart and mobile, with its holder when `holders` (reader
    /// id → owner) is given.
    public static func table(_ readers: [ReaderGatewayV1.Reader], holders: [String: ReaderGatewayV1.ReaderOwner]? = nil) -> Table {
        var headers = ["ID", "LABEL", "SERIAL", "DEVICE", "LOCATION", "STATUS", "ACTIVITY"]
        if holders != nil { headers.append("HOLDER") }
        headers += ["BATTERY", "VERSION", "UPDATE", "IP", "LAST SEEN"]
        return Table(headers: headers, rows: readers.map { reader in
            var row = [reader.id, reader.label, reader.serialNumber, reader.deviceType.commandLineName, reader.locationID,
                       network(reader.networkStatus), activity(reader.activity)]
            if let holders { row.append(holder(holders[reader.id])) }
            row += [battery(reader), dash(reader.softwareVersion), pendingUpdate(reader), dash(reader.ipAddress), time(reader.lastSeenUnixMs)]
            return row
        })
    }

    // MARK: ownership

    public static func json(_ owner: ReaderGatewayV1.ReaderOwner?) -> JSONValue {
        guard let owner, !owner.sessionID.isEmpty else { return .null }
        return .object(["session_id": .string(owner.sessionID), "pos_device_id": .string(owner.posDeviceID), "lane_label": .string(owner.laneLabel)])
    }

    public static func json(_ ownership: ReaderGatewayV1.ReaderOwnership) -> JSONValue {
        .object([
            "reader_id": .string(ownership.readerID), "reader_label": .string(ownership.readerLabel), "owner": json(ownership.owner),
            "since_unix_ms": .integer(ownership.sinceUnixMs), "generation": .integer(Int64(clamping: ownership.generation)),
            "in_transaction": .bool(ownership.inTransaction), "status": .string(network(ownership.networkStatus)),
        ])
    }

    public static func table(_ ownerships: [ReaderGatewayV1.ReaderOwnership]) -> Table {
        Table(headers: ["READER", "LABEL", "STATUS", "OWNER LANE", "POS DEVICE", "SESSION", "SINCE", "GEN", "IN TRANSACTION"], rows: ownerships.map {
            let owner = $0.owner
            let owned = !(owner?.sessionID.isEmpty ?? true)
            return [$0.readerID, $0.readerLabel, network($0.networkStatus), owned ? dash(owner?.laneLabel ?? "") : "(none)",
                    owned ? dash(owner?.posDeviceID ?? "") : "-", owned ? owner?.sessionID ?? "-" : "-",
                    owned ? time($0.sinceUnixMs) : "-", "\($0.generation)", $0.inTransaction ? "yes" : "no"]
        })
    }

    public static func json(_ entry: ReaderGatewayV1.OwnershipHistoryEntry) -> JSONValue {
        .object([
            "reader_id": .string(entry.readerID), "reason": .string(changeReason(entry.reason)), "at_unix_ms": .integer(entry.atUnixMs),
            "generation": .integer(Int64(clamping: entry.generation)), "session": json(entry.session), "previous_owner": json(entry.previousOwner),
            "mobile_disconnect_reason": entry.reason == .mobileLinkEnded ? .string(mobileDisconnectReason(entry.mobileDisconnectReason)) : .null,
            "link_reconnecting": entry.reason == .mobileLinkEnded ? .bool(entry.linkReconnecting) : .null,
            "released_by_key_id": entry.releasedByKeyID.isEmpty ? .null : .string(entry.releasedByKeyID),
            "released_by_key_name": entry.releasedByKeyName.isEmpty ? .null : .string(entry.releasedByKeyName),
        ])
    }

    /// `powered_off` for `MOBILE_DISCONNECT_REASON_POWERED_OFF`.
    static func mobileDisconnectReason(_ reason: ReaderGatewayV1.MobileDisconnectReason) -> String {
        shortName(reason.protoName, prefix: "MOBILE_DISCONNECT_REASON_")
    }

    /// The CHANGE cell: the change, and for a Bluetooth reader's ended link why, and whether
    /// its device was reconnecting (`mobile_link_ended: powered_off, reconnecting`).
    static func change(_ entry: ReaderGatewayV1.OwnershipHistoryEntry) -> String {
        if entry.reason == .adminReleased, !entry.releasedByKeyID.isEmpty || !entry.releasedByKeyName.isEmpty {
            return "\(changeReason(entry.reason)) by \(entry.releasedByKeyName.isEmpty ? "account key" : entry.releasedByKeyName)"
                + (entry.releasedByKeyID.isEmpty ? "" : " (\(entry.releasedByKeyID))")
        }
        guard entry.reason == .mobileLinkEnded else { return changeReason(entry.reason) }
        return "\(changeReason(entry.reason)): \(mobileDisconnectReason(entry.mobileDisconnectReason))" + (entry.linkReconnecting ? ", reconnecting" : "")
    }

    public static func table(_ entries: [ReaderGatewayV1.OwnershipHistoryEntry]) -> Table {
        Table(headers: ["AT", "GEN", "CHANGE", "LANE", "POS DEVICE", "SESSION", "PREVIOUS LANE"], rows: entries.map {
            [time($0.atUnixMs), "\($0.generation)", change($0), dash($0.session?.laneLabel ?? ""),
             dash($0.session?.posDeviceID ?? ""), dash($0.session?.sessionID ?? ""), dash($0.previousOwner?.laneLabel ?? "")]
        })
    }

    // MARK: sessions and tokens

    public static func json(_ session: ReaderGatewayV1.SessionInfo) -> JSONValue {
        .object([
            "session_id": .string(session.sessionID), "pos_device_id": .string(session.posDeviceID), "lane_label": .string(session.laneLabel),
            "connected_reader_id": session.connectedReaderID.isEmpty ? .null : .string(session.connectedReaderID),
            "opened_unix_ms": .integer(session.openedUnixMs), "last_seen_unix_ms": .integer(session.lastSeenUnixMs),
            "lease_expires_unix_ms": .integer(session.leaseExpiresUnixMs), "connected": .bool(session.connected),
        ])
    }

    public static func table(_ sessions: [ReaderGatewayV1.SessionInfo]) -> Table {
        Table(headers: ["SESSION", "LANE", "POS DEVICE", "READER", "CONNECTED", "OPENED", "LEASE EXPIRES"], rows: sessions.map {
            [$0.sessionID, dash($0.laneLabel), dash($0.posDeviceID), dash($0.connectedReaderID), $0.connected ? "yes" : "no",
             time($0.openedUnixMs), time($0.leaseExpiresUnixMs)]
        })
    }

    /// What `tokens create` prints without `--json` or `--table`: the token alone, the one
    /// value a backend hands the point of sale (`TOKEN=$(gatewayctl tokens create --location tml_...)`).
    public static func created(_ token: ReaderGatewayV1.CreateConnectionTokenResponse) -> String { token.secret }

    /// `tokens create --table`: the token, when it expires and the location it is limited to.
    public static func table(_ token: ReaderGatewayV1.CreateConnectionTokenResponse) -> Table {
        Table(headers: ["TOKEN", "EXPIRES", "LOCATION"], rows: [[token.secret, time(token.expiresUnixMs), token.locationID.isEmpty ? "(any)" : token.locationID]])
    }

    public static func json(_ token: ReaderGatewayV1.CreateConnectionTokenResponse) -> JSONValue {
        .object([
            "secret": .string(token.secret), "expires_unix_ms": .integer(token.expiresUnixMs),
            "location_id": token.locationID.isEmpty ? .null : .string(token.locationID),
        ])
    }
}
