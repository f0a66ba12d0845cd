public import APNSCore

// Literals for fixtures: tests write `"ab12…"`, `"development"`, `"alert"` or `10` where the API takes
// the typed value. A literal that is not a valid value stops the test at once.

extension DeviceToken: ExpressibleByStringLiteral {
    /// A token from hex text; the text must be a valid token.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("not a device token: \(value)") }
    }
}

extension APNSEnvironment: ExpressibleByStringLiteral {
    /// `"production"` or `"development"`.
    public init(stringLiteral value: String) {
        guard let environment = APNSEnvironment(named: value) else { preconditionFailure("not an environment: \(value)") }
        self = environment
    }
}

extension PushType: ExpressibleByStringLiteral {
    /// Any push type name.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}

extension APNSRejectionReason: ExpressibleByStringLiteral {
    /// Any reason string.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}

extension Priority: ExpressibleByIntegerLiteral {
    /// 10, 5 or 1.
    public init(integerLiteral value: Int) {
        guard let priority = Priority(rawValue: value) else { preconditionFailure("not a priority: \(value)") }
        self = priority
    }
}
