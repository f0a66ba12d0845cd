import Foundation

let code = await PushCtl.main(Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)
