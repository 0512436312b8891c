// swift-tools-version:6.0
//
// ReaderGateway: a self-hosted gateway for fleets of smart card readers.
//
// Layers, bottom to top (each imports only the ones below it; `make lint` checks):
//   C shims       CGatewayOpenSSL, CGatewayPostgres, CGatewayLinux
//   core          GatewayCore           logging, options parsing
//   event loop    GatewayEventLoop      the one epoll loop: readiness of any descriptor, timers, tasks from other threads
//   wire          GatewayWire           frames, protobuf codec, messages, call state machines
//   websocket     GatewayWebSocket      HTTP/1.1 upgrade and RFC 6455 framing as pure state machines
//   transport     GatewayTransport      sockets, TLS on OpenSSL, over the event loops
//   channel       GatewayChannel        client channels over a transport protocol, RPCError (platform-neutral)
//   linux client  GatewayLinuxTransport the channel's transport on Linux: TLS on OpenSSL over the event loop
//   calls         GatewayRPC            the server's call layer over a transport (TLS or in memory); re-exports the two above
//   domain        GatewayDomain         ownership arbitration, registration, discovery (pure)
//   registry      GatewayRegistry       live links, sessions, pending commands of one replica (pure state machine)
//   postgres      GatewayPostgres       libpq client and pool, rows, notifications, embedded server, migrations runner
//   repositories  GatewayRepositories   the schema, ownership and cluster stores, readers, sessions, registration codes
//   operations    GatewayOperations     metrics registry, ops HTTP endpoint
//   web files     GatewayWebClient, GatewayWebClientCodecs, GatewayConsole   the browser library and console, compiled in
//   services      GatewayService        the gateway: SDK, reader link and admin surfaces wired together
//   client core   GatewayClientCore     the Swift client library, platform-neutral (point of sale, on its own models)
//   wire clients  GatewayWireClients    the fleet admin and reader-side calls, on the protocol's messages (platform-neutral)
//   client        GatewayClient         the client core with the Linux transport wired in: what an app imports
//   simulators    GatewaySimulators     simulated Bluetooth readers and air, the air's Unix-socket server and radio
//                 GatewayCommandLine    the pure parts of the programs
//   executables   reader-gateway, gatewayctl, reader-sim, pos-lane
//
// Sources/GatewayWebClient holds the browser library (plain ES modules, codecs generated
// from proto/ by proto/tools/generate_js.py; docs/client.md) and Sources/GatewayConsole the
// fleet console; each is a Swift target only to compile its files into the gateway.
//
// Sources/Tools holds what is not shipped: benchmarks, fuzzing, interop, load and flood tools.
//
// No package dependencies: the toolchain and system C libraries only.
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// The browser library's own files and the console's, compiled into the gateway (each listed
// in the target's Swift table too; a test fetches every file over HTTP and compares the bytes).
let webClientFiles = [
    "admin.js", "channel-receive.js", "channel.js", "connection.js", "errors.js", "frames.js",
    "objects.js", "protobuf.js", "readergateway.d.ts", "readergateway.js", "terminal.js",
]
let consoleFiles = ["console.css", "console.js", "fleet-view.js", "index.html", "webhooks.js"]

