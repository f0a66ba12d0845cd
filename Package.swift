// swift-tools-version:6.0
import PackageDescription

/// Every Swift target builds in the Swift 6 language mode with complete concurrency checking; imports are
/// internal unless written `public import` (where a module's public API shows the imported module's types).
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "sniffmeet-push",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "APNSCore", targets: ["APNSCore"]),
        .library(name: "APNS", targets: ["APNS"]),
        .library(name: "APNSMock", targets: ["APNSMock"]),
        .executable(name: "push-server", targets: ["push-server"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
    ],
    targets: [
        // C system libraries: a module map and a shim header each, nothing else.
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CEvent", pkgConfig: "libevent_openssl",
            providers: [.apt(["libevent-dev"])]),
        // glibc's malloc.h (mallopt), which the Glibc module does not export; libc itself, nothing to link.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),

        // The package's one lock type, visible to ThreadSanitizer, its async semaphore and its serial thread (an
        // executor of its own for actors that block); no dependencies.
        .target(name: "PushSync", swiftSettings: strict),
        // The one command-line grammar and secret policy of every executable; no dependencies.
        .target(name: "ArgumentParsing", swiftSettings: strict),

        // Wrappers: the only modules that import C, always with `internal import`.
        .target(name: "PushTLS", dependencies: ["COpenSSL", "PushSync"], swiftSettings: strict),
        // The event loop, TCP/TLS streams, listeners, egress proxies and timers.
        .target(name: "PushIO", dependencies: ["CEvent", "PushSync", "PushTLS"], swiftSettings: strict),
        // What HTTP/1.1 and HTTP/2 share: the response type; no dependencies.
        .target(name: "PushHTTP", swiftSettings: strict),
        // HTTP/1.1 on libevent's evhttp: the server (REST API, mock control API) and a small client (webhooks).
        .target(name: "PushHTTP1", dependencies: ["CEvent", "PushHTTP", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "PushHTTP2", dependencies: ["CNGHTTP2", "PushHTTP", "PushIO", "PushTLS"], swiftSettings: strict),
        // Process-wide plumbing of a server program: signals (libevent signal events) and glibc malloc tuning.
        .target(name: "PushProcess", dependencies: ["CEvent", "CMalloc", "PushIO", "PushSync"], swiftSettings: strict),
        // Database drivers, with no domain knowledge: SQLite (connection, statements, values, errors,
        // migrations by `user_version`) and libpq (connection, pool, listener, thread, values, rows, errors).
        .target(name: "SQLiteDriver", dependencies: ["CSQLite", "PushSync"], swiftSettings: strict),
        .target(name: "PostgresDriver", dependencies: ["CLibPQ", "PushSync"], swiftSettings: strict),
        // The store's repository protocols, records and in-memory twins: no SQL, no driver.
        .target(name: "PushStore", dependencies: ["APNSCore", "JSON", "PushSync"], swiftSettings: strict),
        // The store's SQL backends: the repositories on SQLite and on PostgreSQL, over the two drivers.
        .target(
            name: "PushStoreSQL", dependencies: ["APNSCore", "JSON", "PostgresDriver", "PushStore", "PushSync", "SQLiteDriver"],
            swiftSettings: strict),

        // Domain.
        // JSON text to values and back: the parser, `JSONValue` and its serializer; no dependencies.
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "APNSCore", dependencies: ["JSON"], swiftSettings: strict),
        .target(name: "APNS", dependencies: ["JSON", "APNSCore", "PushHTTP", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "ProfileDrop", dependencies: ["JSON", "APNSCore", "PushStore"], swiftSettings: strict),
        .target(
            name: "PushService",
            dependencies: [
                "APNS", "APNSCore", "ArgumentParsing", "JSON", "ProfileDrop", "PushHTTP", "PushHTTP1", "PushIO", "PushProcess", "PushStore",
                "PushStoreSQL", "PushSync", "PushTLS",
            ],
            swiftSettings: strict),

        // Test tooling that programs ship too.
        // A throw-away certificate authority and credential files for tests, the mock APNs and its tools (no C:
        // it builds certificates through PushTLS's package API).
        .target(name: "PushTLSTesting", dependencies: ["APNSCore", "PushTLS"], swiftSettings: strict),
        .target(
            name: "APNSMock",
            dependencies: ["JSON", "APNSCore", "PushHTTP", "PushHTTP1", "PushHTTP2", "PushIO", "PushSync", "PushTLS", "PushTLSTesting"],
            swiftSettings: strict),
        // The mock APNs servers of `push-server --embedded`, handed to PushService by the executable (and by tests).
        .target(name: "EmbeddedAPNS", dependencies: ["APNSCore", "APNSMock", "PushService", "PushTLS", "PushTLSTesting"], swiftSettings: strict),
        // The chaos harness: push-server under a faulty mock APNs and SIGKILLs (make chaos, make test).
        .target(
            name: "PushChaos",
            dependencies: [
                "APNSCore", "APNSMock", "JSON", "PushHTTP", "PushHTTP1", "PushIO", "PushStore", "PushStoreSQL", "PushTLSTesting", "TestSupport",
            ],
            swiftSettings: strict),

        // Executables: wiring only.
        .executableTarget(name: "push-server", dependencies: ["EmbeddedAPNS", "PushService"], swiftSettings: strict),
        .executableTarget(
            name: "pushctl",
            dependencies: ["ArgumentParsing", "JSON", "APNS", "APNSMock", "APNSCore", "PushIO", "PushProcess", "PushTLS", "PushTLSTesting"],
            swiftSettings: strict),
        .executableTarget(name: "push-chaos", dependencies: ["ArgumentParsing", "JSON", "PushChaos"], swiftSettings: strict),
        .executableTarget(
            name: "push-bench",
            dependencies: [
                "APNS", "APNSCore", "APNSMock", "ArgumentParsing", "ProfileDrop", "PushIO", "PushStore", "PushStoreBenchmark", "PushStoreSQL",
                "PushTLS", "PushTLSTesting",
            ],
            swiftSettings: strict),

        // Fuzz targets. A normal build gives executables that replay input files through the same checks;
        // `make fuzz` builds them with libFuzzer (-sanitize=fuzzer and -D FUZZING) and fuzzes them.
        .target(name: "FuzzSupport", dependencies: ["JSON"], path: "Fuzz/Support", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-requests",
            dependencies: ["JSON", "FuzzSupport", "PushHTTP", "PushHTTP1", "ProfileDrop", "PushService", "PushStore", "APNSCore"],
            path: "Fuzz/RequestDecoding", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-payload", dependencies: ["JSON", "FuzzSupport", "APNSCore"],
            path: "Fuzz/PayloadBuilder", swiftSettings: strict),

        // Tests mirror Sources.
        .testTarget(name: "PushSyncTests", dependencies: ["PushSync", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"], swiftSettings: strict),
        .testTarget(name: "PushTLSTests", dependencies: ["APNSCore", "PushTLS", "PushTLSTesting"], swiftSettings: strict),
        .testTarget(name: "PushTLSTestingTests", dependencies: ["APNSCore", "PushTLS", "PushTLSTesting"], swiftSettings: strict),
        .testTarget(
            name: "APNSTests",
            dependencies: [
                "JSON", "APNS", "APNSMock", "APNSCore", "PushHTTP", "PushHTTP2", "PushIO", "PushSync", "PushTLS", "PushTLSTesting", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(name: "PushIOTests", dependencies: ["PushIO", "PushSync", "PushTLS", "PushTLSTesting", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PushHTTPTests", dependencies: ["PushHTTP"], swiftSettings: strict),
        .testTarget(name: "PushHTTP1Tests", dependencies: ["PushHTTP", "PushHTTP1", "PushIO", "PushTLS", "PushTLSTesting"], swiftSettings: strict),
        .testTarget(name: "PushProcessTests", dependencies: ["PushProcess", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "PushHTTP2Tests", dependencies: ["PushHTTP", "PushHTTP2", "PushIO", "PushSync", "PushTLS", "PushTLSTesting", "TestSupport"],
            swiftSettings: strict),
        .executableTarget(
            name: "pushstore-crash-writer", dependencies: ["APNSCore", "PushStore", "PushStoreSQL"],
            path: "Tests/PushStoreCrashWriter", swiftSettings: strict),
        .testTarget(
            name: "PushStoreTests",
            dependencies: [
                "APNSCore", "JSON", "PostgresDriver", "ProfileDrop", "PushStore", "pushstore-crash-writer", "PushStoreBenchmark", "PushStoreSQL",
                "PushSync", "SQLiteDriver",
                "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(name: "APNSCoreTests", dependencies: ["JSON", "APNSCore", "TestSupport"], swiftSettings: strict),
        // The outbox throughput probe that `push-bench` runs and the store's tests check.
        .target(name: "PushStoreBenchmark", dependencies: ["APNSCore", "PushStore", "PushStoreSQL"], swiftSettings: strict),
        // Helpers shared by test targets: a seeded generator, tool processes, literals for APNSCore values.
        .target(name: "TestSupport", dependencies: ["APNSCore", "PushIO", "PushSync"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "ProfileDropTests", dependencies: ["APNSCore", "JSON", "ProfileDrop", "PushStore", "PushStoreSQL", "PushSync", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "APNSMockTests",
            dependencies: [
                "JSON", "APNSMock", "APNSCore", "PushHTTP", "PushHTTP2", "PushIO", "PushSync", "PushTLS", "PushTLSTesting", "TestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PushCtlTests",
            dependencies: [
                "JSON", "pushctl", "push-server", "PushChaos", "APNSCore", "PushSync", "PushTLS", "PushHTTP", "PushHTTP1", "PushIO", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FuzzCorpusTests", dependencies: ["JSON", "fuzz-requests", "fuzz-payload", "FuzzSupport", "PushSync"],
            swiftSettings: strict),
        .testTarget(
            name: "PushServiceTests",
            dependencies: [
                "APNS", "APNSCore", "APNSMock", "ArgumentParsing", "EmbeddedAPNS", "JSON", "PushChaos", "PushIO", "PushService", "PushStore",
                "PushStoreSQL", "PushSync", "PushTLS", "PushTLSTesting", "TestSupport",
            ], swiftSettings: strict),
    ]
)
