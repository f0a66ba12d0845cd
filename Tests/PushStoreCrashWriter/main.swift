import APNSCore
// pushstore-crash-writer <db-path>
//
// Enqueues outbox rows in small committed transactions forever and prints "committed <id>" for each
// row once its transaction has returned. The crash-safety test kills this process with SIGKILL
// mid-stream and checks every printed id survived.
import Foundation
import PushStore
import PushStoreSQL

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: pushstore-crash-writer <db-path>\n".utf8))
    exit(64)
}

let store = try PushRepositories.sqlite(path: arguments[1]).outbox
let token = try DeviceToken(String(repeating: "0123456789abcdef", count: 4))
let payload = Array(#"{"aps":{"alert":"crash test"}}"#.utf8)
var round = 0
while true {
    round += 1
    let pushID = "crash-\(round)"
    let items = (0..<3).map { index in
        OutboxItem(
            id: "\(pushID)-\(index)", pushID: pushID, token: token, topic: "com.example.sniffmeet",
            pushType: .alert, payload: payload, environment: .development, now: Date())
    }
    try await store.enqueue(items)
    // FileHandle writes straight to the descriptor: nothing is left in a buffer when the process dies.
    FileHandle.standardOutput.write(Data(items.map { "committed \($0.id)\n" }.joined().utf8))
}
