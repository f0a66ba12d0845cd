#if FUZZING
/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    RequestDecodingCheck.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// libFuzzer's driver, started from this executable's entry point.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The entry point SwiftPM links as `main` for this executable target.
@_cdecl("fuzz_requests_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return runFuzzerDriver(&count, &vector, fuzzTestOneInput)
}
#else
import FuzzSupport

@main
enum ReplayRequests {
    static func main() {
        FuzzReplay.main(name: "fuzz-requests", arguments: Array(CommandLine.arguments.dropFirst()), check: RequestDecodingCheck.run)
    }
}
#endif
