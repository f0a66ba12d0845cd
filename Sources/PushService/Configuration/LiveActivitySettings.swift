import Foundation

/// Live Activity settings (`live_activities` in the configuration file).
///
/// Apple counts ActivityKit pushes sent at priority 10 toward an hourly budget and may throttle them past
/// it, and advises priority 5 for updates that need no immediate attention ("Determine the update
/// frequency", ActivityKit). Apple publishes no number, so the service keeps a budget of its own per
/// activity: an update asking for priority 10 once `priority10PerHour` updates of the activity went at 10
/// in the last hour is sent at 5 instead. The count lives in the store, so every instance sharing it
/// takes from the same budget.
public struct LiveActivitySettings: Sendable, Equatable {
    /// The window the budget counts in: the last hour.
    public static let budgetWindow: Duration = .seconds(3600)
    /// The largest `priority10PerHour` accepted (one a second on average).
    public static let maxPriority10PerHour = 3600

    /// Updates of one activity that may go at priority 10 in any hour (`live_activities.priority10_per_hour`);
    /// 0 sends every update at 5. The default, 10 (one every six minutes on average), is a conservative
    /// guess at Apple's unpublished budget: updates default to 5 anyway, and starts and ends, which are not
    /// counted, keep their priority.
    public var priority10PerHour = 10

    /// The defaults.
    public init() {}

    /// Reads the configuration file's `live_activities` object.
    mutating func apply(json section: JSONFields) throws(APIError) {
        try section.checkKnown(["priority10_per_hour"])
        if let value = try section.int("priority10_per_hour") {
            guard (0...Self.maxPriority10PerHour).contains(value) else {
                throw .invalidField("live_activities.priority10_per_hour", "must be 0-\(Self.maxPriority10PerHour)")
            }
            priority10PerHour = value
        }
    }
}
