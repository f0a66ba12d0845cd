// swift-tools-version:6.0
import PackageDescription

// A package of your own that sends pushes with this repository's APNs client and tests that code
// against the in-process mock APNs server. It depends on the repository by path; in your project use
// the path (or URL) where you keep it.
let package = Package(
    name: "walk-reminders",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "sniffmeet-push", path: "../..")
    ],
    targets: [
        .target(
            name: "WalkReminders",
            dependencies: [
                .product(name: "APNS", package: "sniffmeet-push"),
                .product(name: "APNSCore", package: "sniffmeet-push"),
            ]),
        .testTarget(
            name: "WalkRemindersTests",
            dependencies: [
                "WalkReminders",
                .product(name: "APNSMock", package: "sniffmeet-push"),
                .product(name: "APNSCore", package: "sniffmeet-push"),
            ]),
    ]
)
