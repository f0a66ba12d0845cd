#if FUZZING
/// libFuzzer's driver (linked in by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// What a fuzz target's entry points call: each target keeps only the two symbols that must be its own,
/// `LLVMFuzzerTestOneInput` and the `<module>_main` SwiftPM links as its `main`.
public enum FuzzDriver {
    /// Runs libFuzzer with the process's arguments, feeding each input to `callback`.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var vector = argv
        return runFuzzerDriver(&count, &vector, callback)
    }

    /// The bytes of one libFuzzer input.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }
}
#endif
