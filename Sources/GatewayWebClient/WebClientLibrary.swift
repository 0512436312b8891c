// The browser library's files, compiled into the gateway by SwiftPM (`.embedInCode` in
// Package.swift, which names each by its file name): the gateway serves them under
// /readergateway/v1/js/ from the executable alone, byte for byte as they are here.
// A file added to this folder is added to Package.swift's list and to this table; the
// gateway's tests fetch every file of the folder over HTTP and compare the bytes.

/// The library's own files by their path under Sources/GatewayWebClient; the generated
/// codecs are ``WebClientCodecs``.
public enum WebClientLibrary {
    public static let files: [String: [UInt8]] = [
        "admin.js": PackageResources.admin_js,
        "channel-receive.js": PackageResources.channel_receive_js,
        "channel.js": PackageResources.channel_js,
        "connection.js": PackageResources.connection_js,
        "errors.js": PackageResources.errors_js,
        "frames.js": PackageResources.frames_js,
        "objects.js": PackageResources.objects_js,
        "protobuf.js": PackageResources.protobuf_js,
        "readergateway.d.ts": PackageResources.readergateway_d_ts,
        "readergateway.js": PackageResources.readergateway_js,
        "terminal.js": PackageResources.terminal_js,
    ]
}
