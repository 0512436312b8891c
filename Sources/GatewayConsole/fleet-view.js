// What the console shows of a reader, as plain text (no HTML is ever built from values).
import { common, admin } from "/readergateway/v1/js/readergateway.js";

/** The table cells of one FleetReader, by column class. */
export function readerCells(fleetReader) {
  const reader = fleetReader.reader ?? {};
  const holder = fleetReader.holder;
  const since = Number(fleetReader.holderSinceUnixMs ?? 0n);
  return {
    label: reader.label || reader.serialNumber || reader.id,
    serial: reader.serialNumber ?? "",
    device: nameOf(common.DeviceType, reader.deviceType),
    status: nameOf(common.ReaderNetworkStatus, reader.networkStatus) || "offline",
    activity: fleetReader.inTransaction ? "in transaction" : (nameOf(common.ReaderActivity, reader.activity) || "—"),
    holder: holder ? `${holder.laneLabel || "(no lane label)"} (${holder.posDeviceId || "?"})` : "free",
    since: holder && since > 0 ? new Date(since).toLocaleTimeString() : "",
    battery: reader.batteryLevel === undefined || reader.batteryLevel === null ? "" : `${Math.round(reader.batteryLevel * 100)} %`,
    version: reader.softwareVersion ?? "",
  };
}

/** One ownership history entry as a line. */
export function historyLine(entry) {
  const at = new Date(Number(entry.atUnixMs ?? 0n)).toLocaleTimeString();
  const who = (owner) => owner ? `${owner.laneLabel || "?"} (${owner.posDeviceId || "?"})` : "";
  const reason = nameOf(admin.OwnershipChangeReason, entry.reason) || "changed";
  const parts = [at, reason];
  if (entry.session) parts.push(who(entry.session));
  if (entry.previousOwner) parts.push(`from ${who(entry.previousOwner)}`);
  // A forced release names the key that forced it (from the audit log's release statement).
  if (entry.releasedByKeyId || entry.releasedByKeyName) {
    parts.push(`by key ${entry.releasedByKeyName || "account key"}${entry.releasedByKeyId ? ` (${entry.releasedByKeyId})` : ""}`);
  }
  return parts.join(" · ");
}

function nameOf(enumType, value) {
  const name = typeof value === "string" ? value : enumType.nameOf(value ?? 0);
  return !name || name === "UNSPECIFIED" ? "" : name.toLowerCase().replaceAll("_", " ");
}
