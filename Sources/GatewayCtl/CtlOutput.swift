import Foundation
import GatewayCommandLine

/// Prints a result as a table (humans) or one JSON document (`--json`).
struct CtlOutput {
    let json: Bool

    func show(table: Table, json document: JSONValue) {
        write(json ? document.description : table.description)
    }

    func show(text: String, json document: JSONValue) {
        write(json ? document.description : text)
    }

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data(("gatewayctl: " + message + "\n").utf8))
    }
}
