import GatewayCore
import GatewayRepositories

/// The JSON body of a delivery: the event as `ListEvents` knows it (PROTOCOL.md section 23).
///
///     {"id":"evt_...","object":"event","type":"reader.online","created":1764400000,
///      "created_unix_ms":1764400000123,"account":"acct_...","reader":"tmr_...","location":"tml_...",
///      "data":{"object":{...}}}
///
/// The same event id on every attempt and every resend: receivers deduplicate by it.
public enum WebhookPayload {
    public static func body(_ event: EventRecord) -> [UInt8] {
        var json = "{\"id\":\(JSONText.quoted(event.id)),\"object\":\"event\",\"type\":\(JSONText.quoted(event.type))"
        json += ",\"created\":\(event.createdUnixMs / 1_000),\"created_unix_ms\":\(event.createdUnixMs)"
        json += ",\"account\":\(JSONText.quoted(event.accountID))"
        json += ",\"reader\":\(event.readerID.map(JSONText.quoted) ?? "null")"
        json += ",\"location\":\(event.locationID.map(JSONText.quoted) ?? "null")"
        json += ",\"data\":{\"object\":\(event.objectJSON)}}"
        return Array(json.utf8)
    }
}
