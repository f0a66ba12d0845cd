import Foundation
import PushService

// Wiring only: everything lives in PushService (see PushServerLauncher).
let code = await PushServerLauncher.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment)
exit(code)
