// swift-tools-version:6.0
import PackageDescription

/// Every Swift target builds in the Swift 6 language mode with complete concurrency checking.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]

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
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),

        // The package's one lock type, visible to ThreadSanitizer; no dependencies.
        .target(name: "PushSync", swiftSettings: strict),

        // Wrappers: the only modules that import C, always with `internal import`.
        .target(name: "PushTLS", dependencies: ["COpenSSL", "PushSync"], swiftSettings: strict),
        .target(name: "PushIO", dependencies: ["CEvent", "COpenSSL", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "PushHTTP2", dependencies: ["CNGHTTP2", "PushIO", "PushTLS"], swiftSettings: strict),
        .target(name: "PushStore", dependencies: ["APNSCore", "CLibPQ", "CSQLite", "JSON", "PushSync"], swiftSettings: strict),

        // Domain.
        // JSON text to values and back: the parser, `JSONValue` and its serializer; no dependencies.
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "APNSCore", dependencies: ["JSON"], swiftSettings: strict),
        .target(name: "APNS", dependencies: ["JSON", "APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "APNSMock", dependencies: ["JSON", "APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "ProfileDrop", dependencies: ["JSON", "APNSCore", "PushStore", "PushSync"], swiftSettings: strict),
        .target(
            name: "PushService",
            dependencies: ["JSON", "APNSCore", "APNS", "APNSMock", "PushStore", "ProfileDrop", "PushIO", "PushSync", "PushTLS"],
            swiftSettings: strict),

        // The chaos harness: push-server under a faulty mock APNs and SIGKILLs (make chaos, make test).
        .target(
            name: "PushChaos", dependencies: ["JSON", "APNSCore", "APNSMock", "PushIO", "PushStore", "PushTLS", "TestSupport"],
            swiftSettings: strict),

        // Executables: wiring only.
        .executableTarget(name: "push-server", dependencies: ["PushService"], swiftSettings: strict),
        .executableTarget(
            name: "pushctl",
            dependencies: ["JSON", "APNS", "APNSMock", "APNSCore", "PushIO", "PushSync", "PushTLS"],
            swiftSettings: strict),
        .executableTarget(name: "push-chaos", dependencies: ["PushChaos", "APNSCore"], swiftSettings: strict),
        .executableTarget(
            name: "push-bench", dependencies: ["APNS", "APNSMock", "APNSCore", "PushIO", "PushStore", "PushTLS", "ProfileDrop"], swiftSettings: strict
        ),

        // Fuzz targets. A normal build gives executables that replay input files through the same checks;
        // `make fuzz` builds them with libFuzzer (-sanitize=fuzzer and -D FUZZING) and fuzzes them.
        .target(name: "FuzzSupport", dependencies: ["JSON", "APNSCore"], path: "Fuzz/Support", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-requests", dependencies: ["JSON", "FuzzSupport", "PushService", "PushStore", "APNSCore"],
            path: "Fuzz/RequestDecoding", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-payload", dependencies: ["JSON", "FuzzSupport", "APNSCore"],
            path: "Fuzz/PayloadBuilder", swiftSettings: strict),

        // Tests mirror Sources.
        .testTarget(name: "PushSyncTests", dependencies: ["PushSync"], swiftSettings: strict),
        .testTarget(name: "PushTLSTests", dependencies: ["PushTLS"], swiftSettings: strict),
        .testTarget(
            name: "APNSTests", dependencies: ["JSON", "APNS", "APNSMock", "APNSCore", "PushSync", "PushTLS", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PushIOTests", dependencies: ["PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .testTarget(name: "PushHTTP2Tests", dependencies: ["PushHTTP2", "PushIO", "PushSync", "PushTLS", "TestSupport"], swiftSettings: strict),
        .executableTarget(
            name: "pushstore-crash-writer", dependencies: ["APNSCore", "PushStore"],
            path: "Tests/PushStoreCrashWriter", swiftSettings: strict),
        .testTarget(name: "PushStoreTests", dependencies: ["APNSCore", "PushStore", "pushstore-crash-writer", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "APNSCoreTests", dependencies: ["JSON", "APNSCore", "TestSupport"], swiftSettings: strict),
        // Helpers shared by test targets: a seeded generator, tool processes, literals for APNSCore values.
        .target(name: "TestSupport", dependencies: ["APNSCore", "PushSync"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "ProfileDropTests", dependencies: ["JSON", "ProfileDrop", "PushStore", "PushSync", "APNSCore", "TestSupport"], swiftSettings: strict
        ),
        .testTarget(
            name: "APNSMockTests", dependencies: ["JSON", "APNSMock", "APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict
        ),
        .testTarget(
            name: "PushCtlTests",
            dependencies: ["JSON", "pushctl", "push-server", "PushChaos", "APNSMock", "APNSCore", "PushSync", "PushTLS", "PushIO", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "FuzzCorpusTests", dependencies: ["JSON", "fuzz-requests", "fuzz-payload", "FuzzSupport", "APNSCore", "PushSync"],
            swiftSettings: strict),
        .testTarget(
            name: "PushServiceTests",
            dependencies: [
                "JSON", "PushService", "PushChaos", "APNSMock", "APNS", "APNSCore", "PushStore", "ProfileDrop", "PushTLS", "PushIO", "TestSupport",
            ], swiftSettings: strict),
    ]
)
