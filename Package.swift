// swift-tools-version:6.0
import PackageDescription

/// Every Swift target builds in the Swift 6 language mode with complete concurrency checking.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "sniffmeet-push",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "APNSCore", targets: ["APNSCore"]),
        .library(name: "APNS", targets: ["APNS"]),
        .library(name: "APNSMock", targets: ["APNSMock"]),
        .executable(name: "push-server", targets: ["push-server"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
    ],
    targets: [
        // C system libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CEvent", pkgConfig: "libevent_openssl",
                       providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),

        // The package's one lock type, visible to ThreadSanitizer; no dependencies.
        .target(name: "PushSync", swiftSettings: strict),

        // Wrappers: the only modules that import C, always with `internal import`.
        .target(name: "PushTLS", dependencies: ["COpenSSL", "PushSync"], swiftSettings: strict),
        .target(name: "PushIO", dependencies: ["CEvent", "COpenSSL", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "PushHTTP2", dependencies: ["CNGHTTP2", "PushIO", "PushTLS"], swiftSettings: strict),
        .target(name: "PushStore", dependencies: ["CSQLite", "PushSync"], swiftSettings: strict),

        // Domain.
        .target(name: "APNSCore", swiftSettings: strict),
        .target(name: "APNS", dependencies: ["APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "APNSMock", dependencies: ["APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .target(name: "ProfileDrop", dependencies: ["APNSCore", "PushStore"], swiftSettings: strict),
        .target(name: "PushService",
                dependencies: ["APNSCore", "APNS", "APNSMock", "PushStore", "ProfileDrop", "PushIO", "PushSync", "PushTLS", "CEvent"],
                swiftSettings: strict),

        // The chaos harness: push-server under a faulty mock APNs and SIGKILLs (make chaos, make test).
        .target(name: "PushChaos", dependencies: ["APNSCore", "APNSMock", "PushStore", "PushTLS"], swiftSettings: strict),

        // Executables: wiring only.
        .executableTarget(name: "push-server", dependencies: ["PushService"], swiftSettings: strict),
        .executableTarget(name: "pushctl",
                          dependencies: ["APNS", "APNSMock", "APNSCore", "PushIO", "PushSync", "PushTLS"],
                          swiftSettings: strict),
        .executableTarget(name: "push-chaos", dependencies: ["PushChaos", "APNSCore"], swiftSettings: strict),
        .executableTarget(name: "push-bench", dependencies: ["APNS", "APNSMock", "APNSCore", "PushStore", "PushTLS", "PushHTTP2", "PushIO", "ProfileDrop"], swiftSettings: strict),

        // Fuzz targets. A normal build gives executables that replay input files through the same checks;
        // `make fuzz` builds them with libFuzzer (-sanitize=fuzzer and -D FUZZING) and fuzzes them.
        .target(name: "FuzzSupport", dependencies: ["APNSCore"], path: "Fuzz/Support", swiftSettings: strict),
        .executableTarget(name: "fuzz-requests", dependencies: ["FuzzSupport", "PushService", "PushStore", "APNSCore"],
                          path: "Fuzz/RequestDecoding", swiftSettings: strict),
        .executableTarget(name: "fuzz-payload", dependencies: ["FuzzSupport", "APNSCore"],
                          path: "Fuzz/PayloadBuilder", swiftSettings: strict),

        // Tests mirror Sources.
        .testTarget(name: "PushTLSTests", dependencies: ["PushTLS"], swiftSettings: strict),
        .testTarget(name: "APNSTests", dependencies: ["APNS", "APNSMock", "APNSCore", "PushSync", "PushTLS", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PushIOTests", dependencies: ["PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .testTarget(name: "PushHTTP2Tests", dependencies: ["PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .executableTarget(name: "pushstore-crash-writer", dependencies: ["PushStore"],
                          path: "Tests/PushStoreCrashWriter", swiftSettings: strict),
        .testTarget(name: "PushStoreTests", dependencies: ["PushStore", "pushstore-crash-writer"], swiftSettings: strict),
        .testTarget(name: "APNSCoreTests", dependencies: ["APNSCore"], swiftSettings: strict),
        // Helpers shared by test targets (a seeded generator); no dependencies.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "ProfileDropTests", dependencies: ["ProfileDrop", "PushStore", "PushSync", "APNSCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "APNSMockTests", dependencies: ["APNSMock", "APNSCore", "PushHTTP2", "PushIO", "PushSync", "PushTLS"], swiftSettings: strict),
        .testTarget(name: "PushCtlTests", dependencies: ["pushctl", "push-server", "PushChaos", "APNSMock", "APNSCore", "PushSync", "PushTLS", "PushIO", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["fuzz-requests", "fuzz-payload", "FuzzSupport", "APNSCore", "PushSync"], swiftSettings: strict),
        .testTarget(name: "PushServiceTests", dependencies: ["PushService", "PushChaos", "APNSMock", "APNS", "APNSCore", "PushStore", "ProfileDrop", "PushTLS", "PushIO", "TestSupport"], swiftSettings: strict),
    ]
)
