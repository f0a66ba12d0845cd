import EmbeddedAPNS
import Foundation
import PushService

// Wiring only: everything lives in PushService (see PushServerLauncher); the mock APNs of `--embedded`
// comes from EmbeddedAPNS, so the service itself never links it.
let code = await PushServerLauncher.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    embeddedAPNS: EmbeddedMockAPNS())
exit(code)
