package import Foundation

extension Date {
    /// Milliseconds since 1970, rounded: the precision every timestamp is stored with.
    package var storeMillis: Int64 { Int64((timeIntervalSince1970 * 1_000).rounded()) }

    /// The date for `storeMillis` milliseconds since 1970.
    package init(storeMillis: Int64) { self.init(timeIntervalSince1970: Double(storeMillis) / 1_000) }

    /// This date at store precision, so both twins hand back identical values.
    package var storeNormalized: Date { Date(storeMillis: storeMillis) }
}
