/// What an API key may do. A route needs one scope; a key holds a set of them.
public enum APIScope: String, Sendable, CaseIterable, Comparable {
    /// Pushes, profile-drop reports and cancels, answers to mate requests.
    case send
    /// Users and devices (and later webhooks and channels).
    case manage
    /// Every `GET` under `/v1`, and `/metrics` or `/healthz` when they are protected.
    case read
    /// Operator routes such as reloads.
    case admin

    /// Sorted by declaration order, for stable output.
    public static func < (lhs: APIScope, rhs: APIScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
