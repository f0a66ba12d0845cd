import APNSCore
import Foundation
import ProfileDrop
import TestSupport
import Testing

@Suite("DropCondition")
struct DropConditionTests {
    let condition = DropCondition.default

    /// A unit vector `degrees` off the forward axis (0, 0, -1), tilted toward +y (or +x), scaled by `length`.
    static func tilted(_ degrees: Double, sideways: Bool = false, length: Double = 1) -> SIMD3<Double> {
        let radians = degrees * Double.pi / 180
        let off = sin(radians) * length
        return SIMD3(sideways ? off : 0, sideways ? 0 : off, -cos(radians) * length)
    }

    @Test("distance exactly at 0.3 m counts; no direction means distance alone decides")
    func distanceEdge() {
        #expect(condition.evaluate(distance: 0.3, direction: nil) == .met)
        #expect(condition.evaluate(distance: 0, direction: nil) == .met)
        #expect(condition.evaluate(distance: 0.300001, direction: nil) == .notMet(.tooFar(meters: 0.300001, max: 0.3)))
    }

    @Test(
        "angle exactly 30° counts, in any plane and at any vector length",
        arguments: [
            (false, 1.0), (true, 1.0), (false, 0.5), (true, 7.0),
        ])
    func angleEdge(sideways: Bool, length: Double) {
        #expect(condition.evaluate(distance: 0.3, direction: Self.tilted(30, sideways: sideways, length: length)) == .met)
    }

    @Test("just outside 30° is rejected with the angle", arguments: [30.001, 45, 90, 180])
    func angleOutside(degrees: Double) throws {
        let result = condition.evaluate(distance: 0.1, direction: Self.tilted(degrees))
        guard case .notMet(.offAxis(let measured, let max)) = result else {
            Issue.record("expected offAxis, got \(result)")
            return
        }
        #expect(abs(measured - degrees) < 1e-6)
        #expect(max == 30)
    }

    @Test("straight ahead is (0, 0, -1), Nearby Interaction's forward axis; toward the user is 180°")
    func axisConvention() throws {
        #expect(try #require(DropCondition.angleDegrees(from: SIMD3(0, 0, -1))) == 0)
        #expect(try #require(DropCondition.angleDegrees(from: SIMD3(0, 0, 1))) == 180)
        #expect(abs(try #require(DropCondition.angleDegrees(from: SIMD3(1, 0, 0))) - 90) < 1e-12)
    }

    @Test("NaN, infinite or negative distance is invalid input", arguments: [Double.nan, .infinity, -.infinity, -0.01])
    func invalidDistance(distance: Double) {
        guard case .invalid(.distance) = condition.evaluate(distance: distance, direction: nil) else {
            Issue.record("expected invalid distance")
            return
        }
    }

    @Test(
        "a zero-length or non-finite direction is invalid input",
        arguments: [
            SIMD3<Double>(0, 0, 0), SIMD3(.nan, 0, -1), SIMD3(0, .infinity, -1), SIMD3(1e-200, 0, 0) * 1e-200,
        ])
    func invalidDirection(direction: SIMD3<Double>) {
        #expect(condition.evaluate(distance: 0.1, direction: direction) == .invalid(.direction))
    }

    @Test("invalid input wins over a failed condition")
    func invalidBeforeNotMet() {
        #expect(condition.evaluate(distance: 5, direction: SIMD3(0, 0, 0)) == .invalid(.direction))
    }

    @Test("limits are configurable")
    func configurable() {
        let wide = DropCondition(maxDistanceMeters: 1, maxAngleDegrees: 60, window: .seconds(5))
        #expect(wide.evaluate(distance: 0.9, direction: Self.tilted(59)) == .met)
        #expect(condition.evaluate(distance: 0.9, direction: Self.tilted(59)) != .met)
    }
}
