import GatewayWire

/// How `gatewayctl watch` prints the fleet: one line per reader of the snapshot, then one
/// line per change, as text (`snapshot`, `changed`, `removed` first) or one JSON object per
/// line (`--json`).
public enum FleetWatchRendering {
    /// The lines of one WatchFleet event.
    public static func lines(_ event: ReaderGatewayV1.WatchFleetEvent, json: Bool) -> [String] {
        switch event.event {
        case .snapshot(let snapshot):
            var lines = snapshot.readers.map { reader in
                json ? line(kind: "snapshot", reader, at: event.atUnixMs).compact : text(kind: "snapshot", reader)
            }
            if snapshot.complete {
                lines.append(json ? JSONValue.object(["event": .string("snapshot_complete"), "at": .string(AdminRendering.time(event.atUnixMs))]).compact : "snapshot complete; watching")
            }
            return lines
        case .readerChanged(let reader):
            return [json ? line(kind: "changed", reader, at: event.atUnixMs).compact : text(kind: "changed", reader)]
        case .readerRemoved(let id):
            return [json ? JSONValue.object(["event": .string("removed"), "reader_id": .string(id), "at": .string(AdminRendering.time(event.atUnixMs))]).compact : "removed \(id)"]
        case nil:
            return []
        }
    }

    /// `changed tmr_… "Counter 1" serial=WSB-1 online idle holder="Lane A" pos=pos-a since=… in_transaction=false battery=0.8 version=1.2`.
    public static func text(kind: String, _ fleet: ReaderGatewayV1.FleetReader) -> String {
        let reader = fleet.reader ?? ReaderGatewayV1.Reader()
        var parts = [kind, reader.id, "\"\(reader.label)\"", "serial=\(reader.serialNumber)", AdminRendering.network(reader.networkStatus), AdminRendering.activity(reader.activity)]
        if let holder = fleet.holder {
            parts += ["holder=\"\(holder.laneLabel)\"", "pos=\(AdminRendering.dash(holder.posDeviceID))", "since=\(AdminRendering.time(fleet.holderSinceUnixMs))"]
        } else {
            parts.append("holder=-")
        }
        parts.append("in_transaction=\(fleet.inTransaction)")
        if let battery = reader.batteryLevel { parts.append("battery=\(battery)") }
        if !reader.softwareVersion.isEmpty { parts.append("version=\(reader.softwareVersion)") }
        return parts.joined(separator: " ")
    }

    public static func line(kind: String, _ fleet: ReaderGatewayV1.FleetReader, at: Int64) -> JSONValue {
        let holder: JSONValue = fleet.holder.map { holder in
            .object(["session_id": .string(holder.sessionID), "lane_label": .string(holder.laneLabel), "pos_device_id": .string(holder.posDeviceID)])
        } ?? .null
        return .object([
            "event": .string(kind), "at": .string(AdminRendering.time(at)), "reader": AdminRendering.json(fleet.reader ?? ReaderGatewayV1.Reader()),
            "holder": holder, "holder_since": .string(AdminRendering.time(fleet.holderSinceUnixMs)),
            "in_transaction": .bool(fleet.inTransaction), "generation": .integer(Int64(clamping: fleet.generation)),
        ])
    }
}
