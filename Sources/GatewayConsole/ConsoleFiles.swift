// The fleet console's files, compiled into the gateway by SwiftPM (`.embedInCode` in
// Package.swift): served under /console/ (docs/operations.md) byte for byte as they are
// here. A file added to this folder is added to Package.swift's list and to this table;
// the gateway's tests fetch every file of the folder over HTTP and compare the bytes.

/// Each file's bytes by its name in Sources/GatewayConsole.
public enum ConsoleFiles {
    public static let files: [String: [UInt8]] = [
        "console.css": PackageResources.console_css,
        "console.js": PackageResources.console_js,
        "fleet-view.js": PackageResources.fleet_view_js,
        "index.html": PackageResources.index_html,
        "webhooks.js": PackageResources.webhooks_js,
    ]
}