let package = Package(
    name: "ReaderGateway",
    // What the client core (GatewayClientCore and the modules below it) supports: Apple platforms
    // with Swift 6's `Synchronization.Mutex`, besides Linux. The gateway, its tools and the
    // Linux transport build on Linux only (epoll, OpenSSL and libpq through pkg-config); `make
    // lint` checks that the core's module graph holds none of them.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "reader-gateway", targets: ["ReaderGatewayServer"]),
        .executable(name: "gatewayctl", targets: ["GatewayCtl"]),
        .executable(name: "reader-sim", targets: ["ReaderSimulator"]),
        .executable(name: "pos-lane", targets: ["PosLane"]),
        // The Swift client library. An application depends on it by this package's identity, the
        // last component of its URL or path (`reader-gateway`), not by `name:` above:
        // `.product(name: "GatewayClient", package: "reader-gateway")` (docs/client.md).
        .library(name: "GatewayClient", targets: ["GatewayClient"]),
        // The client without a transport, for platforms other than Linux: the app supplies a
        // `ClientTransport` (docs/client.md sketches one on Network.framework).
        .library(name: "GatewayClientCore", targets: ["GatewayClientCore"]),
        // The wire level, apart from the point-of-sale SDK: `AdminClient` (the fleet admin calls)
        // and `ReaderLinkClient` (a smart reader's side of the link), on the protocol's messages
        // (`ReaderGatewayV1`, re-exported). `GatewayClient` does not re-export it.
        .library(name: "GatewayWireClients", targets: ["GatewayWireClients"]),
        .library(name: "GatewaySimulators", targets: ["GatewaySimulators"]),
        // Not shipped: the commands of the tools under Sources/Tools (benchmarks, fuzzing, interop,
        // load). Each target is named as its folder; the command keeps its short name.
        .executable(name: "wire-interop", targets: ["WireInterop"]),
        .executable(name: "wire-fuzz", targets: ["WireFuzz"]),
        .executable(name: "websocket-fuzz", targets: ["WebSocketFuzz"]),
        .executable(name: "websocket-echo", targets: ["WebSocketEcho"]),
        .executable(name: "wire-bench", targets: ["WireBench"]),
        .executable(name: "transport-echo", targets: ["TransportEchoServer"]),
        .executable(name: "transport-load", targets: ["TransportLoadGenerator"]),
        .executable(name: "transport-flood", targets: ["TransportFlood"]),
        .executable(name: "flood-bench", targets: ["FloodBenchmark"]),
        .executable(name: "service-bench", targets: ["ServiceBenchmark"]),
        .executable(name: "fleet-load", targets: ["FleetLoad"]),
    ],
    targets: [
        // MARK: C shims
        .systemLibrary(name: "CGatewayOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CGatewayPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "CGatewayLinux"),

        // MARK: layers
        .target(name: "GatewayCore", swiftSettings: swift6),
        .target(name: "GatewayEventLoop", dependencies: ["GatewayCore", "CGatewayLinux"], swiftSettings: swift6),
        .target(name: "GatewayWire", dependencies: ["GatewayCore"], swiftSettings: swift6),
        // websocket: the HTTP/1.1 upgrade and RFC 6455 framing as pure state machines (no I/O).
        .target(name: "GatewayWebSocket", dependencies: ["GatewayCore"], swiftSettings: swift6),
        .target(
            name: "GatewayTransport",
            dependencies: ["GatewayCore", "GatewayEventLoop", "CGatewayOpenSSL", "CGatewayLinux"],
            exclude: ["README.md"],
            swiftSettings: swift6
        ),
        // channel: client channels and calls over the `ClientTransport` protocol, and RPCError; platform-neutral
        // (no event loop, socket or OpenSSL): the client core's and the replica link's calls.
        .target(name: "GatewayChannel", dependencies: ["GatewayCore", "GatewayWire"], swiftSettings: swift6),
        // linux client: the channel's transport on Linux, TLS on OpenSSL over the epoll loop (`LinuxTLSTransport`).
        .target(name: "GatewayLinuxTransport", dependencies: ["GatewayCore", "GatewayChannel", "GatewayTransport"], swiftSettings: swift6),
        .target(name: "GatewayDomain", dependencies: ["GatewayCore"], swiftSettings: swift6),
        // registry: what one replica knows of live readers and sessions, as a pure state machine.
        .target(name: "GatewayRegistry", dependencies: ["GatewayDomain", "GatewayWire"], swiftSettings: swift6),
        .target(
            name: "GatewayPostgres",
            dependencies: ["GatewayCore", "GatewayEventLoop", "CGatewayPostgres", "CGatewayLinux"],
            swiftSettings: swift6
        ),
        .target(
            name: "GatewayRepositories",
            dependencies: ["GatewayCore", "GatewayWire", "GatewayDomain", "GatewayPostgres"],
            swiftSettings: swift6
        ),
        // calls: client channels and the server's call layer (routes, connections, the WebSocket carrier) over a
        // transport protocol (TLS or in memory), RPCError; below the service and the client library.
        .target(name: "GatewayRPC", dependencies: ["CGatewayLinux", "GatewayCore", "GatewayWire", "GatewayWebSocket", "GatewayTransport", "GatewayChannel", "GatewayLinuxTransport"], swiftSettings: swift6),
        .target(name: "GatewayOperations", dependencies: ["GatewayCore", "GatewayEventLoop", "CGatewayLinux"], swiftSettings: swift6),

        // web files: the browser library, its generated codecs (two targets: SwiftPM names an
        // embedded file by its file name, and both folders have an errors.js) and the console,
        // compiled in with `.embedInCode`, so the gateway serves them from the executable alone.
        .target(
            name: "GatewayWebClient",
            path: "Sources/GatewayWebClient",
            exclude: ["generated"],
            sources: ["WebClientLibrary.swift"],
            resources: webClientFiles.map { .embedInCode($0) },
            swiftSettings: swift6
        ),
        .target(
            name: "GatewayWebClientCodecs",
            path: "Sources/GatewayWebClient/generated",
            sources: ["WebClientCodecs.swift"],
            resources: [.embedInCode("readergateway")],
            swiftSettings: swift6
        ),
        .target(name: "GatewayConsole", sources: ["ConsoleFiles.swift"], resources: consoleFiles.map { .embedInCode($0) }, swiftSettings: swift6),

        .target(
            name: "GatewayService",
            dependencies: ["CGatewayLinux", "GatewayCore", "GatewayWire", "GatewayWebSocket", "GatewayTransport", "GatewayRPC", "GatewayDomain", "GatewayRegistry", "GatewayPostgres", "GatewayRepositories", "GatewayOperations", "GatewayWebClient", "GatewayWebClientCodecs", "GatewayConsole"],
            swiftSettings: swift6
        ),
        // client core: the Swift client library on any platform, over a transport the app supplies.
        .target(name: "GatewayClientCore", dependencies: ["GatewayCore", "GatewayWire", "GatewayChannel"], swiftSettings: swift6),
        // wire clients: the fleet admin and reader-side calls on the protocol's messages, over the core's connection.
        .target(name: "GatewayWireClients", dependencies: ["GatewayWire", "GatewayChannel", "GatewayClientCore"], swiftSettings: swift6),
        // client: the core with the Linux transport as its default; what `import GatewayClient` gives.
        .target(name: "GatewayClient", dependencies: ["GatewayClientCore", "GatewayLinuxTransport", "GatewayTransport", "GatewayRPC"], swiftSettings: swift6),
        // simulators: what stands in for hardware behind the client's seams (the simulated Bluetooth
        // air and its readers, the air shared over a Unix socket), for tests, pos-lane and reader-sim.
        .target(name: "GatewaySimulators", dependencies: ["GatewayWire", "GatewayRPC", "GatewayClient"], swiftSettings: swift6),
        // client: the pure parts of gatewayctl and reader-sim (command lines, stdin commands, tables, JSON, exit codes).
        .target(name: "GatewayCommandLine", dependencies: ["GatewayCore", "GatewayWire", "GatewayClient"], swiftSettings: swift6),

        // MARK: test support
        // Dependency-free helpers for every test target: blocking work off the cooperative pool, a seeded generator.
        .target(name: "GatewayTestKit", swiftSettings: swift6),
        // PostgreSQL for tests, the package's executables, and a fake call server over real TLS (EchoServer).
        .target(
            name: "GatewayTestSupport",
            dependencies: ["GatewayCore", "GatewayPostgres", "GatewayRepositories", "GatewayTestKit", "GatewayTransport", "GatewayWire"],
            exclude: ["Webhooks/webhook_receiver.py"],
            swiftSettings: swift6
        ),

        // MARK: executables
        .executableTarget(
            name: "ReaderGatewayServer",
            dependencies: ["GatewayCore", "GatewayDomain", "CGatewayLinux", "GatewayTransport", "GatewayPostgres", "GatewayRepositories", "GatewayOperations", "GatewayService", "GatewayWebSocket"],
            swiftSettings: swift6
        ),
        .executableTarget(name: "GatewayCtl", dependencies: ["GatewayCore", "GatewayWire", "GatewayTransport", "GatewayClient", "GatewayWireClients", "GatewayCommandLine", "GatewayPostgres", "GatewayRepositories"], swiftSettings: swift6),
        .executableTarget(name: "ReaderSimulator", dependencies: ["GatewayCore", "GatewayWire", "GatewayTransport", "GatewayClient", "GatewayWireClients", "GatewaySimulators", "GatewayCommandLine"], swiftSettings: swift6),
        .executableTarget(name: "PosLane", dependencies: ["GatewayCore", "GatewayWire", "GatewayClient", "GatewayWireClients", "GatewaySimulators", "GatewayCommandLine"], swiftSettings: swift6),

        // MARK: tools (Sources/Tools): benchmarks, fuzzing, interop and load, none of them shipped.
        // Each is named as its folder; a command's short name (`swift build --product wire-fuzz`)
        // is the product listed above (`make lint` checks both).
        // wire: conformance messages (proto/readergateway/testing), shared by the wire tests,
        // the interop driver and the fuzz target.
        .target(name: "GatewayWireConformance", dependencies: ["GatewayWire"], path: "Sources/Tools/GatewayWireConformance", swiftSettings: swift6),
        .executableTarget(name: "WireInterop", dependencies: ["GatewayWire", "GatewayWireConformance"], path: "Sources/Tools/WireInterop", swiftSettings: swift6),
        // fuzzing: the plain (replay) build's entry and file handling, shared by the fuzz targets.
        .target(name: "FuzzSupport", path: "Sources/Tools/FuzzSupport", swiftSettings: swift6),
        .executableTarget(name: "WireFuzz", dependencies: ["GatewayWire", "GatewayWireConformance", "FuzzSupport"], path: "Sources/Tools/WireFuzz", swiftSettings: swift6),
        // websocket: libFuzzer target for the upgrade parser and the frame decoder (make fuzz).
        .executableTarget(name: "WebSocketFuzz", dependencies: ["GatewayWebSocket", "FuzzSupport"], path: "Sources/Tools/WebSocketFuzz", swiftSettings: swift6),
        // websocket: the binding on a plain TCP socket, for interop tests with independent clients.
        .executableTarget(name: "WebSocketEcho", dependencies: ["GatewayWebSocket"], path: "Sources/Tools/WebSocketEcho", swiftSettings: swift6),
        .executableTarget(name: "WireBench", dependencies: ["GatewayWire"], path: "Sources/Tools/WireBench", swiftSettings: swift6),
        // Shared by the benchmarks that drive pgbench: spawning a child with a clean signal mask.
        .target(name: "BenchmarkSupport", dependencies: ["GatewayPostgres", "GatewayRepositories"], path: "Sources/Tools/BenchmarkSupport", swiftSettings: swift6),
        // ownership: OwnershipStore.claim beside pgbench (Tests/GatewayRepositoriesTests/ownership.mk)
        .executableTarget(
            name: "OwnershipBenchmark",
            dependencies: ["GatewayCore", "GatewayDomain", "GatewayPostgres", "GatewayRepositories", "BenchmarkSupport"],
            path: "Sources/Tools/OwnershipBenchmark",
            swiftSettings: swift6
        ),
        // The libpq client beside pgbench, same statement and client counts (make bench-store).
        .executableTarget(name: "StoreBenchmark", dependencies: ["GatewayCore", "GatewayPostgres"], path: "Sources/Tools/StoreBenchmark", swiftSettings: swift6),
        // Transport: a TLS echo server on GatewayTransport (bench subject, TLS scan target) and
        // a closed-loop TLS load generator (make bench; Tests/GatewayTransportTests/transport.mk).
        .executableTarget(
            name: "TransportEchoServer",
            dependencies: ["GatewayCore", "GatewayTransport", "GatewayWebSocket"],
            path: "Sources/Tools/TransportEchoServer",
            swiftSettings: swift6
        ),
        // The client side of the WebSocket binding for the load generators (masked messages out).
        .target(name: "WebSocketLoadClient", dependencies: ["GatewayWebSocket"], path: "Sources/Tools/WebSocketLoadClient", swiftSettings: swift6),
        .executableTarget(
            name: "TransportLoadGenerator",
            dependencies: ["GatewayCore", "GatewayTransport", "GatewayWebSocket", "WebSocketLoadClient"],
            path: "Sources/Tools/TransportLoadGenerator",
            swiftSettings: swift6
        ),
        // The attacker of the flood test and of `make bench-flood`: silent and half-hello sockets
        // from several loopback sources, re-opened as the server closes them.
        .executableTarget(name: "TransportFlood", dependencies: ["CGatewayLinux"], path: "Sources/Tools/TransportFlood", swiftSettings: swift6),
        // make bench-flood: new and existing clients during a flood, the gateway beside nginx.
        .executableTarget(
            name: "FloodBenchmark",
            dependencies: ["GatewayCore", "GatewayClient", "GatewayTransport", "GatewayWire"],
            path: "Sources/Tools/FloodBenchmark",
            swiftSettings: swift6
        ),
        // service: relayed command round trips through the whole gateway (Tests/GatewayServiceTests/service.mk).
        .executableTarget(
            name: "ServiceBenchmark",
            dependencies: ["GatewayCore", "GatewayClient", "GatewayWireClients", "GatewayOperations", "GatewayService", "GatewayPostgres", "GatewayRepositories", "GatewayTestSupport", "GatewayTransport", "GatewayWire", "BenchmarkSupport", "GatewayWebSocket", "WebSocketLoadClient"],
            path: "Sources/Tools/ServiceBenchmark",
            swiftSettings: swift6
        ),

        // make bench-fleet: thousands of simulated readers and lanes per process (Tests/GatewayServiceTests/service.mk).
        .executableTarget(
            name: "FleetLoad",
            dependencies: ["GatewayCore", "GatewayClient", "GatewayTransport", "GatewayWire", "GatewayWireClients"],
            path: "Sources/Tools/FleetLoad",
            swiftSettings: swift6
        ),

        // MARK: tests
        .testTarget(name: "GatewayCoreTests", dependencies: ["GatewayCore", "GatewayTestKit"], swiftSettings: swift6),
        .testTarget(name: "GatewayEventLoopTests", dependencies: ["GatewayEventLoop", "GatewayCore", "CGatewayLinux", "GatewayTestKit"], swiftSettings: swift6),
        .testTarget(
            name: "GatewayWireTests",
            dependencies: ["GatewayWire", "GatewayWireConformance", "GatewayTestKit"],
            exclude: ["wire.mk", "Interop", "Bench", "FuzzCorpus"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayWebSocketTests",
            dependencies: ["GatewayWebSocket", "GatewayTestKit", "WebSocketLoadClient"],
            exclude: ["websocket.mk", "FuzzCorpus", "Interop", "bench"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayTransportTests",
            dependencies: ["GatewayTransport", "CGatewayOpenSSL", "CGatewayLinux", "GatewayTestKit"],
            exclude: ["transport.mk", "scripts", "bench"],
            swiftSettings: swift6
        ),
        .testTarget(name: "GatewayDomainTests", dependencies: ["GatewayDomain", "GatewayTestKit"], swiftSettings: swift6),
        // The registry machine driven with plain values: no PostgreSQL, no sockets, no sleeps.
        .testTarget(name: "GatewayRegistryTests", dependencies: ["GatewayRegistry", "GatewayDomain", "GatewayWire"], swiftSettings: swift6),
        .testTarget(
            name: "GatewayPostgresTests",
            dependencies: ["GatewayPostgres", "CGatewayPostgres", "GatewayTestSupport", "GatewayTestKit"],
            exclude: ["store.mk"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayRepositoriesTests",
            dependencies: ["GatewayRepositories", "GatewayPostgres", "GatewayTestSupport", "GatewayTestKit"],
            exclude: ["ownership.mk", "events.mk", "bench"],
            swiftSettings: swift6
        ),
        .testTarget(name: "GatewayOperationsTests", dependencies: ["GatewayOperations", "GatewayCore", "GatewayTestKit", "GatewayTestSupport"], swiftSettings: swift6),
        .testTarget(
            name: "GatewayRPCTests",
            dependencies: ["GatewayRPC", "GatewayTransport", "GatewayWire", "GatewayTestSupport"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayServiceTests",
            // OpenSSL and the Linux shims for the raw TLS peer that checks the wire contract as another implementation sees it.
            dependencies: ["GatewayService", "GatewayClient", "GatewayWireClients", "GatewaySimulators", "GatewayPostgres", "GatewayRepositories", "GatewayTestSupport", "GatewayTestKit", "GatewayTransport", "GatewayWebSocket", "CGatewayOpenSSL", "CGatewayLinux"],
            exclude: ["service.mk", "bench"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayCommandLineTests",
            dependencies: ["GatewayCommandLine", "GatewayClient", "GatewayCore", "GatewayWire"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "GatewayClientTests",
            dependencies: ["GatewayClient", "GatewayClientCore", "GatewayWireClients", "GatewayCommandLine", "GatewayTransport", "GatewayPostgres", "GatewayRepositories", "GatewayTestSupport", "GatewayTestKit"],
            exclude: ["quickstart.mk", "quickstart-test.sh"],
            swiftSettings: swift6
        ),
        // The client core alone, over a transport in memory to a scripted gateway: no socket, no
        // TLS, no event loop (nothing Linux-only: the core's tests are an Apple app's too).
        .testTarget(name: "GatewayClientCoreTests", dependencies: ["GatewayClientCore", "GatewayChannel", "GatewayWire"], swiftSettings: swift6),
        // The simulators on their own: the air and its readers on a simulated clock, the air's
        // codec, and its Unix-socket server and radio in one process.
        .testTarget(name: "GatewaySimulatorsTests", dependencies: ["GatewaySimulators", "GatewayClient", "GatewayCore", "GatewayTestKit", "GatewayWire"], swiftSettings: swift6),
        // The reader-gateway executable, run as a real child process.
        .testTarget(
            name: "ReaderGatewayServerTests",
            dependencies: ["GatewayPostgres", "GatewayRepositories", "GatewayTestSupport"],
            swiftSettings: swift6
        ),
        // Three reader-gateway replicas behind nginx stream, faults and PostgreSQL restarts
        // (Tests/GatewayClusterTests/cluster.mk; `make chaos` for the long randomized run).
        .testTarget(
            name: "GatewayClusterTests",
            dependencies: ["GatewayCore", "GatewayWire", "GatewayTransport", "GatewayPostgres", "GatewayRepositories", "GatewayClient", "GatewayWireClients", "GatewayTestSupport", "GatewayTestKit"],
            exclude: ["cluster.mk", "upgrade.mk", "build-previous-release.sh"],
            swiftSettings: swift6
        ),
    ]
)
