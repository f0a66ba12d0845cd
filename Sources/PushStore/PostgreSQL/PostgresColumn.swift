import Foundation

extension PostgresRow {
    func bytes(_ column: some StoreColumn) -> [UInt8] { bytes(at: column.rawValue) }
}
