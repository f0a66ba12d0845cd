import Foundation
import PushStore
import SQLiteDriver

extension SQLiteStatement {
    func string(_ column: some StoreColumn, reusing previous: String) -> String {
        string(at: column.rawValue, reusing: previous)
    }
    func blob(_ column: some StoreColumn) -> [UInt8] { blob(at: column.rawValue) }
    func blob(_ column: some StoreColumn, reusing previous: [UInt8]) -> [UInt8] {
        blob(at: column.rawValue, reusing: previous)
    }
}
